package testkit

import (
	"testing"
	"time"
)

// Deadline is how long Eventually waits for its condition before it fails
// the test.
const Deadline = 30 * time.Second

// maxPoll bounds the poll interval's back-off.
const maxPoll = 20 * time.Millisecond

// Eventually polls cond until it returns true, failing tb with "timed out
// waiting for " what after Deadline. It must be called from the test's
// goroutine, as tb.Fatalf must.
func Eventually(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	eventually(tb, what, cond, nil, Deadline)
}

// EventuallyDescribe is Eventually that adds what describe returns to the
// failure, read once the deadline has passed: the state the condition
// was waiting on, so that a failure says what was seen instead.
func EventuallyDescribe(tb testing.TB, what string, cond func() bool, describe func() string) {
	tb.Helper()
	eventually(tb, what, cond, describe, Deadline)
}

func eventually(tb testing.TB, what string, cond func() bool, describe func() string, limit time.Duration) {
	tb.Helper()
	deadline := time.Now().Add(limit)
	poll := time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			if describe != nil {
				tb.Fatalf("timed out after %v waiting for %s; %s", limit, what, describe())
			}
			tb.Fatalf("timed out after %v waiting for %s", limit, what)
		}
		time.Sleep(poll)
		poll = min(2*poll, maxPoll)
	}
}
