package ptyhost

import "golang.org/x/sys/unix"

const ioctlGetTermios = unix.TCGETS

const ioctlSetTermios = unix.TCSETS
