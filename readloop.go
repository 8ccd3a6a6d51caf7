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

// readLoop is the only reader of the master. Each chunk is fed to the
// terminal and published as one Output frame under the session lock. It
// returns at end of file (every slave fd closed: EIO on Linux), at the
// drain's read deadline once the child has exited, or when the master is
// closed.
func (s *Session) readLoop() {
	defer s.wg.Done()
	defer close(s.readDone)
	buf := make([]byte, MaxOutputFrame)
	for {
		n, err := readChunk(s.master, buf)
		if n > 0 {
			s.feed(bytes.Clone(buf[:n]))
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

// feed runs one chunk through the terminal and publishes it.
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
