package relay

import (
	"sync"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
)

// entryOverhead is what a buffered frame costs against the ring's byte
// budget on top of its wire bytes: its slot in the array and the
// allocation's rounding, so tiny frames cannot make the ring's memory run
// far past its budget.
const entryOverhead = 96

// minSlots is the smallest the ring's array shrinks to.
const minSlots = 16

// entry is one frame of a room's stream, already sanitized and encoded:
// every viewer writes the same wire bytes, never a copy of them.
type entry struct {
	seq   uint64
	typ   attachwire.FrameType
	wire  []byte
	atSeq uint64 // for a Snapshot: the seq it shows
	end   int64  // cumulative cost of the stream up to and including this frame
}

func (e *entry) cost() int64 { return int64(len(e.wire)) + entryOverhead }

// ring holds the newest frames of one room generation, contiguous by seq and
// bounded in bytes, and wakes waiting viewers on every change. Viewers are
// cursors into it: publishing costs one close of a channel however many
// viewers wait, and a stalled viewer costs the ring nothing.
//
// Every method takes ring.mu itself; the room calls them with the room's
// lock held (room.mu, then ring.mu), viewers without it.
type ring struct {
	limit int64

	mu       sync.Mutex
	gen      uint64  // bumped when the stream restarts (new epoch): cursors from before are void
	epoch    uint64  // the generation's epoch
	hasEpoch bool    // a generation has started
	entries  []entry // circular; len is the capacity
	start    int     // index of the oldest entry
	n        int
	bytes    int64  // cost of the buffered entries
	total    int64  // cost of every entry ever appended in this generation
	tail     uint64 // seq of the oldest buffered entry (n > 0)
	head     uint64 // seq of the newest entry ever appended, 0 before the first
	exitSeq  uint64 // seq of the Exit frame once appended
	// exit is the Exit frame's wire bytes, kept apart from the entries so
	// a viewer served the final screen can be given the session's status
	// whatever the ring holds (a mirror's may hold nothing else).
	exit  []byte
	final []byte // the post-Exit snapshot's wire bytes, once cached
	// finalAt is final's atSeq: the Exit's seq, also on a mirror that
	// never got the Exit frame (a message lost on the way).
	finalAt uint64
	// finalBefore is the same screen as a snapshot at atSeq exitSeq-1: the
	// Exit frame changes nothing on the screen, so it shows that seq too,
	// and the Exit frame can follow it as its tail (seq atSeq+1).
	finalBefore []byte
	// hostLostAt is when the room's host leg was lost without Exit; zero
	// while a host is bound (or the stream ended). Viewers read it here to
	// serve host-less resumes without the room's lock.
	hostLostAt time.Time
	wake       chan struct{}
	waiting    bool
}

func newRing(limit int64) *ring {
	return &ring{limit: limit, entries: make([]entry, minSlots), wake: make(chan struct{})}
}

// reset empties the ring for a new generation (a new epoch): every cursor
// from before is void.
func (r *ring) reset(epoch uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.gen++
	r.epoch, r.hasEpoch = epoch, true
	r.clearLocked()
	r.head, r.exitSeq, r.exit, r.final, r.finalBefore, r.finalAt = 0, 0, nil, nil, nil, 0
	r.wakeLocked()
}

// truncate drops every buffered frame because the stream jumps past a gap:
// no resume may span it. The generation stays; cursors before the gap fall
// off the tail.
func (r *ring) truncate() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clearLocked()
	r.wakeLocked()
}

func (r *ring) clearLocked() {
	if len(r.entries) > minSlots {
		r.entries = make([]entry, minSlots)
	} else {
		clear(r.entries)
	}
	r.start, r.n, r.bytes = 0, 0, 0
}

// headSeq returns the newest seq appended in this generation (0 if none).
func (r *ring) headSeq() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.head
}

