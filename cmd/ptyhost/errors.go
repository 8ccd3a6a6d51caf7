package main

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/ptyhost/ptyhost"
)

// usageError is a mistake on the command line: exit status 2.
type usageError struct {
	cmd string // "exec", or "" for the top level
	msg string
}

func (e *usageError) Error() string {
	if e.cmd == "" {
		return e.msg + " (see 'ptyhost --help')"
	}
	return e.cmd + ": " + e.msg + " (see 'ptyhost " + e.cmd + " --help')"
}

func usagef(cmd, format string, args ...any) error {
	return &usageError{cmd: cmd, msg: fmt.Sprintf(format, args...)}
}

// exitStatus carries the child's exit status (or a code ptyhost chose to
// mirror it) to main. msg, when set, is printed as one line.
type exitStatus struct {
	code int
	msg  string
}

func (e *exitStatus) Error() string {
	if e.msg != "" {
		return e.msg
	}
	return fmt.Sprintf("exit status %d", e.code)
}

// startError reports a command that could not be started: 127 when it was
// not found, 126 when it is not executable.
type startError struct {
	code int
	err  error
}

func (e *startError) Error() string { return e.err.Error() }
func (e *startError) Unwrap() error { return e.err }

// signalError reports that ptyhost itself was told to stop by a signal
// (SIGINT, SIGTERM, SIGHUP): exit status 128 + signum, as a shell reports.
type signalError struct {
	sig syscall.Signal
}

func (e *signalError) Error() string {
	return "interrupted by " + ptyhost.SignalName(e.sig)
}

// errTimeout is matched by the error exec returns when --timeout expires.
var errTimeout = errors.New("timed out")

// timeoutError adds what exec was waiting for to errTimeout.
type timeoutError struct {
	after   string
	waiting string
}

func (e *timeoutError) Error() string {
	return "exec: timed out after " + e.after + " " + e.waiting
}

func (e *timeoutError) Is(target error) bool { return target == errTimeout }
