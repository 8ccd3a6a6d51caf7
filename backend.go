package ptyhost

import (
	"errors"
	"fmt"

	"github.com/ptyhost/ptyhost/internal/term"
	"github.com/ptyhost/ptyhost/internal/term/engine"
	"github.com/ptyhost/ptyhost/internal/term/xvtgate"
)

// ErrBackendUnavailable is matched, along with ErrInvalidSpec, by the
// error Spawn returns for a backend this binary was built without:
// BackendXVT needs the ptyhost_xvt build tag.
var ErrBackendUnavailable = errors.New("ptyhost: terminal backend not built into this binary")

// Backend selects the headless terminal implementation of a Session.
type Backend int

// Terminal backends.
const (
	// BackendDefault is the recommended backend; currently BackendEngine
	// (see Resolve).
	BackendDefault Backend = iota
	// BackendXVT is charmbracelet/x/vt behind the guards ptyhost needs:
	// the emulator the project started with, kept as a point of comparison. It is only
	// built in with the ptyhost_xvt build tag (Spawn otherwise fails with
	// ErrBackendUnavailable), because its screen depends on how the
	// child's output is split into reads (a combining mark in the next
	// read lands in a cell of its own), which breaks the snapshot promise;
	// it is also much slower on heavy output (docs/performance.md).
	BackendXVT
	// BackendEngine is the in-house engine (internal/term/engine): a ring
	// of rows, compact cells and bounded work per byte.
	BackendEngine
)

// String returns the backend's name.
func (b Backend) String() string {
	switch b {
	case BackendDefault:
		return "default"
	case BackendXVT:
		return "xvt"
	case BackendEngine:
		return "engine"
	}
	return fmt.Sprintf("Backend(%d)", int(b))
}

// Resolve returns the backend b stands for: BackendDefault resolves to
// the backend it currently means (BackendEngine), any other value to
// itself.
func (b Backend) Resolve() Backend {
	if b == BackendDefault {
		return BackendEngine
	}
	return b
}

// constructor returns the function that creates a terminal for b.
func (b Backend) constructor() (func(term.Options) (term.Terminal, error), error) {
	switch b.Resolve() {
	case BackendXVT:
		if !xvtgate.Built {
			return nil, fmt.Errorf("%w: %w: xvt needs -tags %s", ErrInvalidSpec, ErrBackendUnavailable, xvtgate.Tag)
		}
		return xvtgate.New, nil
	case BackendEngine:
		return newEngine, nil
	}
	return nil, fmt.Errorf("%w: unknown terminal backend %d", ErrInvalidSpec, int(b))
}

func newEngine(o term.Options) (term.Terminal, error) { return engine.New(o), nil }

// ParseBackend returns the Backend named "default", "xvt" or "engine" (the
// names String returns), for flags and configuration files. It accepts
// "xvt" in every build; Spawn reports whether the binary has it.
func ParseBackend(name string) (Backend, error) {
	for _, b := range []Backend{BackendDefault, BackendXVT, BackendEngine} {
		if name == b.String() {
			return b, nil
		}
	}
	return 0, fmt.Errorf("%w: unknown terminal backend %q (want default, xvt or engine)", ErrInvalidSpec, name)
}
