package share

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/attachui"
)

// fakeRevoker lists two links and records what it revoked.
type fakeRevoker struct {
	mu      sync.Mutex
	revoked []string
}

func (f *fakeRevoker) Links(context.Context) ([]RevocableLink, error) {
	return []RevocableLink{{ID: "w", Label: "watch link", Role: attachwire.RoleViewer}, {ID: "d", Label: "drive link", Role: attachwire.RoleDriver}}, nil
}

func (f *fakeRevoker) Revoke(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.revoked = append(f.revoked, id)
	return nil
}

// The console puts joins and the pen on the status line, restores the
// size when the pen comes back, says the relay is unreachable while the
// host redials, and reads its menu out of the keys: typed text goes on,
// a menu's choice does not.
func TestConsole(t *testing.T) {
	var screen strings.Builder
	d := attachui.NewDisplay(&screen, func() (attachwire.Screen, uint64, bool) { return attachwire.Screen{}, 0, false }, 120, 20)
	restored, stopped := 0, 0
	rv := &fakeRevoker{}
	c := NewConsole(ConsoleConfig{Display: d, Revoker: rv,
		RestoreSize: func() { restored++ }, StopSharing: func() { stopped++ }})
	defer c.Close()

	c.Link(true)
	c.Room(attachwire.Presence{Op: attachwire.PresenceList})
	c.Room(attachwire.Presence{Op: attachwire.PresenceJoin, Members: []attachwire.Member{
		{UserID: "guest-1", ConnID: "c1", Role: attachwire.RoleDriver, Name: "Ada", Guest: true}}})
	if got := d.Line(); !strings.HasPrefix(got, "Ada (guest) joined (may drive) · live · pen: you · 1 here: Ada (guest)") {
		t.Fatalf("line %q", got)
	}
	c.Room(attachwire.PenGranted{UserID: "guest-1", ConnID: "c1", PenGeneration: 2})
	if got := d.Line(); !strings.Contains(got, "pen: Ada (guest)") {
		t.Fatalf("line %q", got)
	}
	c.Room(attachwire.PenRevoked{UserID: "guest-1", ConnID: "c1", PenGeneration: 3})
	if restored != 1 || !strings.Contains(d.Line(), "the pen is back with you") {
		t.Fatalf("restored %d, line %q", restored, d.Line())
	}
	c.Link(false)
	if got := d.Line(); !strings.Contains(got, "relay unreachable: reconnecting") {
		t.Fatalf("line %q", got)
	}
	c.Link(true)

	if got := string(c.Keys([]byte("ab\x1d?c"))); got != "abc" {
		t.Fatalf("keys sent %q, want abc", got)
	}
	if !strings.Contains(d.Line(), "w who is here") {
		t.Fatalf("help: line %q", d.Line())
	}
	// The revoke menu: a number picks, and the key is not the program's.
	if got := string(c.Keys([]byte("\x1dx2z"))); got != "z" {
		t.Fatalf("keys sent %q, want z", got)
	}
	c.Close()
	if len(rv.revoked) != 1 || rv.revoked[0] != "d" {
		t.Fatalf("revoked %v, want the second link", rv.revoked)
	}
	if !strings.Contains(screen.String(), "revoke which link?") || !strings.Contains(screen.String(), "2  drive link (driver)") {
		t.Fatalf("the menu was not drawn: %q", screen.String())
	}
	// Any other key cancels.
	c.Keys([]byte("\x1dxq"))
	c.Close()
	if len(rv.revoked) != 1 {
		t.Fatalf("a cancelled menu revoked %v", rv.revoked)
	}
	c.Keys([]byte("\x1ds"))
	if stopped != 1 || !strings.Contains(d.Line(), "sharing stopped") {
		t.Fatalf("stopped %d, line %q", stopped, d.Line())
	}
	c.Keys([]byte("\x1dp"))
	if !strings.Contains(d.Line(), "not sharing any more") {
		t.Fatalf("after stop: line %q", d.Line())
	}
}

// The new-key command runs the console's Rekey in the background and
// shows what it says; without one (a plain room) the menu says so.
func TestConsoleRekey(t *testing.T) {
	var screen strings.Builder
	d := attachui.NewDisplay(&screen, func() (attachwire.Screen, uint64, bool) { return attachwire.Screen{}, 0, false }, 120, 20)
	calls := 0
	c := NewConsole(ConsoleConfig{Display: d, StopSharing: func() {}, RestoreSize: func() {},
		Rekey: func() (string, error) { calls++; return "new key: the new links are in /tmp/x", nil }})
	if got := string(c.Keys([]byte("\x1de"))); got != "" {
		t.Fatalf("keys sent %q", got)
	}
	c.Close()
	if calls != 1 || !strings.Contains(screen.String(), "new key: the new links are in /tmp/x") {
		t.Fatalf("calls %d, screen %q", calls, screen.String())
	}
	// The panel's closing key is not the program's.
	if got := string(c.Keys([]byte("q"))); got != "" {
		t.Fatalf("keys sent %q", got)
	}
	plain := NewConsole(ConsoleConfig{Display: d, StopSharing: func() {}, RestoreSize: func() {}})
	plain.Keys([]byte("\x1de"))
	plain.Close()
	if !strings.Contains(d.Line(), "not end-to-end encrypted") {
		t.Fatalf("line %q", d.Line())
	}
}

// When the sharing ends on its own (Carry returned), the console shows
// why in a panel whose closing key is not the program's, puts no status
// line back, and its commands say that nothing is shared any more.
func TestConsoleStopped(t *testing.T) {
	var screen strings.Builder
	d := attachui.NewDisplay(&screen, func() (attachwire.Screen, uint64, bool) { return attachwire.Screen{}, 0, false }, 120, 20)
	c := NewConsole(ConsoleConfig{Display: d, StopSharing: func() {}, RestoreSize: func() {}})
	defer c.Close()
	c.Link(true)
	c.Stopped("the relay no longer knows room r1")
	if !strings.Contains(screen.String(), "sharing stopped") || !strings.Contains(screen.String(), "the relay no longer knows room r1") {
		t.Fatalf("screen %q", screen.String())
	}
	if got := string(c.Keys([]byte("q"))); got != "" {
		t.Fatalf("the panel's closing key reached the program: %q", got)
	}
	c.Link(false) // a late link change puts no line over the program
	if strings.Contains(d.Line(), "reconnecting") {
		t.Fatalf("line %q", d.Line())
	}
	c.Keys([]byte("\x1dw"))
	if !strings.Contains(d.Line(), "not sharing any more") {
		t.Fatalf("line %q", d.Line())
	}
}
