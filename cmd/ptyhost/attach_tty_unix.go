//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package main

import (
	"fmt"

	"github.com/ptyhost/ptyhost/internal/rawterm"
	"golang.org/x/sys/unix"
)

// watchMode is raw mode with the signal keys kept but Ctrl-C's: a watching
// attach reads its prefix key byte by byte and paints without output
// processing, Ctrl-Z still suspends it, and Ctrl-C comes as a byte, which
// detaches (a SIGINT from elsewhere still ends attach with 128+SIGINT).
func watchMode(fd int) error { return setTermMode(fd, true) }

// rawMode is full raw mode, for the terminal whose keys go to the session.
func rawMode(fd int) error { return setTermMode(fd, false) }

func setTermMode(fd int, signals bool) error {
	t, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return fmt.Errorf("read terminal settings: %w", err)
	}
	rawterm.Set(t)
	if signals {
		t.Lflag |= unix.ISIG
		t.Cc[unix.VINTR] = posixVDisable
	}
	if err := unix.IoctlSetTermios(fd, ioctlSetTermiosDrain, t); err != nil {
		return fmt.Errorf("set terminal mode: %w", err)
	}
	return nil
}
