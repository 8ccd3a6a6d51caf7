//go:build unix

package ptyhost

import (
	"runtime"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// Linux real-time signal range as the kernel numbers it.
const (
	linuxSIGRTMIN = 32
	linuxSIGRTMAX = 64
)

// SignalName returns the conventional name of sig, as an Exit payload
// carries it: "SIGKILL", "SIGTERM". On Linux, real-time signals are named
// from the kernel's SIGRTMIN (32), not the C library's (glibc reserves 32
// and 33 and calls 34 SIGRTMIN): 32 is "SIGRTMIN" and 32+n is
// "SIGRTMIN+n" up to "SIGRTMIN+32" (64), so the name does not depend on
// the C library. A number the platform does not name is "SIG" followed by
// its decimal value ("SIG99").
func SignalName(sig syscall.Signal) string {
	if name := unix.SignalName(sig); name != "" {
		return name
	}
	if runtime.GOOS == "linux" && sig >= linuxSIGRTMIN && sig <= linuxSIGRTMAX {
		if sig == linuxSIGRTMIN {
			return "SIGRTMIN"
		}
		return "SIGRTMIN+" + strconv.Itoa(int(sig-linuxSIGRTMIN))
	}
	return "SIG" + strconv.Itoa(int(sig))
}
