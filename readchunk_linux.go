//go:build linux

package ptyhost

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// chunkReader reads the master on its own duplicate of the master's fd,
// waiting for output in ppoll(2) on the calling thread rather than under
// Go's poller, as a plain blocking reader waits in read(2). Under the
// poller every wait cost a park of the goroutine and a wake-up through
// epoll and the scheduler, often by another thread; here a wait is one
// system call, and the goroutine stays on its thread (docs/performance.md,
// "A reader that waits like the bare one").
//
// What the poller gave is kept by hand: a read deadline (the drain's) is
// ppoll's timeout, and interrupt ends a wait at once through an eventfd
// that ppoll watches beside the master. The duplicate fd is the reader's
// own, so its number cannot be reused under a wait however the master is
// closed.
//
// A goroutine in ppoll holds its OS thread, where one parked under the
// poller holds none. So that an idle session does not keep a thread for
// it, a wait that finds the master quiet for readerIdle goes back to the
// poller, on the master itself: its read deadline is kept equal to the
// reader's, and closing it ends that wait.
//
// read is called from one goroutine only (the read loop, which calls close
// when it is done); setDeadline and interrupt are safe from any goroutine.
type chunkReader struct {
	fd     int             // the reader's duplicate of the master
	master *os.File        // the master itself, for waits under the poller
	rc     syscall.RawConn // master's
	idle   time.Duration   // how long a wait stays in ppoll before it parks under the poller
	epoch  time.Time       // deadlines are kept as monotonic nanoseconds since epoch
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

// readerIdle is how long a wait for output stays in ppoll before it parks
// under Go's poller: long enough that a firehose and a typing user never
// get there, short enough that an idle session soon gives its thread back.
const readerIdle = time.Second

// newChunkReader duplicates the master's fd and opens the eventfd that
// interrupts its waits.
func newChunkReader(master *os.File) (*chunkReader, error) {
	rc, err := master.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("pty master for reading: %w", err)
	}
	var fd int
	err = control(master, func(mfd int) error {
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
	r := &chunkReader{fd: fd, master: master, rc: rc, idle: readerIdle, wake: wake, epoch: time.Now(), empty: true}
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
		n, err := r.wait(buf)
		if err != nil {
			return 0, err
		}
		r.empty = false
		if n > 0 { // read under the poller: take what followed it too
			return n + r.fill(buf[n:]), nil
		}
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

// wait blocks until the master is readable (or hung up), the deadline
// passes, or interrupt is called: in ppoll for up to r.idle, then under
// Go's poller, which returns with what it read into buf.
func (r *chunkReader) wait(buf []byte) (int, error) {
	idleBy := int64(time.Since(r.epoch)) + int64(r.idle)
	for {
		if err := r.check(); err != nil {
			return 0, err
		}
		now := int64(time.Since(r.epoch))
		if now >= idleBy {
			return r.park(buf)
		}
		left := idleBy - now
		if d := r.deadline.Load(); d != 0 {
			left = min(left, max(d-now, 0)) // ppoll refuses a negative timeout
		}
		timeout := unix.NsecToTimespec(left)
		// A goroutine the caller readied (the subscriber woken by the
		// frame just published) waits on this P, which ppoll holds until
		// sysmon takes it away, 20 µs to 10 ms later: let it run first.
		runtime.Gosched()
		r.fds[0].Revents, r.fds[1].Revents = 0, 0
		_, err := unix.Ppoll(r.fds[:], &timeout, nil)
		switch {
		case err == unix.EINTR:
		case err != nil:
			return 0, fmt.Errorf("poll pty master: %w", err)
		case r.fds[1].Revents != 0:
			var cnt [8]byte
			unix.Read(r.wake, cnt[:]) // reset the eventfd; check sees why it was written
		case r.fds[0].Revents != 0:
			return 0, nil
		}
	}
}

// park waits for output under Go's poller on the master and reads it
// into buf. The master's read deadline (set with the reader's) and its
// Close end the wait.
func (r *chunkReader) park(buf []byte) (int, error) {
	n := 0
	var rerr error
	err := r.rc.Read(func(fd uintptr) bool {
		for {
			m, e := unix.Read(int(fd), buf)
			switch {
			case m > 0:
				n = m
				return true
			case e == unix.EINTR:
			case e == unix.EAGAIN:
				return false // wait under the poller
			case e == nil:
				rerr = io.EOF
				return true
			default:
				rerr = e
				return true
			}
		}
	})
	switch {
	case n > 0:
		return n, nil
	case errors.Is(err, os.ErrDeadlineExceeded):
		return 0, err
	case err != nil || r.closing.Load():
		return 0, os.ErrClosed // the only other failure of a poller read
	default:
		r.err = rerr
		return 0, rerr
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
	return r.master.SetReadDeadline(t) // for a wait parked under the poller
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
