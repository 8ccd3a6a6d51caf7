package testkit

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// fatalTB records the first Fatalf and ends the goroutine, as testing's
// does, so that a failing wait can be checked without failing the test.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// failure runs wait on its own goroutine with a fatalTB and returns what
// it failed with, "" when it returned.
func failure(wait func(tb *fatalTB)) string {
	tb := &fatalTB{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		wait(tb)
	}()
	<-done
	return tb.msg
}

func TestEventuallyReturnsOnceTheConditionHolds(t *testing.T) {
	n := 0
	Eventually(t, "the third poll", func() bool { n++; return n == 3 })
	if n != 3 {
		t.Fatalf("polled %d times, want 3", n)
	}
}

func TestEventuallyFailsAtTheDeadline(t *testing.T) {
	tests := []struct {
		name     string
		describe func() string
		want     string
	}{
		{"plain", nil, "timed out after 30ms waiting for godot"},
		{"described", func() string { return "the road is empty" }, "timed out after 30ms waiting for godot; the road is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			msg := failure(func(tb *fatalTB) {
				eventually(tb, "godot", func() bool { return false }, tt.describe, 30*time.Millisecond)
			})
			if msg != tt.want {
				t.Errorf("failure %q, want %q", msg, tt.want)
			}
			if waited := time.Since(start); waited < 30*time.Millisecond {
				t.Errorf("failed after %v, before the deadline", waited)
			}
		})
	}
}

// The poll interval backs off to maxPoll: a condition that never holds is
// not run in a hot loop.
func TestEventuallyBacksOff(t *testing.T) {
	polls := 0
	const limit = 200 * time.Millisecond
	msg := failure(func(tb *fatalTB) {
		eventually(tb, "nothing", func() bool { polls++; return false }, nil, limit)
	})
	if !strings.Contains(msg, "waiting for nothing") {
		t.Fatalf("failure %q", msg)
	}
	// 1+2+4+8+16 ms, then every 20 ms: about 14 polls in 200 ms; a sleep
	// may overrun but never return early.
	if most := int(limit/maxPoll) + 6; polls > most {
		t.Errorf("%d polls in %v, want at most %d", polls, limit, most)
	}
}

func TestEventuallyDescribeReadsTheStateOnlyOnFailure(t *testing.T) {
	EventuallyDescribe(t, "a true condition", func() bool { return true }, func() string {
		t.Error("describe called although the condition held")
		return ""
	})
}
