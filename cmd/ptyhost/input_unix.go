//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package main

import (
	"errors"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// inputPump copies a terminal's input to a callback until Stop. It polls
// the terminal together with a wake pipe, so Stop does not depend on the
// user pressing a key: the goroutine is joined, not abandoned.
type inputPump struct {
	fd           int
	wakeR, wakeW *os.File
	wg           sync.WaitGroup
	stopOnce     sync.Once
}

// startInputPump starts copying fd's input to send. send's error ends the
// copy, and so does the end of the terminal's input.
func startInputPump(fd int, send func([]byte) error, guard func()) (*inputPump, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	p := &inputPump{fd: fd, wakeR: r, wakeW: w}
	p.wg.Go(func() {
		defer guard()
		p.loop(send)
	})
	return p, nil
}

func (p *inputPump) loop(send func([]byte) error) {
	buf := make([]byte, 32<<10)
	fds := []unix.PollFd{
		{Fd: int32(p.fd), Events: unix.POLLIN},
		{Fd: int32(p.wakeR.Fd()), Events: unix.POLLIN},
	}
	for {
		if _, err := unix.Poll(fds, -1); err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return
		}
		if fds[1].Revents != 0 {
			return
		}
		if fds[0].Revents&(unix.POLLIN|unix.POLLHUP|unix.POLLERR) == 0 {
			continue
		}
		n, err := unix.Read(p.fd, buf)
		if errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN) {
			continue
		}
		if n <= 0 || send(buf[:n]) != nil {
			return
		}
	}
}

// Stop ends the copy and waits for the goroutine. It is idempotent.
func (p *inputPump) Stop() {
	p.stopOnce.Do(func() {
		p.wakeW.Write([]byte{0})
		p.wg.Wait()
		p.wakeR.Close()
		p.wakeW.Close()
	})
}
