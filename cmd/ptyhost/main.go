package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
)

func main() {
	err := run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	os.Exit(exitCode(err, os.Stderr))
}

// Exit codes of ptyhost itself. Every other status is the child's own
// (128 + signum when a signal killed it); see README.md.
const (
	exitOK       = 0
	exitUsage    = 2   // bad flags, missing --, malformed values, no terminal for run
	exitTimeout  = 124 // exec --timeout expired (as timeout(1))
	exitInternal = 125 // ptyhost itself failed (as timeout(1) and env(1))
	exitNoExec   = 126 // the command exists but cannot be executed
	exitNotFound = 127 // the command was not found
)

// exitCode is the one place that turns the result of run into a process
// exit status. It writes a one-line message for every error except a
// child's plain exit status, which the child has already explained.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	var st *exitStatus
	if errors.As(err, &st) {
		if st.msg != "" {
			fmt.Fprintln(stderr, "ptyhost:", st.msg)
		}
		return st.code
	}
	fmt.Fprintln(stderr, "ptyhost:", err)
	var ue *usageError
	var se *startError
	var sig *signalError
	switch {
	case errors.As(err, &ue):
		return exitUsage
	case errors.As(err, &se):
		return se.code
	case errors.As(err, &sig):
		return 128 + int(sig.sig)
	case errors.Is(err, errTimeout):
		return exitTimeout
	default:
		return exitInternal
	}
}
