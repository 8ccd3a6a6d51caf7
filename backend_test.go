package ptyhost

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term"
	"github.com/ptyhost/ptyhost/internal/term/engine"
	"github.com/ptyhost/ptyhost/internal/term/termtest"
	"github.com/ptyhost/ptyhost/internal/term/xvtgate"
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

// TestDefaultBackendIsEngine: the default is the in-house engine, and
// Resolve leaves the others alone.
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

// TestBackendXVTNeedsTag: without the ptyhost_xvt build tag, Spawn refuses
// BackendXVT with an error matching ErrBackendUnavailable and
// ErrInvalidSpec and naming the tag; with it, the backend works.
func TestBackendXVTNeedsTag(t *testing.T) {
	if xvtgate.Built {
		ctor, err := BackendXVT.constructor()
		if err != nil {
			t.Fatal(err)
		}
		tm, err := ctor(term.Options{Cols: 80, Rows: 24})
		if err != nil {
			t.Fatal(err)
		}
		tm.Close()
		return
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Spawn(Spec{Command: []string{self}, Backend: BackendXVT})
	if err == nil {
		s.Stop(context.Background())
		t.Fatal("Spawn with BackendXVT succeeded in a build without the tag")
	}
	if !errors.Is(err, ErrBackendUnavailable) || !errors.Is(err, ErrInvalidSpec) || !strings.Contains(err.Error(), xvtgate.Tag) {
		t.Errorf("Spawn with BackendXVT: %v; want ErrBackendUnavailable and ErrInvalidSpec, naming %s", err, xvtgate.Tag)
	}
}

// TestDefaultBuildLinksNoCharm: the library and the CLI, built without
// tags, link nothing of charmbracelet (x/vt and its 10 dependencies stay
// behind the ptyhost_xvt tag).
func TestDefaultBuildLinksNoCharm(t *testing.T) {
	gotool := termtest.NeedTool(t, "go")
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	cmd := exec.CommandContext(ctx, gotool, "list", "-deps", ".", "./cmd/ptyhost")
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	if !strings.Contains(string(out), "github.com/ptyhost/ptyhost/internal/term/engine\n") {
		t.Fatalf("go list -deps does not list the engine: %q", out)
	}
	for line := range strings.Lines(string(out)) {
		if strings.HasPrefix(line, "github.com/charmbracelet/") {
			t.Errorf("the default build links %s", strings.TrimSpace(line))
		}
	}
}

// TestMaxScrollbackFitsTheWire: a snapshot of the most scrollback a Spec
// may ask for can be encoded (attachwire refuses more lines).
func TestMaxScrollbackFitsTheWire(t *testing.T) {
	if MaxScrollback > attachwire.MaxScrollbackLines {
		t.Fatalf("MaxScrollback %d > attachwire.MaxScrollbackLines %d", MaxScrollback, attachwire.MaxScrollbackLines)
	}
}
