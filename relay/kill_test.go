package relay_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
)

// Kill reaches the bound host leg as a kill control carrying the reason
// and the signal, and reports delivered; a repeat is delivered again (the
// host acts once).
func TestKillLiveHostDelivered(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := dialHost(t, s, 1)
	for _, sig := range []string{"SIGTERM", ""} {
		ok, err := s.Relay.Kill(ctxT(t), relaytest.DefaultOrg, room, attachwire.KillQuota, sig)
		if err != nil || !ok {
			t.Fatalf("Kill(%q) = %v, %v; want delivered", sig, ok, err)
		}
		k := relaytest.ExpectControl[attachwire.Kill](t, h.c)
		if k.Reason != attachwire.KillQuota || k.Signal != sig {
			t.Fatalf("host got %+v, want reason quota, signal %q", k, sig)
		}
	}
}

// Without a live host leg nothing is delivered: no room at all, another
// organisation's room of the same session id, a room with only a viewer,
// and a room whose host leg has gone.
func TestKillNoHostNotDelivered(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	kill := func(org string) bool {
		t.Helper()
		ok, err := s.Relay.Kill(ctxT(t), org, room, attachwire.KillRevoked, "")
		if err != nil {
			t.Fatalf("Kill: %v", err)
		}
		return ok
	}
	if kill(relaytest.DefaultOrg) {
		t.Fatal("delivered to a room that does not exist")
	}
	v := dialViewer(t, s, s.ViewerToken(t, room, "v"), attachwire.RoleViewer, attachwire.Subscribe{})
	relaytest.ExpectControl[attachwire.RoomState](t, v)
	if kill(relaytest.DefaultOrg) {
		t.Fatal("delivered to a room without a host")
	}
	h := dialHost(t, s, 1)
	if kill("other-org") {
		t.Fatal("delivered to another organisation's room")
	}
	h.c.Close()
	waitHostGone(t, s)
	if kill(relaytest.DefaultOrg) {
		t.Fatal("delivered after the host leg left")
	}
}

// Kill refuses a reason outside the protocol's three and a signal that is
// not a signal name, and a closed relay.
func TestKillBadArguments(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	dialHost(t, s, 1)
	for _, tc := range []struct {
		name   string
		reason attachwire.KillReason
		signal string
	}{
		{"empty reason", "", ""},
		{"unknown reason", "bored", "SIGTERM"},
		{"lower-case signal", attachwire.KillStopped, "sigterm"},
		{"number", attachwire.KillStopped, "9"},
		{"bare SIG", attachwire.KillStopped, "SIG"},
		{"trailing plus", attachwire.KillStopped, "SIGRTMIN+"},
		{"too long", attachwire.KillStopped, "SIGABCDEFGHIJKLMNOP"},
		{"control bytes", attachwire.KillStopped, "SIG\x1b[2J"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, err := s.Relay.Kill(ctxT(t), relaytest.DefaultOrg, room, tc.reason, tc.signal)
			if ok || !errors.Is(err, relay.ErrBadKill) {
				t.Fatalf("Kill = %v, %v; want ErrBadKill", ok, err)
			}
		})
	}
	s.Close()
	ok, err := s.Relay.Kill(context.Background(), relaytest.DefaultOrg, room, attachwire.KillStopped, "SIGRTMIN+3")
	if ok || !errors.Is(err, relay.ErrClosed) {
		t.Fatalf("Kill after Close = %v, %v; want ErrClosed", ok, err)
	}
}

// Kill's answer is exact whenever ctx ends: a kill reported delivered
// reached the host, and one withdrawn (not delivered, ctx's error) never
// does. The calls' contexts expire after 0 to 245 µs, so some end before
// the host writer takes the kill and some while it writes it; whichever
// happens, the counts must agree. A final kill with a live ctx marks the
// end.
func TestKillDeliveredMeansReceived(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := dialHost(t, s, 1)
	delivered := 0
	for i := range 50 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(i)*5*time.Microsecond)
		ok, err := s.Relay.Kill(ctx, relaytest.DefaultOrg, room, attachwire.KillStopped, "SIGTERM")
		cancel()
		switch {
		case ok && err == nil:
			delivered++
		case !ok && errors.Is(err, context.DeadlineExceeded):
		default:
			t.Fatalf("Kill = %v, %v", ok, err)
		}
	}
	if ok, err := s.Relay.Kill(ctxT(t), relaytest.DefaultOrg, room, attachwire.KillStopped, "SIGUSR1"); !ok || err != nil {
		t.Fatalf("final Kill = %v, %v", ok, err)
	}
	received := 0
	for {
		k := relaytest.ExpectControl[attachwire.Kill](t, h.c)
		if k.Signal == "SIGUSR1" {
			break
		}
		received++
	}
	if received != delivered {
		t.Fatalf("the host received %d kills, %d were reported delivered", received, delivered)
	}
	t.Logf("%d of 50 delivered", delivered)
}
