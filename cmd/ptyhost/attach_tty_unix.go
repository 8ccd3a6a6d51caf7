//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package main

import (
	"context"
	"fmt"
	"io"

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

// readHidden writes prompt to w and reads one line from the terminal fd
// without echo (a secret is being typed or pasted); the settings are put
// back after. A signal (ctx's end) abandons the read.
func readHidden(ctx context.Context, fd int, w io.Writer, prompt string) (string, error) {
	old, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return "", fmt.Errorf("read terminal settings: %w", err)
	}
	t := *old
	t.Lflag &^= unix.ECHO
	t.Lflag |= unix.ICANON | unix.ECHONL
	if err := unix.IoctlSetTermios(fd, ioctlSetTermiosDrain, &t); err != nil {
		return "", fmt.Errorf("set terminal mode: %w", err)
	}
	defer unix.IoctlSetTermios(fd, ioctlSetTermiosDrain, old)
	io.WriteString(w, prompt)
	type line struct {
		s   string
		err error
	}
	got := make(chan line, 1)
	go func() {
		// Byte by byte: what follows the line is the session's input.
		var b []byte
		var c [1]byte
		for {
			n, err := unix.Read(fd, c[:])
			switch {
			case n == 1 && c[0] == '\n':
				got <- line{s: string(b)}
				return
			case n == 1:
				b = append(b, c[0])
			case err == unix.EINTR:
			case err != nil:
				got <- line{err: err}
				return
			default:
				got <- line{err: io.EOF}
				return
			}
		}
	}()
	select {
	case l := <-got:
		return l.s, l.err
	case <-ctx.Done():
		return "", interrupted(ctx)
	}
}
