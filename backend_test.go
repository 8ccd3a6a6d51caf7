package ptyhost

import (
	"errors"
	"testing"

	"github.com/ptyhost/ptyhost/internal/term"
	"github.com/ptyhost/ptyhost/internal/term/engine"
)

func TestParseBackend(t *testing.T) {
	for _, b := range []Backend{BackendDefault, BackendXVT, BackendEngine} {
		if got, err := ParseBackend(b.String()); err != nil || got != b {
			t.Errorf("ParseBackend(%q) = %v, %v", b.String(), got, err)
		}
	}
	if _, err := ParseBackend("vt100"); !errors.Is(err, ErrInvalidSpec) {
		t.Errorf("ParseBackend(vt100) = %v, want ErrInvalidSpec", err)
	}
}

// TestDefaultBackendIsEngine: the default is the in-house engine (issue 7
// made it so once it met its bars), and Resolve leaves the others alone.
func TestDefaultBackendIsEngine(t *testing.T) {
	for b, want := range map[Backend]Backend{BackendDefault: BackendEngine, BackendXVT: BackendXVT, BackendEngine: BackendEngine} {
		if got := b.Resolve(); got != want {
			t.Errorf("%v.Resolve() = %v, want %v", b, got, want)
		}
	}
	ctor, err := BackendDefault.constructor()
	if err != nil {
		t.Fatal(err)
	}
	tm, err := ctor(term.Options{Cols: 80, Rows: 24})
	if err != nil {
		t.Fatal(err)
	}
	defer tm.Close()
	if _, ok := tm.(*engine.Engine); !ok {
		t.Errorf("the default backend made a %T, want *engine.Engine", tm)
	}
}
