package ptyhost

import (
	"fmt"

	"github.com/ptyhost/ptyhost/internal/term"
	"github.com/ptyhost/ptyhost/internal/term/engine"
	"github.com/ptyhost/ptyhost/internal/term/xvt"
)

// Backend selects the headless terminal implementation of a Session.
type Backend int

// Terminal backends.
const (
	// BackendDefault is the recommended backend; currently BackendEngine
	// (see Resolve).
	BackendDefault Backend = iota
	// BackendXVT is charmbracelet/x/vt behind the guards ptyhost needs:
	// the seed's emulator, kept for comparison and for users who want it.
	// It is much slower on heavy output (docs/performance.md).
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
		return newXVT, nil
	case BackendEngine:
		return newEngine, nil
	}
	return nil, fmt.Errorf("%w: unknown terminal backend %d", ErrInvalidSpec, int(b))
}

func newXVT(o term.Options) (term.Terminal, error) {
	t, err := xvt.New(o)
	if err != nil {
		return nil, err
	}
	return t, nil
}

func newEngine(o term.Options) (term.Terminal, error) { return engine.New(o), nil }

// ParseBackend returns the Backend named "default", "xvt" or "engine" (the
// names String returns), for flags and configuration files.
func ParseBackend(name string) (Backend, error) {
	for _, b := range []Backend{BackendDefault, BackendXVT, BackendEngine} {
		if name == b.String() {
			return b, nil
		}
	}
	return 0, fmt.Errorf("%w: unknown terminal backend %q (want default, xvt or engine)", ErrInvalidSpec, name)
}
