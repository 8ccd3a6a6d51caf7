//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package ptyhost

import "golang.org/x/sys/unix"

const ioctlGetTermios = unix.TIOCGETA

const ioctlSetTermios = unix.TIOCSETA
