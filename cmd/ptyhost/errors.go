package main

import (
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/ptyhost/ptyhost"
)

// usageError is a mistake on the command line: exit status 2. err says
// what is wrong (a *flagError for a flag, or a message).
type usageError struct {
	cmd string // "exec", or "" for the top level
	err error
}

func (e *usageError) Error() string {
	if e.cmd == "" {
		return e.err.Error() + " (see 'ptyhost --help')"
	}
	return e.cmd + ": " + e.err.Error() + " (see 'ptyhost " + e.cmd + " --help')"
}

func (e *usageError) Unwrap() error { return e.err }

func usagef(cmd, format string, args ...any) error {
	return &usageError{cmd: cmd, err: fmt.Errorf(format, args...)}
}

// hostError is an error of package ptyhost met by the command op (e.g.
// "exec: snapshot"): exit status 125. The library's messages start with
// its package name, which is also the CLI's prefix on every message, so
// the line leaves that one word out instead of saying it twice.
type hostError struct {
	op  string
	err error
}

func (e *hostError) Error() string { return e.op + ": " + libMessage(e.err) }
func (e *hostError) Unwrap() error { return e.err }

// libMessage is the message of an error of package ptyhost without its
// package prefix.
func libMessage(err error) string { return strings.TrimPrefix(err.Error(), "ptyhost: ") }

// specError is the host's refusal of an option given on the command
// line (errors.Is ptyhost.ErrInvalidSpec): a usage error.
type specError struct{ err error }

func (e *specError) Error() string { return libMessage(e.err) }
func (e *specError) Unwrap() error { return e.err }

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
