//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package ptyhost

import (
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/creack/pty"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/sigdfl"
	"golang.org/x/sys/unix"
)

// openPTY opens a PTY pair of the given size. The master is returned in
// non-blocking mode under Go's poller, so that a deadline or Close
// interrupts a blocked Read (creack/pty leaves it blocking, and a blocking
// Read can neither be interrupted nor release its OS thread).
func openPTY(cols, rows int) (master, tty *os.File, err error) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		return nil, nil, fmt.Errorf("open pty: %w", err)
	}
	fd, err := unix.FcntlInt(ptmx.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	ptmx.Close()
	if err != nil {
		tty.Close()
		return nil, nil, fmt.Errorf("dup pty master: %w", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		tty.Close()
		return nil, nil, fmt.Errorf("pty master non-blocking: %w", err)
	}
	master = os.NewFile(uintptr(fd), "/dev/ptmx")
	if err := master.SetReadDeadline(time.Time{}); err != nil {
		// Not under the poller: Stop could not interrupt the read loop.
		master.Close()
		tty.Close()
		return nil, nil, fmt.Errorf("pty master is not pollable: %w", err)
	}
	if err := setWinsize(master, cols, rows, 0, 0); err != nil {
		master.Close()
		tty.Close()
		return nil, nil, err
	}
	return master, tty, nil
}

// control runs fn on the master's fd without taking it out of
// non-blocking mode (os.File.Fd would).
func control(f *os.File, fn func(fd int) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return err
	}
	return ferr
}

// setWinsize sets the PTY's window size (TIOCSWINSZ); the kernel sends
// SIGWINCH to the foreground process group.
func setWinsize(master *os.File, cols, rows, pxWidth, pxHeight int) error {
	ws := &unix.Winsize{Col: uint16(cols), Row: uint16(rows), Xpixel: uint16(pxWidth), Ypixel: uint16(pxHeight)}
	if err := control(master, func(fd int) error { return unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, ws) }); err != nil {
		return fmt.Errorf("set window size: %w", err)
	}
	return nil
}

// echoMode reads the ECHO flag of the PTY's line discipline through the
// master (the kernel answers with the slave's termios).
func echoMode(master *os.File) attachwire.EchoMode {
	var lflag uint64
	err := control(master, func(fd int) error {
		t, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
		if err == nil {
			lflag = uint64(t.Lflag)
		}
		return err
	})
	switch {
	case err != nil:
		return attachwire.EchoUnknown
	case lflag&unix.ECHO != 0:
		return attachwire.EchoOn
	default:
		return attachwire.EchoOff
	}
}

// childAttrs makes the child a session leader with the PTY (its stdin) as
// controlling terminal; setsid also makes it a process-group leader.
func childAttrs() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
}

// startChild starts cmd with every signal at SIG_DFL. When the host
// ignores a signal (it runs under nohup, or as a background job of a
// non-interactive shell) the child would inherit that, since os/exec
// resets only caught signals: internal/sigdfl then starts it through a
// re-exec of the host (see its doc for why not something in the parent).
// If the host's executable cannot be named the child is started directly
// and the reason logged.
func startChild(cmd *exec.Cmd, log *slog.Logger) error {
	fallback, err := sigdfl.Start(cmd)
	if fallback != nil {
		log.Warn("ptyhost: the child inherits the signals this process ignores", "err", fallback)
	}
	return err
}

// killGroup sends sig to the process group led by pid.
func killGroup(pid int, sig syscall.Signal) error {
	return syscall.Kill(-pid, sig)
}
