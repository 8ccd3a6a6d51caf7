package relay

import "sync"

// recQueue is a recording's queue: a slice that grows only as far as the
// writer lags (a channel of QueueEvents would hold that much memory for
// every recorded room from its start), a wake for the writer, and the
// producer's close. Safe for one producer and one consumer.
type recQueue struct {
	mu     sync.Mutex
	items  []recEvent
	bytes  int64
	closed bool
	wake   chan struct{} // cap 1
}

func newRecQueue() *recQueue { return &recQueue{wake: make(chan struct{}, 1)} }

// push appends ev unless that would pass maxEvents or maxBytes; it reports
// whether ev was queued.
func (q *recQueue) push(ev recEvent, maxEvents int, maxBytes int64) bool {
	n := ev.size()
	q.mu.Lock()
	ok := !q.closed && len(q.items) < maxEvents && q.bytes+n <= maxBytes
	if ok {
		q.items = append(q.items, ev)
		q.bytes += n
	}
	q.mu.Unlock()
	if ok {
		q.signal()
	}
	return ok
}

// close ends the queue after what it holds, with ev (the end) last if
// given.
func (q *recQueue) close(end *recEvent) {
	q.mu.Lock()
	if !q.closed && end != nil {
		q.items = append(q.items, *end)
	}
	q.closed = true
	q.mu.Unlock()
	q.signal()
}

func (q *recQueue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// take returns what is queued (into buf, reused) and whether the queue is
// closed; the writer waits on wake when it returns nothing open.
func (q *recQueue) take(buf []recEvent) ([]recEvent, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	buf = append(buf[:0], q.items...)
	clear(q.items)
	q.items = q.items[:0]
	q.bytes = 0
	return buf, q.closed
}

// size is what an event counts against QueueBytes.
func (ev *recEvent) size() int64 { return int64(len(ev.data) + len(ev.text)) }
