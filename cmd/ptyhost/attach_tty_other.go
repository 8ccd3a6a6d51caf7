//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package main

import (
	"context"
	"io"
)

func watchMode(int) error { return errNoTerminalSupport }
func rawMode(int) error   { return errNoTerminalSupport }

func readHidden(context.Context, int, io.Writer, string) (string, error) {
	return "", errNoTerminalSupport
}
