//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package ptyhost

import (
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// chunkReader reads the master through its raw connection, taken once.
type chunkReader struct {
	f  *os.File
	rc syscall.RawConn // nil if the file has none: plain reads then
}

func newChunkReader(master *os.File) *chunkReader {
	rc, err := master.SyscallConn()
	if err != nil {
		rc = nil
	}
	return &chunkReader{f: master, rc: rc}
}

// read reads what the master has, waiting under Go's poller (so that
// read deadlines and Close interrupt it) only while there is nothing. It
// keeps reading until the master is empty or buf is full: the tty layer
// hands output over a few KiB at a time, and when the host has fallen
// behind, taking all that is queued in one frame spares a terminal feed,
// a publish and a subscriber wake-up per piece. It never waits for more
// once it has something, so it adds no latency.
func (r *chunkReader) read(buf []byte) (int, error) {
	if r.rc == nil {
		return r.f.Read(buf)
	}
	return r.fill(buf, true)
}

// readMore reads what the master has into buf without waiting at all; it
// returns 0 when there is nothing. Errors are left for the next read,
// which meets them again.
func (r *chunkReader) readMore(buf []byte) int {
	if r.rc == nil {
		return 0
	}
	n, _ := r.fill(buf, false)
	return n
}

// fill reads until the master is empty or buf is full, waiting under the
// poller while there is nothing when wait is set.
func (r *chunkReader) fill(buf []byte, wait bool) (int, error) {
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
				return n > 0 || !wait // wait under the poller only while empty
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
