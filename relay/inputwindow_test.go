package relay

import (
	"testing"
	"time"
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
