package attachwire

import (
	"os"
	"syscall"
)

// ExitCodeForSignal returns the exit code a signal death carries: 128 plus
// the signal number, as shells report it (SIGKILL gives 137).
func ExitCodeForSignal(sig syscall.Signal) uint32 {
	return 128 + uint32(sig)
}

// ExitForSignal returns the Exit payload of a process killed by sig:
// code 128+signum and the signal's name (see SignalName).
func ExitForSignal(sig syscall.Signal) Exit {
	return Exit{Code: ExitCodeForSignal(sig), Signal: SignalName(sig)}
}

// ExitFromProcessState returns the Exit payload for a finished process:
// its exit code, or ExitForSignal of the signal that killed it. ok is
// false when ps is nil or does not describe a termination.
func ExitFromProcessState(ps *os.ProcessState) (e Exit, ok bool) {
	if ps == nil {
		return Exit{}, false
	}
	type signaled interface {
		Signaled() bool
		Signal() syscall.Signal
	}
	if ws, isWS := ps.Sys().(signaled); isWS && ws.Signaled() {
		return ExitForSignal(ws.Signal()), true
	}
	if ps.Exited() {
		return Exit{Code: uint32(ps.ExitCode())}, true
	}
	return Exit{}, false
}
