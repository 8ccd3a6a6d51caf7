package testreport

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// stream builds a `go test -json` stream from compact rows.
func stream(rows ...string) string { return strings.Join(rows, "\n") + "\n" }

func TestReporterCountsAndToolSkips(t *testing.T) {
	in := stream(
		`{"Action":"run","Package":"p/a","Test":"TestOK"}`,
		`{"Action":"output","Package":"p/a","Test":"TestOK","Output":"=== RUN   TestOK\n"}`,
		`{"Action":"pass","Package":"p/a","Test":"TestOK","Elapsed":0.01}`,
		`{"Action":"output","Package":"p/a","Test":"TestTmux","Output":"    tmux.go:31: tmux not installed: exec: \"tmux\": executable file not found in $PATH\n"}`,
		`{"Action":"output","Package":"p/a","Test":"TestTmux","Output":"--- SKIP: TestTmux (0.00s)\n"}`,
		`{"Action":"skip","Package":"p/a","Test":"TestTmux"}`,
		`{"Action":"output","Package":"p/a","Test":"TestShort","Output":"    x_test.go:9: starts a tmux server\n"}`,
		`{"Action":"skip","Package":"p/a","Test":"TestShort"}`,
		`{"Action":"output","Package":"p/a","Test":"TestBad","Output":"    x_test.go:12: got 1, want 2\n"}`,
		`{"Action":"fail","Package":"p/a","Test":"TestBad","Elapsed":0.02}`,
		`{"Action":"fail","Package":"p/a","Elapsed":1.5}`,
		`{"Action":"skip","Package":"p/b"}`,
		`not json: a line from a build`,
	)
	var out strings.Builder
	r := New(&out)
	if err := r.Consume(strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	r.Summary(2 * time.Second)
	if got, want := r.Counts(), (Counts{Passed: 1, Failed: 1, Skipped: 2}); got != want {
		t.Errorf("counts = %+v, want %+v", got, want)
	}
	tools := r.ToolSkips()
	if len(tools) != 1 || tools[0].Test != "TestTmux" {
		t.Errorf("tool skips = %+v, want just TestTmux", tools)
	}
	text := out.String()
	for _, want := range []string{
		"--- FAIL: p/a TestBad (0.02s)\n    x_test.go:12: got 1, want 2\n",
		"FAIL\tp/a\t1.500s\n",
		"?   \tp/b\t[no test files]\n",
		"not json: a line from a build\n",
		"!! 1 tests did NOT run because a tool they need is missing",
		`p/a TestTmux: tmux not installed: exec: "tmux"`,
		"1× starts a tmux server\n",
		"failed packages: p/a\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	if !strings.HasSuffix(text, "\ntestreport: 1 passed, 1 failed, 2 skipped\n") {
		t.Errorf("report does not end with the closing line CI reads:\n%s", text)
	}
}

func TestReporterNoBannerWithoutToolSkips(t *testing.T) {
	var out strings.Builder
	r := New(&out)
	in := stream(
		`{"Action":"pass","Package":"p/a","Test":"TestOK"}`,
		`{"Action":"pass","Package":"p/a","Elapsed":0.2}`,
	)
	if err := r.Consume(strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	r.Summary(time.Second)
	if strings.Contains(out.String(), "!!") {
		t.Errorf("banner printed with no tool skips:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "ok  \tp/a\t0.200s\n") {
		t.Errorf("package line missing:\n%s", out.String())
	}
}

func TestReporterBoundsKeptOutput(t *testing.T) {
	var out strings.Builder
	r := New(&out)
	line := `{"Action":"output","Package":"p","Test":"TestLoud","Output":"` + strings.Repeat("x", 1000) + `\n"}` + "\n"
	in := strings.Repeat(line, 1000) + `{"Action":"fail","Package":"p","Test":"TestLoud"}` + "\n"
	if err := r.Consume(strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	if n := out.Len(); n > maxOutputBytes+4096 {
		t.Errorf("kept %d bytes of one test's output, bound is %d", n, maxOutputBytes)
	}
}

func TestReporterNamesTheLongestTests(t *testing.T) {
	var rows []string
	// Twenty tests of 1..20 s in a scrambled order, a subtest longer than
	// all of them and a skip: the summary names the twelve longest
	// top-level tests that ran, longest first.
	for i := range 20 {
		n := (i*7)%20 + 1
		rows = append(rows, fmt.Sprintf(`{"Action":"pass","Package":"p/a","Test":"Test%02d","Elapsed":%d}`, n, n))
	}
	rows = append(rows,
		`{"Action":"pass","Package":"p/a","Test":"Test05/sub","Elapsed":99}`,
		`{"Action":"fail","Package":"p/b","Test":"TestSlowFail","Elapsed":15.5}`,
		`{"Action":"skip","Package":"p/a","Test":"TestSkipped"}`,
	)
	var out strings.Builder
	r := New(&out)
	if err := r.Consume(strings.NewReader(stream(rows...))); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range r.Slowest() {
		got = append(got, s.Test)
	}
	want := "Test20 Test19 Test18 Test17 Test16 TestSlowFail Test15 Test14 Test13 Test12 Test11 Test10"
	if strings.Join(got, " ") != want {
		t.Errorf("slowest = %v, want %s", got, want)
	}
	r.Summary(time.Second)
	if !strings.Contains(out.String(), "longest tests:\n     20.0s  p/a Test20\n") {
		t.Errorf("summary lacks the longest tests:\n%s", out.String())
	}
}
