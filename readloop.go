package ptyhost

import (
	"bytes"
	"errors"
	"io"
	"os"
	"syscall"

	"github.com/ptyhost/ptyhost/attachwire"
)

// MaxOutputFrame is the largest Output payload the host publishes: each read
// of the master is at most this long and becomes one frame.
const MaxOutputFrame = 32 << 10

// readLoop is the only reader of the master. It hands each chunk, in
// order, to feedLoop, which feeds the terminal and publishes it as one
// Output frame under the session lock: reading runs beside the feed, so
// the child's writes and the emulator's work overlap on two cores instead
// of taking turns. It returns at end of file (every slave fd closed: EIO
// on Linux), at the drain's read deadline once the child has exited, or
// when the master is closed, after feedLoop has published every chunk.
//
// A chunk goes to the feed at once when the feed is idle, so a keystroke's
// echo waits for nothing. When the feed is still busy with the previous
// chunk, the loop waits for it to finish and then takes everything the
// master has gathered meanwhile into the same chunk (up to
// MaxOutputFrame): under heavy output that makes chunks large, and a large
// chunk costs one hand-off, one frame, one subscriber wake-up and one
// empty read instead of one per few KiB. The wait is at most one chunk's
// feed (about 150 µs for 32 KiB with the engine), less than the tty's
// buffering lets the child run ahead, so the child does not wait for it.
//
// A chunk that fills its buffer becomes the frame's payload as it is, and
// the next read gets a fresh buffer: under heavy output, where nearly
// every chunk is full, the bytes are not copied again. A shorter chunk is
// copied into an allocation of its size and the buffer is reused, so the
// ring, which counts payload lengths, never keeps a buffer's slack.
func (s *Session) readLoop() {
	defer s.wg.Done()
	defer close(s.readDone)
	chunks := make(chan []byte)
	idle := make(chan struct{}, 1)
	fed := make(chan struct{})
	go s.feedLoop(chunks, idle, fed)
	defer func() { <-fed }()
	defer close(chunks)
	r := newChunkReader(s.master)
	var buf []byte
	handed := false // a chunk went to the feed, which has not signalled idle since
	for {
		if buf == nil {
			buf = make([]byte, MaxOutputFrame)
		}
		n, err := r.read(buf)
		if n > 0 {
			if handed {
				select {
				case <-idle:
				default:
					<-idle // the feed is busy: wait, then take what came meanwhile
					if err == nil {
						n += r.readMore(buf[n:])
					}
				}
			}
			chunks <- ownChunk(&buf, n)
			handed = true
			// The deadline counts from here: time spent waiting for the
			// feed is not quiet time on the PTY.
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

// ownChunk returns the n bytes read into *buf as a slice of their own:
// *buf itself when they fill it (and *buf is then set to nil, for a fresh
// one), else a copy, and *buf is reused.
func ownChunk(buf *[]byte, n int) []byte {
	if n < len(*buf) {
		return bytes.Clone((*buf)[:n])
	}
	p := *buf
	*buf = nil
	return p
}

// feedLoop publishes the chunks readLoop reads, in order, signals idle
// after each, and closes fed when chunks is closed and drained. readLoop
// owns and joins it.
func (s *Session) feedLoop(chunks <-chan []byte, idle chan<- struct{}, fed chan<- struct{}) {
	defer close(fed)
	for p := range chunks {
		s.feed(p)
		idle <- struct{}{} // never blocks: readLoop takes each signal before the next chunk
	}
}

// feed runs one chunk through the terminal and publishes it, under the
// session lock, so a snapshot never sees the terminal ahead of the
// frames.
//
// It does not give up the CPU part-way through a large chunk any more.
// A sched_yield every few KiB once helped, when the read loop read on
// beside the feed and the child and the kernel's tty worker had to wait
// behind both for a CPU; since the read loop waits for a busy feed and
// then takes what came meanwhile in one chunk, the other core is free
// while the feed computes, and on a loaded machine each yield was a
// context switch that handed the CPU to other processes
// (docs/performance.md, "Where the CPU goes").
func (s *Session) feed(p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.term.Write(p)
	s.publishLocked(attachwire.TypeOutput, p)
}

// isEndOfOutput reports the errors that normally end the read loop.
func isEndOfOutput(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.EIO) ||
		errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, os.ErrClosed)
}
