package ptyhost

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ptyhost/ptyhost/attachwire"
)

// frameOverhead is what a buffered frame costs against RingBytes on top of
// its payload: its slot in the ring's array (a 48-byte Frame, with room for
// the array's growth slack) and the payload's allocation rounding, so that
// the ring's memory stays within RingBytes however small its frames are.
const frameOverhead = 128

// minSlots is the smallest the ring's array shrinks to.
const minSlots = 16

// ring holds the most recent frames of a session, bounded by bytes, and
// wakes waiting subscriptions when a frame is appended.
//
// Lock order: the session lock, then ring.mu. Subscriptions take only
// ring.mu, so a consumer never waits for the terminal feed and the
// publisher never waits for a consumer.
type ring struct {
	limit int

	mu      sync.Mutex
	frames  []attachwire.Frame // circular; len is the capacity
	start   int                // index of the oldest frame
	n       int                // frames buffered
	bytes   int                // cost of the buffered frames
	tail    uint64             // seq of the oldest buffered frame (n > 0)
	head    uint64             // seq of the newest frame, 0 before the first
	exitSeq uint64             // seq of the Exit frame once appended
	wake    chan struct{}      // closed on append when waiting is set
	waiting bool

	// total is the cost of every frame ever appended, and cum holds, for
	// each buffered frame (parallel to frames), total just after it was
	// appended: the lag of a held subscription in O(1).
	total uint64
	cum   []uint64
	// holds are the held subscriptions (hold.go); progress is closed when
	// one of them advances while the read loop waits for it.
	holds    []*Subscription
	holding  atomic.Int32 // len(holds), read without mu on every PTY read
	progress chan struct{}
}

func newRing(limit int) *ring {
	return &ring{limit: limit, frames: make([]attachwire.Frame, minSlots), cum: make([]uint64, minSlots), wake: make(chan struct{})}
}

func frameCost(f attachwire.Frame) int { return len(f.Payload) + frameOverhead }

// append adds f, whose seq is head+1, evicts the oldest frames until the
// ring is within its limit (always keeping f), and wakes the waiters: O(1)
// amortized whatever the number of subscriptions.
func (r *ring) append(f attachwire.Frame) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == len(r.frames) {
		r.resize(2 * len(r.frames))
	}
	slot := (r.start + r.n) % len(r.frames)
	r.frames[slot] = f
	r.n++
	r.bytes += frameCost(f)
	r.total += uint64(frameCost(f))
	r.cum[slot] = r.total
	r.head = f.Seq
	if r.n == 1 {
		r.tail = f.Seq
	}
	for r.bytes > r.limit && r.n > 1 {
		r.bytes -= frameCost(r.frames[r.start])
		r.frames[r.start] = attachwire.Frame{}
		r.start = (r.start + 1) % len(r.frames)
		r.n--
		r.tail++
	}
	// Release the array's slack once few frames are left (after a burst
	// of tiny frames gave way to large ones), so it never holds more than
	// four slots a frame.
	if len(r.frames) > minSlots && r.n < len(r.frames)/4 {
		r.resize(len(r.frames) / 2)
	}
	if f.Type == attachwire.TypeExit {
		r.exitSeq = f.Seq
	}
	if r.waiting {
		close(r.wake)
		r.wake = make(chan struct{})
		r.waiting = false
	}
}

// resize moves the buffered frames into an array of size slots (>= r.n).
func (r *ring) resize(size int) {
	frames := make([]attachwire.Frame, size)
	cum := make([]uint64, size)
	for i := range r.n {
		frames[i] = r.frames[(r.start+i)%len(r.frames)]
		cum[i] = r.cum[(r.start+i)%len(r.frames)]
	}
	r.frames, r.cum, r.start = frames, cum, 0
}

// lagLocked returns the cost of the buffered frames from seq next on: how
// far a subscription whose next frame is next lags. r.mu must be held.
func (r *ring) lagLocked(next uint64) uint64 {
	if r.n == 0 || next > r.head || next < r.tail {
		return 0 // caught up, or already missed: holding helps no more
	}
	slot := (r.start + int(next-r.tail)) % len(r.frames)
	return r.total - (r.cum[slot] - uint64(frameCost(r.frames[slot])))
}

// laggingLocked returns a held subscription that lags beyond its bound,
// or beyond half of it when resuming is true (the read loop already
// waits, and waits until the subscription is well within its bound), or
// nil. r.mu must be held.
func (r *ring) laggingLocked(resuming bool) *Subscription {
	for _, sub := range r.holds {
		bound := sub.hold.lag
		if resuming {
			bound /= 2
		}
		if r.lagLocked(sub.next) > bound {
			return sub
		}
	}
	return nil
}

// progressChanLocked returns the channel a held subscription's progress
// closes. r.mu must be held.
func (r *ring) progressChanLocked() <-chan struct{} {
	if r.progress == nil {
		r.progress = make(chan struct{})
	}
	return r.progress
}

// progressLocked wakes a read loop waiting for a held subscription.
// r.mu must be held.
func (r *ring) progressLocked() {
	if r.progress != nil {
		close(r.progress)
		r.progress = nil
	}
}

// releaseLocked makes sub stop holding, and wakes the read loop. r.mu
// must be held.
func (r *ring) releaseLocked(sub *Subscription) {
	if i := slices.Index(r.holds, sub); i >= 0 {
		r.holds = slices.Delete(r.holds, i, i+1)
		r.holding.Store(int32(len(r.holds)))
	}
	sub.hold.released = true
	r.progressLocked()
}

// cursorState is where a subscription's next seq stands in the ring.
type cursorState int

const (
	cursorReady  cursorState = iota // the frame is buffered
	cursorWait                      // not published yet
	cursorMissed                    // evicted
	cursorAtEnd                     // past the Exit frame
)

// getLocked returns the frame with the given seq, or why it cannot.
// r.mu must be held.
func (r *ring) getLocked(seq uint64) (attachwire.Frame, cursorState) {
	switch {
	case r.exitSeq != 0 && seq > r.exitSeq:
		return attachwire.Frame{}, cursorAtEnd
	case seq > r.head:
		return attachwire.Frame{}, cursorWait
	case r.n == 0 || seq < r.tail:
		return attachwire.Frame{}, cursorMissed
	}
	return r.frames[(r.start+int(seq-r.tail))%len(r.frames)], cursorReady
}

// waitChanLocked returns the channel the next append closes. r.mu must be
// held.
func (r *ring) waitChanLocked() <-chan struct{} {
	r.waiting = true
	return r.wake
}

// startLocked returns the first seq a subscription resuming after `after`
// reads, or false when after is outside the ring: older than its tail or
// ahead of its head. after = 0 means "everything buffered". r.mu must be
// held.
func (r *ring) startLocked(after uint64) (uint64, bool) {
	switch {
	case after == 0 && r.n > 0:
		return r.tail, true
	case after > r.head:
		return 0, false
	case after+1 < r.tail:
		return 0, false
	}
	return after + 1, true
}

// stats returns the buffered frame count, their cost and the seq range.
func (r *ring) stats() (n, bytes int, tail, head uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n, r.bytes, r.tail, r.head
}
