//go:build unix

package sigdfl

import (
	"os/signal"
	"syscall"
)

// ignoredByRuntime reports whether os/signal knows of an ignored signal:
// one the program ignored, or SIGHUP or SIGINT ignored when it started
// (the runtime keeps those two as it found them).
func ignoredByRuntime() bool {
	for sig := syscall.Signal(1); sig < 32; sig++ {
		if signal.Ignored(sig) {
			return true
		}
	}
	return false
}
