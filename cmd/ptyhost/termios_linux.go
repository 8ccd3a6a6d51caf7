package main

import "golang.org/x/sys/unix"

const (
	ioctlGetTermios      = unix.TCGETS
	ioctlSetTermiosDrain = unix.TCSETSW
)

// posixVDisable is _POSIX_VDISABLE of <unistd.h>: a control character set
// to it is no key at all.
const posixVDisable = 0

// flushInput discards what the terminal on fd received but nobody read
// (tcflush TCIFLUSH): the user's terminal's late answers to queries.
func flushInput(fd int) error {
	return unix.IoctlSetInt(fd, unix.TCFLSH, unix.TCIFLUSH)
}
