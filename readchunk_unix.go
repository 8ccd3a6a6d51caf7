//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package ptyhost

import (
	"io"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// chunkReader reads the master through its raw connection, under Go's
// poller, so that the master's read deadline and Close interrupt a wait.
// (Linux waits in ppoll instead: readchunk_linux.go.)
type chunkReader struct {
	f  *os.File
	rc syscall.RawConn // nil if the file has none: plain reads then
}

// newChunkReader takes the master's raw connection once; it cannot fail.
func newChunkReader(master *os.File) (*chunkReader, error) {
	rc, err := master.SyscallConn()
	if err != nil {
		rc = nil
	}
	return &chunkReader{f: master, rc: rc}, nil
}

// read reads what the master has, waiting under Go's poller only while
// there is nothing. It keeps reading until the master is empty or buf is
// full: the tty layer hands output over a few KiB at a time, and when the
// host has fallen behind, taking all that is queued in one frame spares a
// terminal feed, a publish and a subscriber wake-up per piece. It never
// waits for more once it has something, so it adds no latency.
func (r *chunkReader) read(buf []byte) (int, error) {
	if r.rc == nil {
		return r.f.Read(buf)
	}
	n := 0
	var rerr error
	err := r.rc.Read(func(fd uintptr) bool {
		for n < len(buf) {
			m, e := unix.Read(int(fd), buf[n:])
			switch {
			case m > 0:
				n += m
			case e == unix.EINTR:
			case e == unix.EAGAIN:
				return n > 0 // wait under the poller only while empty
			case e == nil:
				rerr = io.EOF
				return true
			default:
				rerr = e
				return true
			}
		}
		return true
	})
	if n > 0 {
		return n, nil // an error after data repeats on the next read
	}
	if err != nil {
		return 0, err
	}
	return 0, rerr
}

// setDeadline sets the master's read deadline, which the poller keeps.
func (r *chunkReader) setDeadline(t time.Time) error { return r.f.SetReadDeadline(t) }

// interrupt does nothing here: closing the master ends a wait.
func (r *chunkReader) interrupt() {}

// close does nothing here: the reader holds no fd of its own.
func (r *chunkReader) close() {}
