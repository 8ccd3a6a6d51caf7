package relay_test

import (
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
)

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// The relay's logs never hold a token or a query string, whether the dial
// was admitted or refused.
func TestLogsHoldNoTokenOrQuery(t *testing.T) {
	var logs testkit.Buffer
	s := relaytest.NewServer(t, relay.Config{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	good := s.ViewerToken(t, room, "ann")
	v := relaytest.MustDial(t, s.RoomURL(room)+"?access_token=SECRETQUERY", good,
		attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer})
	relaytest.ExpectControl[attachwire.PenState](t, v)
	bad := good[:len(good)-4] + "AAAA"
	dialStatus(t, s.RoomURL(room)+"?x=SECRETQUERY", bad, nil)
	other := s.ViewerToken(t, "elsewhere", "ann")
	c := relaytest.MustDial(t, s.RoomURL(room), other, attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer})
	relaytest.ExpectClose(t, c)
	v.Close()
	waitLegs(t, s, attachwire.RoleViewer, 0)
	out := logs.String()
	if !strings.Contains(out, "token refused") || !strings.Contains(out, "leg admitted") {
		t.Fatalf("the logs miss the events: %s", out)
	}
	for _, secret := range []string{"SECRETQUERY", good, bad, other, good[:40], other[:40]} {
		if strings.Contains(out, secret) {
			t.Fatalf("the logs hold %q:\n%s", secret, out)
		}
	}
}

// A leg that answers nothing, not even pings, is closed after
// SilenceTimeout.
func TestKeepaliveClosesSilentLeg(t *testing.T) {
	cfg := quiet()
	cfg.PingInterval = 20 * time.Millisecond
	cfg.SilenceTimeout = 100 * time.Millisecond
	s := relaytest.NewServer(t, cfg)
	// The client never reads, so it never answers a ping.
	dialViewer(t, s, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer, attachwire.Subscribe{})
	waitLegs(t, s, attachwire.RoleViewer, 1)
	waitLegs(t, s, attachwire.RoleViewer, 0)
}

// A leg that answers pings stays however long it sends nothing.
func TestKeepaliveKeepsAnsweringLeg(t *testing.T) {
	cfg := quiet()
	// A pong may wait a while for a core on a loaded machine: the
	// timeout leaves it a few intervals, and the wait outlasts it three
	// times.
	cfg.PingInterval = 50 * time.Millisecond
	cfg.SilenceTimeout = 500 * time.Millisecond
	s := relaytest.NewServer(t, cfg)
	h := newAutoHost(t, s, 1) // reads its leg, so it answers pings too
	v := dialViewer(t, s, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer, attachwire.Subscribe{})
	// Reading is what answers pings: the reader runs all along, and the
	// snapshot sent well past the silence timeout still arrives.
	frames := make(chan attachwire.Frame, 16)
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(frames)
		for {
			f, err := v.Next(ctxT(t))
			if err != nil {
				return
			}
			if f.Type == attachwire.TypeSnapshot {
				frames <- f
			}
		}
	})
	defer wg.Wait()
	defer v.WS.CloseNow()
	time.Sleep(3 * cfg.SilenceTimeout)
	h.snapshot("alive")
	f, ok := <-frames
	if !ok {
		t.Fatal("the leg was closed although it answered pings")
	}
	if _, scr := snapshotOf(t, f); text(scr) != "alive" {
		t.Fatalf("got %q", text(scr))
	}
}
