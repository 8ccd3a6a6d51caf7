package main

import (
	"bytes"
	"os"

	"golang.org/x/sys/unix"
)

const (
	// echoChildArg as the first argument makes this binary the raw echo
	// child of the round-trip cases (the helper-process pattern).
	echoChildArg = "__ptybench-echo-child"
	// echoReady is what the echo child prints once its tty is raw: input
	// written after it comes back only from the child, never from the line
	// discipline's echo.
	echoReady = "READY"
	// echoQuit makes the echo child exit.
	echoQuit = 'q'
)

// runEchoChild puts its terminal in raw mode (cfmakeraw), announces itself
// and writes back every byte it reads until it reads echoQuit.
func runEchoChild(in, out *os.File) int {
	fd := int(in.Fd())
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return 1
	}
	t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP |
		unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	t.Oflag &^= unix.OPOST
	t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	t.Cflag &^= unix.CSIZE | unix.PARENB
	t.Cflag |= unix.CS8
	t.Cc[unix.VMIN] = 1
	t.Cc[unix.VTIME] = 0
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, t); err != nil {
		return 1
	}
	if _, err := out.Write([]byte(echoReady)); err != nil {
		return 1
	}
	buf := make([]byte, 4096)
	for {
		n, err := in.Read(buf)
		if n > 0 {
			if i := bytes.IndexByte(buf[:n], echoQuit); i >= 0 {
				return 0
			}
			if _, werr := out.Write(buf[:n]); werr != nil {
				return 1
			}
		}
		if err != nil {
			return 0
		}
	}
}
