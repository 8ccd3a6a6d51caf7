//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package main

import (
	"errors"
	"os"
)

// resizeSignal returns nil: there is no window size signal to follow.
func resizeSignal() os.Signal { return nil }

var errNoTerminalSupport = errors.New("terminal control is not supported on this platform")

type rawTerm struct{}

func isTerminal(int) bool                      { return false }
func makeRaw(int) (*rawTerm, error)            { return nil, errNoTerminalSupport }
func (*rawTerm) Restore() error                { return nil }
func termSize(int) (int, int, int, int, error) { return 0, 0, 0, 0, errNoTerminalSupport }
func flushInput(int) error                     { return errNoTerminalSupport }
func fileFd(any) (int, bool)                   { return -1, false }

type inputPump struct{}

func startInputPump(int, func([]byte) error, func()) (*inputPump, error) {
	return nil, errNoTerminalSupport
}
func (*inputPump) Stop() {}
