//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package rawterm

import "golang.org/x/sys/unix"

// Set changes t to raw mode as cfmakeraw(3) does: input bytes arrive one
// at a time and unchanged (no line editing, echo, signal keys, CR/NL
// translation or flow control), output is not post-processed, and
// characters are 8 bits without parity.
func Set(t *unix.Termios) {
	t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	t.Oflag &^= unix.OPOST
	t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	t.Cflag &^= unix.CSIZE | unix.PARENB
	t.Cflag |= unix.CS8
	t.Cc[unix.VMIN] = 1
	t.Cc[unix.VTIME] = 0
}
