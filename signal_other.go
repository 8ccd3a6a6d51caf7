//go:build !unix

package ptyhost

import (
	"strconv"
	"syscall"
)

// SignalName returns "SIG" followed by the signal's decimal number: this
// platform has no POSIX signal names. On unix platforms it returns the
// conventional name ("SIGKILL").
func SignalName(sig syscall.Signal) string {
	return "SIG" + strconv.Itoa(int(sig))
}
