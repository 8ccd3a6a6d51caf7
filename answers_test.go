package ptyhost

import (
	"context"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term"
	"github.com/ptyhost/ptyhost/internal/version"
)

// TestQueriesAnsweredUnattached: a raw-mode child that probes its terminal
// (CPR, OSC 11, DECRQM, then DA1 as the sentinel) gets correct answers
// from the host's emulator with nobody attached.
func TestQueriesAnsweredUnattached(t *testing.T) {
	newTerm := realBackend(t)
	const queries = "\x1b[6n\x1b]11;?\x1b\\\x1b[?2004$p\x1b[c"
	const want = "\x1b[1;1R" + "\x1b]11;rgb:0000/0000/0000\x1b\\" + "\x1b[?2004;2$y" + "\x1b[?62;22c"
	got, ex := helperAnswers(t, queries, newTerm)
	if got != want {
		t.Fatalf("answers = %q, want %q", got, want)
	}
	if ex.Code != 0 {
		t.Fatalf("helper exit %+v", ex)
	}
}

// helperAnswers runs the queries helper, which writes queries to its
// terminal and prints what came back, and returns that and its exit.
func helperAnswers(t *testing.T, queries string, newTerm func(term.Options) (term.Terminal, error)) (string, attachwire.Exit) {
	t.Helper()
	s := start(t, helperSpec("queries", "PTYHOST_TEST_QUERIES="+queries), newTerm)
	ex := waitDone(t, s)
	sub, err := s.Subscribe(0)
	if err != nil {
		t.Fatal(err)
	}
	out := output(collect(t, sub))
	m := regexp.MustCompile(`ANSWERS ("[^\r]*")`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("child printed no answers (exit %+v): %q", ex, out)
	}
	got, err := strconv.Unquote(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	return got, ex
}

// TestXTVERSION: the host answers XTVERSION with ptyhost's version, the
// one `ptyhost version` prints rather than a fixed string, with every
// backend this build has.
func TestXTVERSION(t *testing.T) {
	const queries = "\x1b[>q\x1b[c"
	want := "\x1bP>|ptyhost(" + version.String() + ")\x1b\\" + "\x1b[?62;22c"
	for _, bc := range backends(t) {
		if bc.name == "fake" {
			continue
		}
		t.Run(bc.name, func(t *testing.T) {
			if got, _ := helperAnswers(t, queries, bc.newTerm); got != want {
				t.Fatalf("answers = %q, want %q", got, want)
			}
		})
	}
}

// TestQueryWedge: a child that floods DA1 and never reads its input cannot
// stall the host: output, Snapshot, markers and Stop all still answer, and
// the answers that did not fit are dropped and counted.
func TestQueryWedge(t *testing.T) {
	for _, bc := range backends(t) {
		t.Run(bc.name+"/hang", func(t *testing.T) {
			s := start(t, helperSpec("wedge"), bc.newTerm)
			sub, err := s.Subscribe(0)
			if err != nil {
				t.Fatal(err)
			}
			waitOutput(t, sub, "flooded")
			answered(t, "Snapshot", func() {
				if _, _, err := s.Snapshot(); err != nil {
					t.Errorf("Snapshot: %v", err)
				}
			})
			answered(t, "EmitMarker", func() {
				if _, err := s.EmitMarker("still here"); err != nil {
					t.Errorf("EmitMarker: %v", err)
				}
			})
			if s.DroppedAnswers() == 0 {
				t.Errorf("no answer was dropped")
			}
			answered(t, "Stop", func() { stopT(t, s) })
			// Stop sends SIGHUP and SIGTERM together; the Go runtime of the
			// helper may act on either first. Either is polite: not SIGKILL.
			if ex, _ := s.Exit(); ex.Signal != "SIGHUP" && ex.Signal != "SIGTERM" {
				t.Errorf("exit %+v, want SIGHUP or SIGTERM, not SIGKILL", ex)
			}
			t.Logf("dropped %d of 10000 answers", s.DroppedAnswers())
		})
		t.Run(bc.name+"/exit", func(t *testing.T) {
			s := start(t, helperSpec("wedge", "PTYHOST_TEST_THEN=exit"), bc.newTerm)
			if ex := waitDone(t, s); ex != (attachwire.Exit{}) {
				t.Errorf("exit %+v, want 0", ex)
			}
			if s.DroppedAnswers() == 0 {
				t.Errorf("no answer was dropped")
			}
		})
	}
}

// answered fails the test if fn does not return within the watchdog.
func answered(tb testing.TB, what string, fn func()) {
	tb.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	select {
	case <-done:
	case <-ctx.Done():
		tb.Fatalf("%s did not return within %v", what, watchdog)
	}
	_ = time.Second
}
