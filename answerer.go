package ptyhost

import (
	"bytes"
	"io"
	"sync"
	"sync/atomic"
)

// answerQueueLen bounds the answers waiting for the writer goroutine.
// Answers are short (tens of bytes); a child that queries faster than it
// reads its input loses the excess, which is counted.
const answerQueueLen = 256

// answerer carries the terminal's answers to the PTY master (docs/invariants.md, invariant 3):
// push never blocks, and one goroutine writes, outside the session lock.
type answerer struct {
	w       io.Writer
	queue   chan []byte
	quit    chan struct{}
	stopped chan struct{} // closed when run returns
	stop    sync.Once
	dropped atomic.Uint64
}

func newAnswerer(w io.Writer, n int) *answerer {
	return &answerer{w: w, queue: make(chan []byte, n), quit: make(chan struct{}), stopped: make(chan struct{})}
}

// push queues a copy of p, or drops it when the queue is full. It is the
// terminal's Answer callback.
func (a *answerer) push(p []byte) {
	select {
	case a.queue <- bytes.Clone(p):
	default:
		a.dropped.Add(1)
	}
}

// run writes queued answers until close. A write error (the master closed,
// the slave gone) is not fatal: the answers are discarded until close.
func (a *answerer) run(wg *sync.WaitGroup) {
	defer wg.Done()
	defer close(a.stopped)
	for {
		select {
		case p := <-a.queue:
			a.w.Write(p)
		case <-a.quit:
			return
		}
	}
}

// close ends run and waits for it to return. A write blocked on the master
// is released by closing the master first.
func (a *answerer) close() {
	a.stop.Do(func() { close(a.quit) })
	<-a.stopped
}
