//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package main

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/ptyhost/ptyhost/internal/rawterm"
	"golang.org/x/sys/unix"
)

// rawTerm is a terminal put in raw mode; Restore puts back the settings it
// found. Restore is idempotent and safe for concurrent use, so that the
// normal exit path, a signal and a panic can all call it.
type rawTerm struct {
	fd    int
	saved unix.Termios
	once  sync.Once
	err   error
}

// resizeSignal returns the signal a terminal's size change raises.
func resizeSignal() os.Signal { return unix.SIGWINCH }

// isTerminal reports whether fd is a terminal.
func isTerminal(fd int) bool {
	_, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	return err == nil
}

// makeRaw saves fd's settings and switches it to raw mode (as cfmakeraw:
// no echo, no line editing, no signals from keys, no output processing,
// 8-bit bytes, reads return as soon as one byte is there).
func makeRaw(fd int) (*rawTerm, error) {
	t, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return nil, fmt.Errorf("read terminal settings: %w", err)
	}
	rt := &rawTerm{fd: fd, saved: *t}
	raw := *t
	rawterm.Set(&raw)
	if err := unix.IoctlSetTermios(fd, ioctlSetTermiosDrain, &raw); err != nil {
		return nil, fmt.Errorf("set raw mode: %w", err)
	}
	return rt, nil
}

// Restore puts the saved settings back, once.
func (rt *rawTerm) Restore() error {
	rt.once.Do(func() {
		rt.err = unix.IoctlSetTermios(rt.fd, ioctlSetTermiosDrain, &rt.saved)
	})
	return rt.err
}

// termSize returns the size of the terminal on fd.
func termSize(fd int) (cols, rows, pxW, pxH int, err error) {
	ws, err := unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	if ws.Col == 0 || ws.Row == 0 {
		return 0, 0, 0, 0, errors.New("terminal reports a zero size")
	}
	return int(ws.Col), int(ws.Row), int(ws.Xpixel), int(ws.Ypixel), nil
}

// fileFd returns the descriptor of r when it is an *os.File.
func fileFd(r any) (int, bool) {
	f, ok := r.(*os.File)
	if !ok || f == nil {
		return -1, false
	}
	return int(f.Fd()), true
}
