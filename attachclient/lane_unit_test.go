package attachclient

import (
	"encoding/base64"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func TestSSEReaderEvents(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString
	stream := ": heartbeat\n\n" +
		"event: frame\ndata: " + b64([]byte("one")) + "\n\n" +
		"event: frame\r\ndata:" + b64([]byte("two")) + "\r\n\r\n" +
		"id: 7\nretry: 10\n\n" + // no data: nothing dispatched
		"data: " + b64([]byte("three")) + "\n\n"
	r := newSSEReader(strings.NewReader(stream), 1<<10)
	for _, want := range []string{"one", "two", "three"} {
		got, err := r.next()
		if err != nil || string(got) != want {
			t.Fatalf("next = %q, %v; want %q", got, err, want)
		}
	}
	if _, err := r.next(); !errors.Is(err, io.EOF) {
		t.Fatalf("at the end: %v, want EOF", err)
	}
}

func TestSSEReaderRefusals(t *testing.T) {
	for name, c := range map[string]struct {
		stream string
		want   error
	}{
		"not base64":       {"data: !!!\n\n", errSSE},
		"line too long":    {"data: " + strings.Repeat("A", 200) + "\n\n", errSSE},
		"event too long":   {strings.Repeat("data: AAAA\n", 40) + "\n", errSSE},
		"cut mid-line":     {"data: AAAA", io.ErrUnexpectedEOF},
		"cut before blank": {"data: AAAA\n", io.EOF},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := newSSEReader(strings.NewReader(c.stream), 100).next()
			if !errors.Is(err, c.want) {
				t.Fatalf("next = %v, want %v", err, c.want)
			}
		})
	}
}

// FuzzSSEReader: any stream ends in events or an error, never a panic,
// and no event is longer than the limit allows.
func FuzzSSEReader(f *testing.F) {
	for _, s := range []string{
		"data: b25l\n\n",
		": heartbeat\n\nevent: frame\r\ndata:dHdv\r\n\r\n",
		"data: AA==\ndata: AA==\n\n",
		"data: !!\n\n",
		"data",
		"\n\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r := newSSEReader(strings.NewReader(string(b)), 64)
		for range 1000 {
			ev, err := r.next()
			if err != nil {
				return
			}
			if len(ev) > 64 {
				t.Fatalf("event of %d bytes past a 64-byte limit", len(ev))
			}
		}
	})
}

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

func TestRetryAfterForms(t *testing.T) {
	if d := retryAfter("2"); d != 2*time.Second {
		t.Fatalf("2 = %v", d)
	}
	if d := retryAfter(""); d != defaultRetryAfter {
		t.Fatalf("absent = %v", d)
	}
	if d := retryAfter("Mon, 02 Jan 2006 15:04:05 GMT"); d != 0 {
		t.Fatalf("a past date = %v", d)
	}
	future := time.Now().Add(time.Hour).UTC().Format(http1123)
	if d := retryAfter(future); d < 58*time.Minute || d > time.Hour {
		t.Fatalf("a date an hour ahead = %v", d)
	}
}

const http1123 = "Mon, 02 Jan 2006 15:04:05 GMT"

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
