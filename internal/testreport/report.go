package testreport

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// event is one record of `go test -json` (cmd/test2json's TestEvent).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

// maxOutputBytes bounds the output kept per test, so a test that prints
// megabytes before it passes does not grow the reporter without limit. A
// failing test's output is cut to its last maxOutputBytes.
const maxOutputBytes = 64 << 10

// toolMarkers are the phrases the project's tests put in a skip message
// when a tool is missing (termtest.NeedTool, the CLI tests' requireTool).
var toolMarkers = []string{"not installed", "PTYHOST_REQUIRE_TOOLS"}

// Skip is a skipped test and the reason it gave.
type Skip struct {
	Package, Test, Reason string
}

// Counts are the totals of a run, over tests and subtests alike.
type Counts struct {
	Passed, Failed, Skipped int
}

// Reporter reads a `go test -json` stream and writes the familiar
// per-package lines to its writer as the stream goes.
type Reporter struct {
	w      io.Writer
	output map[string]*strings.Builder // by package + "\x00" + test
	counts Counts
	skips  []Skip
	// pkgFailed remembers packages that failed without a failing test
	// (a build error), whose output must be shown whole.
	pkgFailed []string
	// slowest holds the longest top-level tests so far, longest first:
	// CI's time bound is kept by knowing where the time goes.
	slowest []Timed
}

// slowestKept is how many of the longest tests the summary names.
const slowestKept = 12

// Timed is a finished top-level test and how long it ran.
type Timed struct {
	Package, Test string
	Elapsed       time.Duration
}

// New returns a Reporter that writes to w.
func New(w io.Writer) *Reporter {
	return &Reporter{w: w, output: make(map[string]*strings.Builder)}
}

// Consume reads events from r until it ends. Lines that are not JSON
// (go test writes build errors to stderr, but a tool in between may not)
// are copied through as they are.
func (r *Reporter) Consume(in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var ev event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &ev) != nil {
			fmt.Fprintf(r.w, "%s\n", line)
			continue
		}
		r.handle(ev)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("testreport: reading the event stream: %w", err)
	}
	return nil
}

func (r *Reporter) handle(ev event) {
	key := ev.Package + "\x00" + ev.Test
	switch ev.Action {
	case "output":
		b := r.output[key]
		if b == nil {
			b = new(strings.Builder)
			r.output[key] = b
		}
		if b.Len() < maxOutputBytes {
			b.WriteString(ev.Output)
		}
		return
	case "pass", "fail", "skip":
	default:
		return
	}
	out := r.take(key)
	if ev.Test == "" {
		r.packageDone(ev, out)
		return
	}
	if ev.Action != "skip" && !strings.Contains(ev.Test, "/") {
		r.noteTime(ev)
	}
	switch ev.Action {
	case "pass":
		r.counts.Passed++
	case "fail":
		r.counts.Failed++
		fmt.Fprintf(r.w, "--- FAIL: %s %s (%.2fs)\n%s", ev.Package, ev.Test, ev.Elapsed, out)
	case "skip":
		r.counts.Skipped++
		r.skips = append(r.skips, Skip{Package: ev.Package, Test: ev.Test, Reason: skipReason(out)})
	}
}

// noteTime keeps ev's test if it is among the slowestKept longest.
func (r *Reporter) noteTime(ev event) {
	t := Timed{Package: ev.Package, Test: ev.Test, Elapsed: time.Duration(ev.Elapsed * float64(time.Second))}
	i := sort.Search(len(r.slowest), func(i int) bool { return r.slowest[i].Elapsed < t.Elapsed })
	if i >= slowestKept {
		return
	}
	r.slowest = append(r.slowest, Timed{})
	copy(r.slowest[i+1:], r.slowest[i:])
	r.slowest[i] = t
	if len(r.slowest) > slowestKept {
		r.slowest = r.slowest[:slowestKept]
	}
}

// Slowest returns the longest top-level tests so far, longest first (at
// most a dozen).
func (r *Reporter) Slowest() []Timed { return r.slowest }

