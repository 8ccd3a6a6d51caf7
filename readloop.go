package ptyhost

import (
	"errors"
	"io"
	"os"
	"syscall"

	"github.com/ptyhost/ptyhost/attachwire"
)

// MaxOutputFrame is the largest Output payload the host publishes: each read
// of the master is at most this long and becomes one frame.
const MaxOutputFrame = 32 << 10

// readLoop is the only reader of the master, and it feeds what it reads
// to the terminal itself: each chunk is fed and published as one Output
// frame under the session lock, then the loop reads again. It returns at
// end of file (every slave fd closed: EIO on Linux), at the drain's read
// deadline once the child has exited, or when the master is closed.
//
// Reading and feeding take turns on one goroutine, as in a bare reader's
// loop: no hand-off, so a keystroke's echo waits for nothing and a chunk
// costs no goroutine wake-up. The child does not wait for the feed: while
// a chunk is fed, its output gathers in the tty's buffers, and the next
// read takes everything gathered meanwhile (up to MaxOutputFrame) as one
// chunk. Under heavy output chunks thus grow large by themselves, and a
// large chunk costs one frame and one subscriber wake-up instead of one
// per few KiB (docs/performance.md, "A reader that waits like the bare
// one").
//
// Each chunk is read straight into ring storage, the free end of a slab
// (payloadslab.go), and published as it lies there: no chunk is copied,
// and under heavy output a slab of 2 MiB takes one huge page's fault
// where a buffer of fresh 4 KiB pages would fault once per 4 KiB read.
func (s *Session) readLoop() {
	defer s.wg.Done()
	defer close(s.readDone)
	defer s.reader.close()
	store := newSlabs(s.spec.RingBytes)
	for {
		if s.awaitHolders() {
			// Waiting for a held subscription is not quiet on the PTY
			// either: the drain's deadline counts from now.
			s.extendDrain()
		}
		n, err := s.reader.read(store.buf())
		if n > 0 {
			s.feed(store.take(n))
			// The deadline counts from here: time spent feeding, or
			// waiting for the session lock, is not quiet time on the PTY.
			s.extendDrain()
		}
		if err != nil {
			switch {
			case errors.Is(err, os.ErrDeadlineExceeded):
				s.log.Info("ptyhost: pty still open after the child exited; ending the drain")
			case !isEndOfOutput(err):
				s.log.Warn("ptyhost: read pty master", "err", err)
			}
			return
		}
	}
}

// feed runs one chunk through the terminal and publishes it, under the
// session lock, so a snapshot never sees the terminal ahead of the
// frames.
//
// It does not give up the CPU part-way through a large chunk. A
// sched_yield every few KiB helps only a read loop that reads on beside
// the feed, where the child and the kernel's tty worker wait behind both
// for a CPU; this read loop does not read while a chunk is fed and then
// takes what came meanwhile in one chunk, so the other core is free while
// the feed computes, and on a loaded machine each yield would be a
// context switch that hands the CPU to other processes
// (docs/performance.md, "A reader that waits like the bare one").
func (s *Session) feed(p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.term.Write(p)
	if s.marks == nil {
		s.publishLocked(attachwire.TypeOutput, p)
		return
	}
	// Each mark follows the Output that carried its sequence, so a viewer
	// that stops at a mark has the screen the shell had made by then.
	start := 0
	for _, m := range s.marks.scan(p) {
		if m.end > start {
			s.publishLocked(attachwire.TypeOutput, p[start:m.end])
			start = m.end
		}
		s.publishLocked(attachwire.TypeMarker, markerPayload(m.label))
	}
	if start < len(p) {
		s.publishLocked(attachwire.TypeOutput, p[start:])
	}
}

// isEndOfOutput reports the errors that normally end the read loop.
func isEndOfOutput(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.EIO) ||
		errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, os.ErrClosed)
}