// append adds a frame whose seq is head+1, or any seq when the ring is
// empty, evicts the oldest frames past the budget (always keeping the new
// one), and wakes the waiters.
func (r *ring) append(seq uint64, typ attachwire.FrameType, atSeq uint64, wire []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == len(r.entries) {
		r.resize(2 * len(r.entries))
	}
	e := entry{seq: seq, typ: typ, wire: wire, atSeq: atSeq}
	r.total += e.cost()
	e.end = r.total
	r.entries[(r.start+r.n)%len(r.entries)] = e
	r.n++
	r.bytes += e.cost()
	r.head = seq
	if r.n == 1 {
		r.tail = seq
	}
	for r.bytes > r.limit && r.n > 1 {
		r.bytes -= r.entries[r.start].cost()
		r.entries[r.start] = entry{}
		r.start = (r.start + 1) % len(r.entries)
		r.n--
		r.tail++
	}
	if len(r.entries) > minSlots && r.n < len(r.entries)/4 {
		r.resize(len(r.entries) / 2)
	}
	if typ == attachwire.TypeExit {
		r.exitSeq, r.exit = seq, wire
	}
	r.wakeLocked()
}

// setFinal caches the post-Exit snapshot, and the same screen at the seq
// before Exit, and wakes the waiters.
func (r *ring) setFinal(wire []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.final = wire
	r.finalBefore, r.finalAt = snapshotBefore(wire)
	r.wakeLocked()
}

// exitWire returns the Exit frame's wire bytes, nil before Exit.
func (r *ring) exitWire() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.exit
}

// snapshotBefore re-encodes a post-Exit snapshot frame (atSeq = the Exit's
// seq) at atSeq-1, and returns that atSeq; before is nil when it does not
// decode or its atSeq is 0.
func snapshotBefore(wire []byte) (before []byte, atSeq uint64) {
	f, err := attachwire.DecodeFrame(wire)
	if err != nil {
		return nil, 0
	}
	s, err := attachwire.DecodeSnapshot(f.Payload)
	if err != nil || s.AtSeq == 0 {
		return nil, 0
	}
	atSeq = s.AtSeq
	s.AtSeq--
	p, err := attachwire.AppendSnapshot(nil, s)
	if err != nil {
		return nil, atSeq
	}
	b, err := attachwire.Frame{Type: attachwire.TypeSnapshot, Payload: p}.MarshalBinary()
	if err != nil {
		return nil, atSeq
	}
	return b, atSeq
}

func (r *ring) resize(size int) {
	entries := make([]entry, size)
	for i := range r.n {
		entries[i] = r.entries[(r.start+i)%len(r.entries)]
	}
	r.entries, r.start = entries, 0
}

func (r *ring) wakeLocked() {
	if r.waiting {
		close(r.wake)
		r.wake = make(chan struct{})
		r.waiting = false
	}
}

// waitChanLocked returns the channel the next change closes.
func (r *ring) waitChanLocked() <-chan struct{} {
	r.waiting = true
	return r.wake
}

// atLocked returns the buffered entry with the given seq.
func (r *ring) atLocked(seq uint64) (*entry, bool) {
	if r.n == 0 || seq < r.tail || seq > r.head {
		return nil, false
	}
	return &r.entries[(r.start+int(seq-r.tail))%len(r.entries)], true
}

// lagLocked returns the cost of the frames from seq to the head: what a
// viewer whose next frame is seq still has to take.
func (r *ring) lagLocked(seq uint64) int64 {
	e, ok := r.atLocked(seq)
	if !ok {
		return 0
	}
	return r.total - (e.end - e.cost())
}

// hitLocked reports whether a viewer that has applied `after` can go on
// from after+1 with nothing missing: after is buffered or just before the
// tail, and not ahead of the head.
func (r *ring) hitLocked(after uint64) bool {
	return after > 0 && r.n > 0 && after+1 >= r.tail && after <= r.head
}

// newestSnapshotLocked returns the newest buffered Snapshot frame whose
// tail (itself to the head) costs at most budget, or nil.
func (r *ring) newestSnapshotLocked(budget int64) *entry {
	for i := r.n - 1; i >= 0; i-- {
		e := &r.entries[(r.start+i)%len(r.entries)]
		if r.total-(e.end-e.cost()) > budget {
			return nil
		}
		if e.typ == attachwire.TypeSnapshot {
			return e
		}
	}
	return nil
}

// setHostLost records when the host was lost (zero: a host is bound).
func (r *ring) setHostLost(t time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hostLostAt = t
	r.wakeLocked()
}
