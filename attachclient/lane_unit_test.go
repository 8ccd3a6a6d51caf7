package attachclient

import (
	"testing"
)

func TestInputSetDedupsWithinItsBound(t *testing.T) {
	var s inputSet
	k := func(i int) inputKey { return inputKey{user: "u", pen: 1, input: uint64(i)} }
	if !s.add(k(0)) || s.add(k(0)) {
		t.Fatal("a repeat was not caught")
	}
	if !s.add(inputKey{user: "u", pen: 2, input: 0}) || !s.add(inputKey{user: "v", pen: 1, input: 0}) {
		t.Fatal("another pen generation or user is another keystroke")
	}
	for i := 1; i < recentInputs; i++ {
		s.add(k(i))
	}
	if s.add(k(recentInputs - 1)) {
		t.Fatal("a recent key was forgotten")
	}
	if !s.add(k(0)) || len(s.seen) != recentInputs {
		t.Fatalf("the oldest key was kept past the bound (%d kept)", len(s.seen))
	}
}

// An input the leg could not hand to the session is forgotten, so its
// replay is typed; forgetting it leaves the bound as it was.
func TestInputSetRemove(t *testing.T) {
	var s inputSet
	k := func(i int) inputKey { return inputKey{user: "u", pen: 1, input: uint64(i)} }
	s.add(k(0))
	s.remove(k(0))
	if !s.add(k(0)) {
		t.Fatal("a removed key still counts as seen")
	}
	for i := 1; i < recentInputs-1; i++ {
		s.add(k(i))
	}
	s.add(k(recentInputs)) // evicts the slot the removal emptied
	if s.add(k(0)) {
		t.Fatal("the key added again was forgotten with the emptied slot")
	}
	if len(s.seen) > recentInputs {
		t.Fatalf("%d keys kept past the bound of %d", len(s.seen), recentInputs)
	}
}

func TestLaneURL(t *testing.T) {
	for in, want := range map[string]string{
		"ws://h:1/v1/rooms/r":     "http://h:1/v1/rooms/r/host/sse",
		"wss://h/v1/rooms/r/?x=1": "https://h/v1/rooms/r/host/sse",
	} {
		got, err := laneURL(in, "host/sse")
		if err != nil || got != want {
			t.Fatalf("laneURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
