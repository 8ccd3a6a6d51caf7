package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os/exec"

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
		return &startError{code: exitNoExec, err: fmt.Errorf("%s: %s: cannot execute: %w", cmd, name, errors.Unwrap(err))}
	case errors.Is(err, ptyhost.ErrBadGeometry):
		return usagef(cmd, "--size: want 1..%d columns and 1..%d rows", ptyhost.MaxCols, ptyhost.MaxRows)
	case errors.Is(err, ptyhost.ErrInvalidSpec):
		return usagef(cmd, "%v", err)
	}
	return fmt.Errorf("%s: %w", cmd, err)
}