// packageDone prints the package's line, as go test does in list mode.
func (r *Reporter) packageDone(ev event, out string) {
	switch ev.Action {
	case "pass":
		fmt.Fprintf(r.w, "ok  \t%s\t%.3fs\n", ev.Package, ev.Elapsed)
	case "skip":
		fmt.Fprintf(r.w, "?   \t%s\t[no test files]\n", ev.Package)
	case "fail":
		r.pkgFailed = append(r.pkgFailed, ev.Package)
		fmt.Fprintf(r.w, "%sFAIL\t%s\t%.3fs\n", out, ev.Package, ev.Elapsed)
	}
}

func (r *Reporter) take(key string) string {
	b := r.output[key]
	if b == nil {
		return ""
	}
	delete(r.output, key)
	return b.String()
}

// skipReason picks the message of a skip out of a test's output: the
// lines after go test's "file.go:NN: " prefix, without the "--- SKIP"
// line itself.
func skipReason(out string) string {
	var parts []string
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "=== ") || strings.HasPrefix(line, "--- SKIP") {
			continue
		}
		if i := strings.Index(line, ".go:"); i >= 0 {
			if j := strings.Index(line[i+4:], ": "); j >= 0 {
				line = line[i+4+j+2:]
			}
		}
		parts = append(parts, line)
	}
	return strings.Join(parts, " ")
}

// Counts returns the totals so far.
func (r *Reporter) Counts() Counts { return r.counts }

// ToolSkips returns the tests that were skipped for a missing tool.
func (r *Reporter) ToolSkips() []Skip {
	var out []Skip
	for _, s := range r.skips {
		for _, m := range toolMarkers {
			if strings.Contains(s.Reason, m) {
				out = append(out, s)
				break
			}
		}
	}
	return out
}

// Summary writes the closing block: every skip grouped by reason, a
// banner when tools were missing, and a last line
// "testreport: N passed, N failed, N skipped" in the form CI reads.
func (r *Reporter) Summary(elapsed time.Duration) {
	byReason := map[string][]string{}
	for _, s := range r.skips {
		byReason[s.Reason] = append(byReason[s.Reason], s.Package+" "+s.Test)
	}
	reasons := make([]string, 0, len(byReason))
	for reason := range byReason {
		reasons = append(reasons, reason)
	}
	sort.Strings(reasons)
	if len(reasons) > 0 {
		fmt.Fprintf(r.w, "\nskipped tests, by reason:\n")
		for _, reason := range reasons {
			fmt.Fprintf(r.w, "  %d× %s\n", len(byReason[reason]), reason)
		}
	}
	if tools := r.ToolSkips(); len(tools) > 0 {
		bar := strings.Repeat("!", 72)
		fmt.Fprintf(r.w, "\n%s\n!! %d tests did NOT run because a tool they need is missing:\n", bar, len(tools))
		for _, s := range tools {
			fmt.Fprintf(r.w, "!!   %s %s: %s\n", s.Package, s.Test, s.Reason)
		}
		fmt.Fprintf(r.w, "!! Install the tools (README: \"Running the tests\") to run them.\n%s\n", bar)
	}
	if len(r.pkgFailed) > 0 {
		fmt.Fprintf(r.w, "\nfailed packages: %s\n", strings.Join(r.pkgFailed, " "))
	}
	if len(r.slowest) > 0 {
		fmt.Fprintf(r.w, "\nlongest tests:\n")
		for _, t := range r.slowest {
			fmt.Fprintf(r.w, "  %7.1fs  %s %s\n", t.Elapsed.Seconds(), t.Package, t.Test)
		}
	}
	c := r.counts
	fmt.Fprintf(r.w, "\ntests ran for %s\n", elapsed.Round(time.Second))
	fmt.Fprintf(r.w, "testreport: %d passed, %d failed, %d skipped\n", c.Passed, c.Failed, c.Skipped)
}
