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

// readQueue is how many chunks read from the master may wait for the
// terminal feed: enough to keep the master drained (so the child keeps
// writing) while the feed works on one chunk, and a bound on what is held
// outside the ring (readQueue * MaxOutputFrame bytes).
const readQueue = 4

// readLoop is the only reader of the master. It hands each chunk, in
// order, to feedLoop, which feeds the terminal and publishes it as one
// Output frame under the session lock: reading runs beside the feed, so
// the child's writes and the emulator's work overlap on two cores instead
// of taking turns. It returns at end of file (every slave fd closed: EIO
// on Linux), at the drain's read deadline once the child has exited, or
// when the master is closed, after feedLoop has published every chunk.
func (s *Session) readLoop() {
	defer s.wg.Done()
	defer close(s.readDone)
	chunks := make(chan []byte, readQueue)
	fed := make(chan struct{})
	go s.feedLoop(chunks, fed)
	defer func() { <-fed }()
	defer close(chunks)
	buf := make([]byte, MaxOutputFrame)
	r := newChunkReader(s.master)
	for {
		n, err := r.read(buf)
		if n > 0 {
			chunks <- bytes.Clone(buf[:n])
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

// feedLoop publishes the chunks readLoop reads, in order, and closes fed
// when chunks is closed and drained. readLoop owns and joins it.
func (s *Session) feedLoop(chunks <-chan []byte, fed chan<- struct{}) {
	defer close(fed)
	for p := range chunks {
		s.feed(p)
	}
}

// feedSlice is how much of a chunk the terminal takes before the feed
// yields the CPU: one tty buffer's worth, the amount a read of the master
// returns at most.
//
// Why yield: the read path is a relay between threads. Each read of the
// master makes the kernel's tty worker refill the master's 4 KiB buffer,
// which lets the child write more; every step waits for a CPU. The feed
// is the one thread that computes for long (a 32 KiB chunk takes the
// engine about 150 µs), and a kernel scheduler lets a woken thread wait
// behind it for part of a time slice. Yielding after each slice lets the
// waiting steps run at once: with the engine on a 2-core machine it moved
// the firehose from about 0.77 to about 0.9 of a bare reader, for one
// cheap system call per 4 KiB (docs/performance.md).
const feedSlice = 4 << 10

// feed runs one chunk through the terminal and publishes it. The lock
// covers the whole chunk, yields included, so a snapshot never sees the
// terminal ahead of the frames.
func (s *Session) feed(p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for rest := p; ; {
		n := min(len(rest), feedSlice)
		s.term.Write(rest[:n])
		if rest = rest[n:]; len(rest) == 0 {
			break
		}
		yieldCPU()
	}
	s.publishLocked(attachwire.TypeOutput, p)
}

// isEndOfOutput reports the errors that normally end the read loop.
func isEndOfOutput(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.EIO) ||
		errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, os.ErrClosed)
}
