package termdriver

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/internal/testkit"
)

// newDriver returns a Driver closed when the test ends.
func newDriver(t testing.TB, opts Options) *Driver {
	t.Helper()
	d := New(opts)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := d.Close(ctx); err != nil {
			t.Error(err)
		}
	})
	return d
}

// waitFor waits for pattern on s's screen, failing the test otherwise.
func waitFor(t testing.TB, s *Session, pattern string) WaitResult {
	t.Helper()
	res, err := s.Wait(context.Background(), WaitOptions{Pattern: regexp.MustCompile(pattern), Timeout: testkit.Deadline})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reason != ReasonMatch {
		t.Fatalf("waiting for %q: %s after %v; screen:\n%s", pattern, res.Reason, res.Waited, res.Screen.Text())
	}
	return res
}

func TestTypeAndWait(t *testing.T) {
	d := newDriver(t, Options{})
	s, err := d.Start(helperStart("repl"))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, s, `(?m)^>$`)
	if _, err := s.Type(context.Background(), "hello"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.TypeKeys(context.Background(), "Enter"); err != nil {
		t.Fatal(err)
	}
	res := waitFor(t, s, `= hello`)
	if res.Match != "= hello" {
		t.Errorf("match %q", res.Match)
	}
	// The screen is the host emulator's at the same seq.
	host, seq, err := s.Host().Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	scr, err := s.Screen(ScreenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The program is idle, reading: nothing is published in between.
	if scr.Seq != seq || !slices.Equal(scr.Lines, testkit.Lines(host)) ||
		scr.CursorRow != host.CursorRow || scr.CursorCol != host.CursorCol {
		t.Errorf("screen at seq %d: %q, cursor %d,%d; host at seq %d: %q, cursor %d,%d",
			scr.Seq, scr.Lines, scr.CursorRow, scr.CursorCol, seq, testkit.Lines(host), host.CursorRow, host.CursorCol)
	}
	if got := scr.Marked("|"); !strings.HasSuffix(got, "= hello\n> |") {
		t.Errorf("marked screen %q", got)
	}
}

func TestScreenSince(t *testing.T) {
	d := newDriver(t, Options{})
	s, err := d.Start(helperStart("repl"))
	if err != nil {
		t.Fatal(err)
	}
	first := waitFor(t, s, `(?m)^>$`).Screen
	again, err := s.Screen(ScreenOptions{Since: first.Seq})
	if err != nil {
		t.Fatal(err)
	}
	if !again.Unchanged() {
		t.Errorf("nothing happened, yet changed rows %v (base %d)", again.Changed, again.Base)
	}
	if _, err := s.Type(context.Background(), "x\r"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, s, "= x")
	diff, err := s.Screen(ScreenOptions{Since: first.Seq})
	if err != nil {
		t.Fatal(err)
	}
	if diff.Base != first.Seq || !slices.Equal(diff.Changed, []int{0, 1, 2}) {
		t.Errorf("base %d changed %v; want base %d rows [0 1 2]", diff.Base, diff.Changed, first.Seq)
	}
	now, err := s.Screen(ScreenOptions{Since: diff.Seq})
	if err != nil {
		t.Fatal(err)
	}
	if now.Seq == diff.Seq && !now.Unchanged() {
		t.Errorf("the same seq compared as changed: %v", now.Changed)
	}
	unknown, err := s.Screen(ScreenOptions{Since: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	if unknown.Base != 0 {
		t.Errorf("a seq never returned gave base %d", unknown.Base)
	}
}

func TestApplicationCursorKeys(t *testing.T) {
	d := newDriver(t, Options{})
	s, err := d.Start(helperStart("keys"))
	if err != nil {
		t.Fatal(err)
	}
	if !waitFor(t, s, "ready").Screen.AppCursorKeys {
		t.Fatal("the screen does not report DECCKM")
	}
	if _, err := s.TypeKeys(context.Background(), "Up", "C-c"); err != nil {
		t.Fatal(err)
	}
	// Raw mode: C-c is a byte, not a signal, and Up is SS3 A.
	waitFor(t, s, `1b4f4103`)
}

func TestWaitConditions(t *testing.T) {
	d := newDriver(t, Options{})
	s, err := d.Start(helperStart("repl"))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, s, `(?m)^>$`)
	ctx := context.Background()
	t.Run("timeout", func(t *testing.T) {
		res, err := s.Wait(ctx, WaitOptions{Pattern: regexp.MustCompile("never"), Timeout: 50 * time.Millisecond})
		if err != nil || res.Reason != ReasonTimeout || res.Screen.Lines[0] != ">" {
			t.Errorf("%+v, %v", res, err)
		}
	})
	t.Run("quiet", func(t *testing.T) {
		res, err := s.Wait(ctx, WaitOptions{Quiet: 50 * time.Millisecond, Timeout: testkit.Deadline})
		if err != nil || res.Reason != ReasonQuiet {
			t.Errorf("%+v, %v", res, err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := s.Wait(cctx, WaitOptions{Pattern: regexp.MustCompile("never")}); !errors.Is(err, context.Canceled) {
			t.Errorf("err %v", err)
		}
	})
	t.Run("exit", func(t *testing.T) {
		if _, err := s.Type(ctx, "exit\r"); err != nil {
			t.Fatal(err)
		}
		res, err := s.Wait(ctx, WaitOptions{Timeout: testkit.Deadline})
		if err != nil || res.Reason != ReasonExit || !res.Screen.Exited || res.Screen.Exit.Code != 3 {
			t.Errorf("%+v, %v", res, err)
		}
		if _, err := s.Type(ctx, "more"); !errors.Is(err, ptyhost.ErrExited) {
			t.Errorf("typing after exit: %v", err)
		}
		res, err = s.Wait(ctx, WaitOptions{Pattern: regexp.MustCompile("never")})
		if err != nil || res.Reason != ReasonExit {
			t.Errorf("waiting after exit: %+v, %v", res, err)
		}
	})
}

func TestTypePending(t *testing.T) {
	d := newDriver(t, Options{})
	s, err := d.Start(helperStart("silent"))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, s, "silent")
	// The helper reads one byte and exits; before it, the PTY's input
	// buffer fills and the write waits.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err = s.Type(ctx, strings.Repeat("x", 1<<20))
	if err != nil && !errors.Is(err, ErrInputPending) && !errors.Is(err, ptyhost.ErrExited) {
		t.Fatalf("err %v", err)
	}
}

func TestDriverSessions(t *testing.T) {
	d := newDriver(t, Options{MaxSessions: 2})
	a, err := d.Start(helperStart("repl"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := d.Start(helperStart("repl"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Start(helperStart("repl")); !errors.Is(err, ErrTooManySessions) {
		t.Fatalf("third session: %v", err)
	}
	if a.ID() != "s1" || b.ID() != "s2" {
		t.Errorf("ids %s %s", a.ID(), b.ID())
	}
	if got, err := d.Session("s2"); got != b || err != nil {
		t.Errorf("Session(s2) = %v, %v", got, err)
	}
	_, err = d.Session("s9")
	if !errors.Is(err, ErrUnknownSession) || !strings.Contains(err.Error(), "s1, s2") {
		t.Errorf("unknown session: %v", err)
	}
	list := d.List()
	if len(list) != 2 || list[0].ID != "s1" || list[1].PID != b.Host().PID() {
		t.Errorf("list %+v", list)
	}
	info, err := d.Stop(context.Background(), "s1")
	if err != nil || !info.Exited {
		t.Errorf("stop: %+v, %v", info, err)
	}
	if _, err := d.Session("s1"); !errors.Is(err, ErrUnknownSession) {
		t.Errorf("stopped session still there: %v", err)
	}
	c, err := d.Start(helperStart("repl"))
	if err != nil || c.ID() != "s3" {
		t.Fatalf("start after stop: %v, %v", c, err)
	}
	if _, err := d.Stop(context.Background(), c.ID()); err != nil {
		t.Fatal(err)
	}
	bad := StartSpec{Command: []string{"/nonexistent/program"}}
	if _, err := d.Start(bad); err == nil {
		t.Error("started a program that does not exist")
	}
	if _, err := d.Start(StartSpec{Command: []string{"true"}, Cols: 5000}); !errors.Is(err, ptyhost.ErrInvalidSpec) {
		t.Errorf("bad size: %v", err)
	}
}

func TestManySessions(t *testing.T) {
	d := newDriver(t, Options{})
	const n = 20
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			s, err := d.Start(helperStart("repl"))
			if err != nil {
				errs <- err
				return
			}
			ctx := context.Background()
			word := fmt.Sprintf("word%d", i)
			if _, err := s.Type(ctx, word+"\r"); err != nil {
				errs <- err
				return
			}
			res, err := s.Wait(ctx, WaitOptions{Pattern: regexp.MustCompile("= " + word + "\n"), Timeout: testkit.Deadline})
			if err != nil || res.Reason != ReasonMatch {
				errs <- fmt.Errorf("%s: %v, %v:\n%s", s.ID(), res.Reason, err, res.Screen.Text())
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := len(d.List()); got != n {
		t.Errorf("%d sessions listed", got)
	}
	if err := d.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(d.List()) != 0 {
		t.Error("sessions left after Close")
	}
	if _, err := d.Start(helperStart("repl")); !errors.Is(err, ErrClosed) {
		t.Errorf("start after close: %v", err)
	}
}

func TestResize(t *testing.T) {
	d := newDriver(t, Options{})
	s, err := d.Start(helperStart("repl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Resize(50, 12); err != nil {
		t.Fatal(err)
	}
	scr, err := s.Screen(ScreenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if scr.Cols != 50 || scr.Rows != 12 || len(scr.Lines) != 12 {
		t.Errorf("after resize: %dx%d, %d lines", scr.Cols, scr.Rows, len(scr.Lines))
	}
	if info := s.Info(); info.Cols != 50 || info.Rows != 12 {
		t.Errorf("info %+v", info)
	}
	if err := s.Resize(0, 12); !errors.Is(err, ptyhost.ErrBadGeometry) {
		t.Errorf("bad size: %v", err)
	}
}
