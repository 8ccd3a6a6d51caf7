//go:build linux

package ptyhost

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// chunkReader reads the master on its own duplicate of the master's fd,
// waiting for output in ppoll(2) on the calling thread rather than under
// Go's poller, as a plain blocking reader waits in read(2). Under the
// poller every wait cost a read that failed with EAGAIN, a park of the
// goroutine and a wake-up through epoll by another thread; here a wait is
// one system call, and the goroutine stays on its thread
// (docs/performance.md, "A reader that waits like the bare one").
//
// What the poller gave is kept by hand: a read deadline (the drain's) is
// ppoll's timeout, and interrupt ends a wait at once through an eventfd
// that ppoll watches beside the master. The duplicate fd is the reader's
// own, so closing the master never waits for a read in progress and its
// number cannot be reused under one. The price is a thread: a goroutine
// in ppoll holds its OS thread, where one parked under the poller holds
// none, so every live session keeps one more (see Session).
//
// read is called from one goroutine only (the read loop, which calls close
// when it is done); setDeadline and interrupt are safe from any goroutine.
type chunkReader struct {
	fd    int       // the reader's duplicate of the master
	epoch time.Time // deadlines are kept as monotonic nanoseconds since epoch
	// deadline is the read deadline in nanoseconds after epoch, or 0 for
	// none. Once it has passed, read fails with os.ErrDeadlineExceeded
	// even if the master has output, as a read under the poller does.
	deadline atomic.Int64
	closing  atomic.Bool // set by interrupt: read returns os.ErrClosed
	empty    bool        // the last read found the master empty: wait first
	err      error       // an error met after data, returned by the next read
	fds      [2]unix.PollFd

	mu   sync.Mutex // orders notify with close, so the eventfd's number is never reused under a write
	wake int        // the eventfd ppoll watches; -1 once closed
}

// newChunkReader duplicates the master's fd and opens the eventfd that
// interrupts its waits.
func newChunkReader(master *os.File) (*chunkReader, error) {
	var fd int
	err := control(master, func(mfd int) error {
		var err error
		fd, err = unix.FcntlInt(uintptr(mfd), unix.F_DUPFD_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("dup pty master for reading: %w", err)
	}
	wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("eventfd for the pty reader: %w", err)
	}
	r := &chunkReader{fd: fd, wake: wake, epoch: time.Now(), empty: true}
	r.fds = [2]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}, {Fd: int32(wake), Events: unix.POLLIN}}
	return r, nil
}

// read reads what the master has into buf, waiting while there is
// nothing. It keeps reading until the master is empty or buf is full: the
// tty layer hands output over at most 4 KiB per read, and when the host
// has fallen behind, taking all that is queued in one frame spares a
// terminal feed, a publish and a subscriber wake-up per piece. It never
// waits for more once it has something, so it adds no latency.
func (r *chunkReader) read(buf []byte) (int, error) {
	if err := r.err; err != nil {
		return 0, err // sticky: EIO and EOF do not go away
	}
	for {
		if err := r.check(); err != nil {
			return 0, err
		}
		if !r.empty {
			if n := r.fill(buf); n > 0 {
				return n, nil // an error after data is kept for the next read
			}
			if r.err != nil {
				return 0, r.err
			}
		}
		if err := r.wait(); err != nil {
			return 0, err
		}
		r.empty = false
	}
}

// check returns the error a read meets now: closed, or past its deadline.
func (r *chunkReader) check() error {
	if r.closing.Load() {
		return os.ErrClosed
	}
	if d := r.deadline.Load(); d != 0 && int64(time.Since(r.epoch)) >= d {
		return os.ErrDeadlineExceeded
	}
	return nil
}

// fill reads until buf is full or the master is empty (setting empty),
// keeping an error for the next read. A read that finds nothing queued
// returns EAGAIN without waiting: the fd shares the master's non-blocking
// file description, which WriteInput and the answerer rely on.
func (r *chunkReader) fill(buf []byte) int {
	n := 0
	for n < len(buf) {
		m, err := unix.Read(r.fd, buf[n:])
		switch {
		case m > 0:
			n += m
		case err == unix.EINTR:
		case err == unix.EAGAIN:
			r.empty = true
			return n
		case err == nil:
			r.err = io.EOF
			return n
		default:
			r.err = err
			return n
		}
	}
	return n
}

// wait blocks in ppoll until the master is readable (or hung up), the
// deadline passes, or interrupt is called.
func (r *chunkReader) wait() error {
	for {
		if err := r.check(); err != nil {
			return err
		}
		var timeout *unix.Timespec
		if d := r.deadline.Load(); d != 0 {
			ts := unix.NsecToTimespec(max(d-int64(time.Since(r.epoch)), 0)) // ppoll refuses a negative one
			timeout = &ts
		}
		// A goroutine the caller readied (the subscriber woken by the
		// frame just published) waits on this P, which ppoll holds until
		// sysmon takes it away, 20 µs to 10 ms later: let it run first.
		runtime.Gosched()
		r.fds[0].Revents, r.fds[1].Revents = 0, 0
		_, err := unix.Ppoll(r.fds[:], timeout, nil)
		switch {
		case err == unix.EINTR:
		case err != nil:
			return fmt.Errorf("poll pty master: %w", err)
		case r.fds[1].Revents != 0:
			var cnt [8]byte
			unix.Read(r.wake, cnt[:]) // reset the eventfd; check sees why it was written
		case r.fds[0].Revents != 0:
			return nil
		}
	}
}

// setDeadline sets the read deadline; the zero time means none. A deadline
// earlier than the one a wait in progress sleeps for wakes that wait, so
// it sleeps for the new one.
func (r *chunkReader) setDeadline(t time.Time) error {
	var d int64
	if !t.IsZero() {
		d = max(int64(t.Sub(r.epoch)), 1)
	}
	if old := r.deadline.Swap(d); d != 0 && (old == 0 || d < old) {
		r.notify()
	}
	return nil
}

// interrupt makes the read in progress, and every later one, return
// os.ErrClosed. It is called before the master is closed.
func (r *chunkReader) interrupt() {
	r.closing.Store(true)
	r.notify()
}

// notify wakes a wait in progress, if the reader is still open.
func (r *chunkReader) notify() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.wake >= 0 {
		var one [8]byte
		binary.NativeEndian.PutUint64(one[:], 1)
		unix.Write(r.wake, one[:]) // EAGAIN only when the counter is already huge: still readable
	}
}

// close releases the reader's fds; the read loop calls it when it returns.
func (r *chunkReader) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.wake >= 0 {
		unix.Close(r.wake)
		unix.Close(r.fd)
		r.wake = -1
	}
}
