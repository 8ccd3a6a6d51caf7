package relay

import (
	"slices"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
)

// The window's bounds are hard: however many frames go through it, it
// holds at most maxCount entries and maxBytes bytes of those already
// written, none older than maxAge, and never drops one not yet written.
func TestInputWindowBounds(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	cases := []struct {
		name      string
		w         inputWindow
		size      int           // bytes per frame
		every     time.Duration // between frames
		unwritten int           // frames kept back from the writer at the end
		wantLen   int
	}{
		{"count", inputWindow{maxCount: 4, maxBytes: 1 << 20, maxAge: time.Hour}, 10, time.Millisecond, 0, 4},
		{"bytes", inputWindow{maxCount: 100, maxBytes: 35, maxAge: time.Hour}, 10, time.Millisecond, 0, 3},
		{"age", inputWindow{maxCount: 100, maxBytes: 1 << 20, maxAge: 50 * time.Millisecond}, 10, 10 * time.Millisecond, 0, 6},
		{"a frame over the byte bound", inputWindow{maxCount: 100, maxBytes: 5, maxAge: time.Hour}, 10, time.Millisecond, 0, 0},
		{"unwritten frames stay past the bounds", inputWindow{maxCount: 2, maxBytes: 1 << 20, maxAge: time.Hour}, 10, time.Millisecond, 5, 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := c.w
			now := t0
			const frames = 10000
			for i := range frames {
				now = now.Add(c.every)
				id := w.add(make([]byte, c.size), now)
				keep := w.next // every earlier frame was written
				if i >= frames-c.unwritten {
					keep = w.next - uint64(i-(frames-c.unwritten)) - 1
				}
				w.evict(now, keep)
				if i < frames-c.unwritten && (len(w.entries) > w.maxCount || w.bytes > w.maxBytes) {
					t.Fatalf("frame %d: %d entries, %d bytes past the bounds", id, len(w.entries), w.bytes)
				}
			}
			if len(w.entries) != c.wantLen {
				t.Fatalf("%d entries left, want %d", len(w.entries), c.wantLen)
			}
			var sum int64
			for i, e := range w.entries {
				sum += int64(len(e.wire))
				if e.id != w.next-uint64(len(w.entries)-i) {
					t.Fatalf("entry %d has id %d: not the newest, in order", i, e.id)
				}
			}
			if sum != w.bytes {
				t.Fatalf("bytes %d, entries hold %d", w.bytes, sum)
			}
			if got := w.from(w.next - 1); len(w.entries) > 0 && w.entries[got].id != w.next-1 {
				t.Fatalf("from(next-1) found id %d", w.entries[got].id)
			}
		})
	}
}

// Only the bound host leg's writer takes Input from the room's queue: a
// writer whose leg was superseded takes nothing, so it cannot record a
// frame after one the new leg took (reordering the keystrokes); the new
// leg gets the window's replay first, then the queue, in order.
func TestOnlyTheBoundHostTakesInput(t *testing.T) {
	rl := fuzzRelay(t)
	rm := newRoom(rl, roomKey{org: "o", session: "s"})
	a := newLeg(rl, nil, attachwire.RoleHost, "host", "jti-a", rl.log)
	defer a.cancel()
	b := newLeg(rl, nil, attachwire.RoleHost, "host", "jti-b", rl.log)
	defer b.cancel()
	b.dedupAll = true
	if err := rm.bindHost(a, 1); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"k1", "k2", "k3"} {
		rm.inputs <- []byte(k)
	}
	if !rm.takeInput(a) {
		t.Fatal("the bound leg took nothing")
	}
	if got, _ := rm.nextInput(a); string(got) != "k1" {
		t.Fatalf("the bound leg's next frame is %q, want k1", got)
	}
	rm.hostLeft(a)
	if err := rm.bindHost(b, 1); err != nil {
		t.Fatal(err)
	}
	if rm.takeInput(a) {
		t.Fatal("a superseded leg took a frame from the queue")
	}
	var got []string
	for range 4 {
		rm.takeInput(b)
		for {
			f, ok := rm.nextInput(b)
			if !ok {
				break
			}
			got = append(got, string(f))
		}
	}
	if want := []string{"k1", "k2", "k3"}; !slices.Equal(got, want) {
		t.Fatalf("the new leg wrote %q, want %q", got, want)
	}
}
