package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"

	"github.com/ptyhost/ptyhost"
)

// spawnProblem turns a Spawn error into what the user needs to know: 127
// for a command that is not found, 126 for one that cannot be executed,
// a usage error for a size or option the host rejects.
func spawnProblem(cmd, name string, err error) error {
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return &startError{code: exitNotFound, err: fmt.Errorf("%s: %s: command not found", cmd, name)}
	case errors.Is(err, fs.ErrPermission):
		return &startError{code: exitNoExec, err: fmt.Errorf("%s: %s: cannot execute: %s", cmd, name, notExecutable(name))}
	case errors.Is(err, ptyhost.ErrBadGeometry):
		return usagef(cmd, "--size: want %s", sizeLimits)
	case errors.Is(err, ptyhost.ErrInvalidSpec):
		return &usageError{cmd: cmd, err: &specError{err}}
	}
	return &hostError{op: cmd, err: err}
}

// notExecutable says why name could not be executed, without repeating
// it: the library's error names the path it tried.
func notExecutable(name string) string {
	if strings.Contains(name, "/") {
		if fi, err := os.Stat(name); err == nil && fi.IsDir() {
			return "it is a directory"
		}
	}
	return "permission denied"
}
