package ptyhost

import (
	"bytes"
	"errors"
	"testing"

	"github.com/ptyhost/ptyhost/agent"
)

// TestAgentAdapter: Agent is the session behind the contract; a failed
// Subscribe is a nil interface (not a nil *Subscription inside one) with
// an error the contract's ErrRingMiss matches, and a good one is the
// session's own *Subscription.
func TestAgentAdapter(t *testing.T) {
	s := start(t, Spec{Command: []string{"echo", "hi"}}, newFakeTerm)
	waitDone(t, s)
	a := s.Agent()
	sub, err := a.Subscribe(1 << 40)
	if !errors.Is(err, agent.ErrRingMiss) || sub != nil {
		t.Fatalf("Subscribe ahead of the ring: %v, %#v; want ErrRingMiss and a nil interface", err, sub)
	}
	sub, err = a.Subscribe(0)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if _, ok := sub.(*Subscription); !ok {
		t.Fatalf("Subscribe returned %T", sub)
	}
	if ex, ok := a.Exit(); !ok || ex.Code != 0 {
		t.Fatalf("Exit through the adapter: %+v %v", ex, ok)
	}
	if got := output(collect(t, sub)); string(got) != "hi\r\n" {
		t.Fatalf("output through the adapter: %q", got)
	}
	want, wantAt, err := s.AppendSnapshot(nil)
	if err != nil {
		t.Fatal(err)
	}
	got, at, err := a.AppendSnapshot([]byte("prefix"))
	if err != nil || at != wantAt || !bytes.Equal(got, append([]byte("prefix"), want...)) {
		t.Fatalf("AppendSnapshot through the adapter: at %d (want %d), %v; payload differs: %v",
			at, wantAt, err, !bytes.Equal(got[min(len(got), 6):], want))
	}
}
