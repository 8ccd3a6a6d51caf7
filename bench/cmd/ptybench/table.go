package main

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
)

// printTable writes the one table: per case and metric the median and
// min–max over the measured rounds, the ratio of its median to the bare
// baseline's median over the whole run, and the min–max of its per-round
// ratios to the baseline run next to it.
func printTable(w io.Writer, cfg config, wl workload, res results) {
	fmt.Fprintf(w, "ptybench: %s workload, %d bytes (%.1f MiB), %dx%d, scrollback %d; %d rounds after %d warm-up, bare median of %d per pair, %d round trips per latency sample; %s %s/%s, %d CPUs\n\n",
		cfg.content, wl.size, float64(wl.size)/(1<<20), cfg.cols, cfg.rows, cfg.scrollback,
		cfg.rounds, cfg.warmup, cfg.bareReps, cfg.rtIters,
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "case\tmetric\tmedian\tmin–max\tvs bare\tpaired min–max\trounds\t")
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
		base := res.bare
		if r.c.kind == latencyKind {
			base = res.rtBare
		}
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
		metrics := []struct {
			name, format string
			field        func(sample) float64
		}{{"p50 µs", "%.0f", fieldValue}, {"p99 µs", "%.0f", fieldP99}}
		if r.c.kind == throughputKind {
			metrics[0] = struct {
				name, format string
				field        func(sample) float64
			}{"MiB/s", "%.2f", fieldValue}
			metrics[1].name, metrics[1].format, metrics[1].field = "MiB/cpu-s", "%.1f", fieldCPU
		}
		for i, m := range metrics {
			name := r.c.name
			if i > 0 {
				name = ""
			}
			vs := values(r.samples, m.field)
			cells := []string{name, m.name, fmt.Sprintf(m.format, median(vs)), rangeOf(m.format, vs)}
			if r == base {
				cells = append(cells, "1", "")
			} else {
				ratio := median(vs) / median(values(base.samples, m.field))
				cells = append(cells, fmt.Sprintf("%.3g", ratio), rangeOf("%.3g", values(r.ratios, m.field)))
			}
			cells = append(cells, fmt.Sprint(len(vs)))
			fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
		}
	}
	tw.Flush()
	fmt.Fprintln(w, "\nMiB/s: file size over wall-clock time. MiB/cpu-s: file size over the CPU time (user+system) of the host process alone (the reader/emulator, not cat).")
	fmt.Fprintln(w, "vs bare: the case's median over the bare baseline's median over all pairs (throughput: share of bare's, 1 = the limit; latency: multiple of bare's).")
	fmt.Fprintln(w, "paired min–max: range over rounds of the ratio to the bare baseline run next to it in the same round.")
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

func rangeOf(vf string, xs []float64) string {
	if len(xs) == 0 {
		return ""
	}
	return fmt.Sprintf(vf+"–"+vf, slices.Min(xs), slices.Max(xs))
}
