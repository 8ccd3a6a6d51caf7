package main

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
)

// printTable writes the one table: per case the median and min–max over the
// measured rounds, and the median and min–max of its per-round ratio to its
// paired bare baseline.
func printTable(w io.Writer, cfg config, wl workload, res results) {
	fmt.Fprintf(w, "ptybench: %s workload, %d bytes (%.1f MiB), %dx%d, scrollback %d; %d rounds after %d warm-up, bare median of %d per pair, %d round trips per latency sample; %s %s/%s, %d CPUs\n\n",
		cfg.content, wl.size, float64(wl.size)/(1<<20), cfg.cols, cfg.rows, cfg.scrollback,
		cfg.rounds, cfg.warmup, cfg.bareReps, cfg.rtIters,
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "case\tmetric\tmedian\tmin–max\tvs bare\tvs bare min–max\trounds\t")
	rows := []*caseResult{res.bare}
	for _, r := range res.cases {
		if r.c.kind == throughputKind {
			rows = append(rows, r)
		}
	}
	rows = append(rows, res.rtBare)
	for _, r := range res.cases {
		if r.c.kind == latencyKind {
			rows = append(rows, r)
		}
	}
	var notes noteList
	for _, r := range rows {
		base := r == res.bare || r == res.rtBare
		switch {
		case r.unavailable != "":
			fmt.Fprintf(tw, "%s\t\tunavailable\t\t\t\t0\t\n", r.c.name)
			notes.add("unavailable: "+r.unavailable, r.c.name)
			continue
		case r.failed != nil:
			notes.add(fmt.Sprintf("failed: %v", r.failed), r.c.name)
			if len(r.samples) == 0 {
				fmt.Fprintf(tw, "%s\t\tfailed\t\t\t\t0\t\n", r.c.name)
				continue
			}
		}
		if r.c.kind == throughputKind {
			writeRow(tw, r.c.name, "MiB/s", "%.2f", values(r.samples, fieldValue), values(r.ratios, fieldValue), base)
			writeRow(tw, "", "MiB/cpu-s", "%.1f", values(r.samples, fieldCPU), values(r.ratios, fieldCPU), base)
			continue
		}
		writeRow(tw, r.c.name, "p50 µs", "%.0f", values(r.samples, fieldValue), values(r.ratios, fieldValue), base)
		writeRow(tw, "", "p99 µs", "%.0f", values(r.samples, fieldP99), values(r.ratios, fieldP99), base)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nMiB/s: file size over wall-clock time. MiB/cpu-s: file size over the CPU time (user+system) of the host process alone (the reader/emulator, not cat).")
	fmt.Fprintln(w, "vs bare: median and min–max over rounds of the ratio to the bare baseline run next to it (throughput: share of bare's, 1 = the limit; latency: multiple of bare's, 1 = the limit).")
	for _, n := range notes {
		fmt.Fprintf(w, "note: %s %s\n", strings.Join(n.names, ", "), n.text)
	}
}

// noteList gathers the table's notes, one per distinct text, naming every
// case it applies to.
type noteList []struct {
	text  string
	names []string
}

func (l *noteList) add(text, name string) {
	for i := range *l {
		if (*l)[i].text == text {
			(*l)[i].names = append((*l)[i].names, name)
			return
		}
	}
	*l = append(*l, struct {
		text  string
		names []string
	}{text, []string{name}})
}

func writeRow(w io.Writer, name, metric, vf string, vs, rs []float64, base bool) {
	cells := []string{name, metric, fmt.Sprintf(vf, median(vs)), rangeOf(vf, vs)}
	if base {
		cells = append(cells, "1", "")
	} else {
		cells = append(cells, fmt.Sprintf("%.3g", median(rs)), rangeOf("%.3g", rs))
	}
	cells = append(cells, fmt.Sprint(len(vs)))
	fmt.Fprintln(w, strings.Join(cells, "\t")+"\t")
}

func rangeOf(vf string, xs []float64) string {
	if len(xs) == 0 {
		return ""
	}
	return fmt.Sprintf(vf+"–"+vf, slices.Min(xs), slices.Max(xs))
}
