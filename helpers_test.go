package ptyhost

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/agent"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term"
)

// watchdog bounds anything in a test that could block.
const watchdog = 30 * time.Second

// backendCase is a terminal backend tests run against.
type backendCase struct {
	name    string
	newTerm func(term.Options) (term.Terminal, error)
}

// backends returns the fake terminal and every real backend that is
// available.
func backends(tb testing.TB) []backendCase {
	cases := []backendCase{{"fake", newFakeTerm}}
	for _, b := range []Backend{BackendXVT, BackendEngine} {
		ctor, err := b.constructor()
		if err == nil {
			var t term.Terminal
			if t, err = ctor(term.Options{Cols: 80, Rows: 24}); err == nil {
				t.Close()
				cases = append(cases, backendCase{b.String(), ctor})
				continue
			}
		}
		tb.Logf("backend %s unavailable: %v", b, err)
	}
	return cases
}

// realBackend returns the default backend or skips the test.
func realBackend(tb testing.TB) func(term.Options) (term.Terminal, error) {
	tb.Helper()
	ctor, err := BackendDefault.constructor()
	if err == nil {
		var t term.Terminal
		if t, err = ctor(term.Options{Cols: 80, Rows: 24}); err == nil {
			t.Close()
			return ctor
		}
	}
	tb.Skipf("SKIP: default terminal backend unavailable: %v", err)
	return nil
}

// start spawns spec with the given terminal and stops the session at
// cleanup.
func start(tb testing.TB, spec Spec, newTerm func(term.Options) (term.Terminal, error)) *Session {
	tb.Helper()
	s, err := spawn(spec, newTerm)
	if err != nil {
		tb.Fatalf("spawn %q: %v", spec.Command, err)
	}
	tb.Cleanup(func() { stopT(tb, s) })
	return s
}

func stopT(tb testing.TB, s *Session) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	if err := s.Stop(ctx); err != nil {
		tb.Errorf("stop: %v", err)
	}
}

// collect reads sub until io.EOF and returns every frame.
func collect(tb testing.TB, sub agent.InteractiveSubscription) []attachwire.Frame {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	var frames []attachwire.Frame
	for {
		f, err := sub.Next(ctx)
		if errors.Is(err, io.EOF) {
			return frames
		}
		if err != nil {
			tb.Fatalf("after %d frames: %v", len(frames), err)
		}
		frames = append(frames, f)
	}
}

// waitOutput reads sub until the Output seen so far contains want.
func waitOutput(tb testing.TB, sub agent.InteractiveSubscription, want string) []byte {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	var out []byte
	for !bytes.Contains(out, []byte(want)) {
		f, err := sub.Next(ctx)
		if err != nil {
			tb.Fatalf("waiting for %q (got %q): %v", want, out, err)
		}
		if f.Type == attachwire.TypeOutput {
			out = append(out, f.Payload...)
		}
	}
	return out
}

// output concatenates the Output payloads of frames.
func output(frames []attachwire.Frame) []byte {
	var b []byte
	for _, f := range frames {
		if f.Type == attachwire.TypeOutput {
			b = append(b, f.Payload...)
		}
	}
	return b
}

// checkContiguous fails unless frames have seqs first, first+1, ...
func checkContiguous(tb testing.TB, frames []attachwire.Frame, first uint64) {
	tb.Helper()
	for i, f := range frames {
		if f.Seq != first+uint64(i) {
			tb.Fatalf("frame %d has seq %d, want %d", i, f.Seq, first+uint64(i))
		}
	}
}

// waitDone waits for the session's Exit.
func waitDone(tb testing.TB, s *Session) attachwire.Exit {
	tb.Helper()
	select {
	case <-s.Done():
	case <-time.After(watchdog):
		tb.Fatal("session did not exit")
	}
	ex, ok := s.Exit()
	if !ok {
		tb.Fatal("Exit not set after Done")
	}
	return ex
}

func fmtSscan(s string, args ...any) (int, error) { return fmt.Sscan(s, args...) }
