//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package ptyhost

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// readChunk reads what the master has, waiting under Go's poller (so that
// read deadlines and Close interrupt it) only while there is nothing. It
// keeps reading until the master is empty or buf is full: the tty layer
// hands output over a few KiB at a time, and when the host has fallen
// behind, taking all that is queued in one frame spares a terminal feed,
// a publish and a subscriber wake-up per piece. It never waits for more
// once it has something, so it adds no latency.
func readChunk(master *os.File, buf []byte) (int, error) {
	rc, err := master.SyscallConn()
	if err != nil {
		return master.Read(buf)
	}
	n := 0
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
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
