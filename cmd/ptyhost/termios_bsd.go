//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package main

import "golang.org/x/sys/unix"

const (
	ioctlGetTermios      = unix.TIOCGETA
	ioctlSetTermiosDrain = unix.TIOCSETAW
)

// posixVDisable is _POSIX_VDISABLE of <unistd.h>: a control character set
// to it is no key at all.
const posixVDisable = 0xff

// flushInput discards what the terminal on fd received but nobody read
// (tcflush TCIFLUSH): the user's terminal's late answers to queries.
func flushInput(fd int) error {
	const fread = 0x1 // FREAD of <sys/fcntl.h>: flush the input queue
	return unix.IoctlSetPointerInt(fd, unix.TIOCFLUSH, fread)
}
