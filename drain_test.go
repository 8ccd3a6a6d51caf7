package ptyhost

import (
	"bytes"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
)

// TestDrainWaitsForSlowReadLoop: output the child wrote before exiting is
// published even when the read loop is held up (here by the session lock)
// for longer than DrainGrace after the exit.
func TestDrainWaitsForSlowReadLoop(t *testing.T) {
	s := start(t, Spec{Command: []string{"sh", "-c", "echo ready; read x; printf A; sleep 0.2; printf B; exit 4"}}, newFakeTerm)
	sub := mustSubscribe(t, s, 0)
	waitTail(t, sub, "ready\r\n")
	s.mu.Lock()
	if _, err := s.WriteInput([]byte("\n")); err != nil {
		s.mu.Unlock()
		t.Fatal(err)
	}
	// Hold the feed up well past the exit plus DrainGrace. The child's A
	// and B wait in the PTY (or in the read loop) meanwhile.
	time.Sleep(DrainGrace + 800*time.Millisecond)
	s.mu.Unlock()
	frames := collect(t, sub)
	if out := output(frames); !bytes.HasSuffix(out, []byte("AB")) {
		t.Fatalf("output %q lost what the child wrote before exiting", out)
	}
	if last := frames[len(frames)-1]; last.Type != attachwire.TypeExit {
		t.Fatalf("last frame type %d, want Exit", last.Type)
	}
	if ex, _ := s.Exit(); ex.Code != 4 {
		t.Fatalf("exit %+v, want code 4", ex)
	}
}

// TestDrainLimitEndsEndlessWriter: a background process that never stops
// writing to the PTY cannot hold the Exit frame back past DrainLimit.
func TestDrainLimitEndsEndlessWriter(t *testing.T) {
	s := start(t, Spec{Command: []string{"sh", "-c", "trap '' HUP; yes & echo started"}, RingBytes: 64 << 10}, newFakeTerm)
	ex := waitDone(t, s)
	if ex != (attachwire.Exit{}) {
		t.Fatalf("exit %+v, want code 0", ex)
	}
}
