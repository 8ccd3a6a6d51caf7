package viewer_test

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/viewer"
)

// A viewer that joins after the program drew its screen gets that screen
// (from a Snapshot), then follows live output.
func TestLateJoinGetsTheScreen(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := newHost(t, s, 1, 80, 24)
	h.output([]byte("\x1b[2J\x1b[Hfirst line\r\n\x1b[1;31msecond\x1b[0m line\r\n"))
	h.output([]byte("\x1b[5;10Hplaced"))
	c, rec := dial(t, s.URL, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer)
	waitMirror(t, c, h)
	if rec.count(viewer.EventSnapshot) == 0 {
		t.Fatal("no Snapshot event for a late join")
	}
	h.output([]byte("\r\nlive"))
	waitMirror(t, c, h)
}

// After a cut, a viewer whose position is still in the relay's ring gets
// only what it missed: no new Snapshot.
func TestResumeAfterCutRingHit(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	p := newProxy(t, s)
	h := newHost(t, s, 1, 40, 10)
	h.output([]byte("before"))
	c, rec := dial(t, p.URL, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer)
	waitMirror(t, c, h)
	snaps := rec.count(viewer.EventSnapshot)
	p.cut()
	for i := range 5 {
		h.output(fmt.Appendf(nil, "\r\nmissed %d", i))
	}
	waitMirror(t, c, h)
	if rec.count(viewer.EventConnection) < 2 {
		t.Fatal("the cut was not seen")
	}
	if got := rec.count(viewer.EventSnapshot); got != snaps {
		t.Fatalf("%d Snapshot events after a ring hit, want none", got-snaps)
	}
}

// After a cut longer than the ring, the viewer gets a Snapshot plus the
// tail, and its mirror still equals the host's screen.
func TestResumeAfterCutRingMiss(t *testing.T) {
	cfg := quiet()
	cfg.RingBytes = 4 << 10
	s := relaytest.NewServer(t, cfg)
	p := newProxy(t, s)
	h := newHost(t, s, 1, 40, 10)
	h.output([]byte("before"))
	c, rec := dial(t, p.URL, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer)
	waitMirror(t, c, h)
	snaps := rec.count(viewer.EventSnapshot)
	p.cut()
	for i := range 200 {
		h.output(fmt.Appendf(nil, "\r\nmissed line %d %s", i, strings.Repeat("x", 40)))
	}
	waitMirror(t, c, h)
	if got := rec.count(viewer.EventSnapshot); got == snaps {
		t.Fatal("no Snapshot after a ring miss")
	}
}

// Input reaches the host once, in order, across a reconnect: what was
// typed while the leg was down is resent after the last ack.
func TestInputAcrossReconnect(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	p := newProxy(t, s)
	h := newHost(t, s, 1, 40, 10)
	h.output([]byte("$ "))
	c, _ := dial(t, p.URL, s.DriverToken(t, room, "dan"), attachwire.RoleDriver)
	testkit.Eventually(t, "the pen", func() bool { return c.Pen().Mine })
	if err := c.Input([]byte("abc")); err != nil {
		t.Fatal(err)
	}
	h.expectInput("abc")
	testkit.Eventually(t, "ack", func() bool { return viewer.PendingInput(c) == 0 })
	p.cut()
	for _, k := range []string{"d", "e", "f"} {
		if err := c.Input([]byte(k)); err != nil {
			t.Fatal(err)
		}
	}
	h.expectInput("def")
	testkit.Eventually(t, "acks after the reconnect", func() bool { return viewer.PendingInput(c) == 0 })
	h.noInput()
}

// The pen moves between two drivers by grab; only the holder's Input
// reaches the host.
func TestPenHandoffBetweenDrivers(t *testing.T) {
	cfg := quiet()
	cfg.PenCooldown = time.Millisecond
	s := relaytest.NewServer(t, cfg)
	h := newHost(t, s, 1, 40, 10)
	h.output([]byte("$ "))
	a, _ := dial(t, s.URL, s.DriverToken(t, room, "ann"), attachwire.RoleDriver)
	testkit.Eventually(t, "ann holds the pen", func() bool { return a.Pen().Mine })
	b, _ := dial(t, s.URL, s.DriverToken(t, room, "bob"), attachwire.RoleDriver)
	testkit.Eventually(t, "bob sees ann's pen", func() bool { return b.Pen().HolderUserID == "ann" })
	if err := b.Input([]byte("x")); !errors.Is(err, viewer.ErrNoPen) {
		t.Fatalf("bob's Input without the pen: %v, want ErrNoPen", err)
	}
	if err := a.Input([]byte("a1")); err != nil {
		t.Fatal(err)
	}
	h.expectInput("a1")
	if err := b.Grab(); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "bob holds the pen", func() bool { return b.Pen().Mine })
	testkit.Eventually(t, "ann lost the pen", func() bool { return !a.Pen().Mine && a.Pen().HolderUserID == "bob" })
	if err := a.Input([]byte("late")); !errors.Is(err, viewer.ErrNoPen) {
		t.Fatalf("ann's Input after the handoff: %v, want ErrNoPen", err)
	}
	if err := b.Input([]byte("b1")); err != nil {
		t.Fatal(err)
	}
	h.expectInput("b1")
	h.noInput()
}

// A viewer token can neither drive nor grab, and presence lists both legs.
func TestViewerCannotDrive(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	newHost(t, s, 1, 40, 10)
	v, _ := dial(t, s.URL, s.ViewerToken(t, room, "vic"), attachwire.RoleViewer)
	d, _ := dial(t, s.URL, s.DriverToken(t, room, "dan"), attachwire.RoleDriver)
	testkit.Eventually(t, "dan holds the pen", func() bool { return d.Pen().Mine })
	if err := v.Grab(); !errors.Is(err, viewer.ErrViewerRole) {
		t.Fatalf("Grab with a viewer token: %v", err)
	}
	if err := v.Input([]byte("x")); !errors.Is(err, viewer.ErrNoPen) {
		t.Fatalf("Input with a viewer token: %v", err)
	}
	testkit.Eventually(t, "presence of both", func() bool { return len(v.Presence()) == 2 })
}

// Exit ends the Client with the session's status, and the final mirror
// equals the host's screen.
func TestExitEndsTheClient(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := newHost(t, s, 1, 40, 10)
	c, rec := dial(t, s.URL, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer)
	h.output([]byte("bye"))
	waitMirror(t, c, h)
	h.exit(3)
	select {
	case <-c.Done():
	case <-time.After(relaytest.Timeout):
		t.Fatal("the Client did not end after Exit")
	}
	ex, ok := c.Exit()
	if !ok || ex.Code != 3 || c.Err() != nil {
		t.Fatalf("Exit %+v %v, Err %v", ex, ok, c.Err())
	}
	if rec.count(viewer.EventExit) != 1 {
		t.Fatal("no Exit event")
	}
}

// Refusals come back from Dial, typed: a bad token is refused, a dead
// address is unreachable, a viewer token asking to drive is refused.
func TestDialErrors(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	ctx, cancel := context.WithTimeout(context.Background(), relaytest.Timeout)
	defer cancel()
	good := s.ViewerToken(t, room, "ann")
	parts := strings.Split(good, ".")
	forged := parts[0] + "." + parts[1] + "." + strings.Repeat("A", len(parts[2]))
	_, err := viewer.Dial(ctx, viewer.Config{URL: s.RoomURL(room), Token: forged})
	var re *viewer.RefusedError
	if !errors.Is(err, viewer.ErrRefused) || !errors.As(err, &re) || re.Status != 401 {
		t.Fatalf("forged token: %v", err)
	}
	_, err = viewer.Dial(ctx, viewer.Config{URL: "ws://127.0.0.1:1/v1/rooms/" + room, Token: good})
	if !errors.Is(err, viewer.ErrUnreachable) {
		t.Fatalf("dead address: %v", err)
	}
	_, err = viewer.Dial(ctx, viewer.Config{URL: s.RoomURL(room), Token: "not-a-token"})
	if !errors.Is(err, viewer.ErrConfig) {
		t.Fatalf("malformed token: %v", err)
	}
	c, err := viewer.Dial(ctx, viewer.Config{URL: s.RoomURL(room), Token: good, Role: attachwire.RoleDriver})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	select {
	case <-c.Done():
	case <-time.After(relaytest.Timeout):
		t.Fatal("a viewer token asking to drive was not refused")
	}
	if !errors.As(c.Err(), &re) || re.Code != attachwire.CodePenDenied {
		t.Fatalf("viewer token as driver: %v", c.Err())
	}
}

// A relay that is down: Dial's error is the WebSocket dial's (the
// primary path), with the degraded lane's failure after it, not the
// lane's alone.
func TestDialUnreachableReportsWebSocket(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), relaytest.Timeout)
	defer cancel()
	_, err = viewer.Dial(ctx, viewer.Config{
		URL: "ws://" + addr + "/v1/rooms/" + room, Token: s.ViewerToken(t, room, "ann"),
		BackoffMin: time.Millisecond, BackoffMax: 10 * time.Millisecond,
	})
	if !errors.Is(err, viewer.ErrUnreachable) {
		t.Fatalf("dead address: %v", err)
	}
	msg := err.Error()
	ws, lane := strings.Index(msg, "WebSocket dial"), strings.Index(msg, "/sse")
	if !strings.HasPrefix(msg, "viewer: relay unreachable: ") || ws < 0 || (lane >= 0 && lane < ws) {
		t.Fatalf("error %q does not lead with the WebSocket dial's failure", msg)
	}
}

// A driver token watching read-only (asRole viewer) can still take the
// pen: Grab subscribes again as a driver, resuming, and the mirror goes
// on without a new Snapshot.
func TestGrabFromAReadOnlyLeg(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := newHost(t, s, 1, 40, 10)
	h.output([]byte("watching"))
	c, rec := dial(t, s.URL, s.DriverToken(t, room, "dan"), attachwire.RoleViewer)
	waitMirror(t, c, h)
	if c.Pen().Mine {
		t.Fatal("a read-only leg took the pen")
	}
	snaps := rec.count(viewer.EventSnapshot)
	if err := c.Grab(); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "the pen", func() bool { return c.Pen().Mine })
	if err := c.Input([]byte("typed")); err != nil {
		t.Fatal(err)
	}
	h.expectInput("typed")
	h.output([]byte(" more"))
	waitMirror(t, c, h)
	if got := rec.count(viewer.EventSnapshot); got != snaps {
		t.Fatalf("%d Snapshots after the re-subscribe, want a ring hit", got-snaps)
	}
}

// A planned relay restart (Shutdown: host-reconnecting, then close 1012)
// is not the end: the viewer redials, lands on the next relay and follows
// the host there from a Snapshot.
func TestReconnectAfterRelayRestart(t *testing.T) {
	s1 := relaytest.NewServer(t, quiet())
	cfg2 := quiet()
	cfg2.PublicKeys = []ed25519.PublicKey{s1.Key.Public().(ed25519.PublicKey)}
	s2 := relaytest.NewServer(t, cfg2)
	p := newProxy(t, s1)
	h1 := newHost(t, s1, 1, 40, 10)
	h1.output([]byte("on the first relay"))
	c, rec := dial(t, p.URL, s1.ViewerToken(t, room, "ann"), attachwire.RoleViewer)
	waitMirror(t, c, h1)
	p.retarget(s2)
	ctx, cancel := context.WithTimeout(context.Background(), relaytest.Timeout)
	defer cancel()
	if err := s1.Relay.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	h2 := newHost(t, s2, 2, 40, 10)
	h2.output([]byte("\x1b[2J\x1b[Hon the second relay"))
	waitMirror(t, c, h2)
	if c.Err() != nil {
		t.Fatalf("the Client ended: %v", c.Err())
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	sawReconnecting := false
	for _, ev := range rec.events {
		sawReconnecting = sawReconnecting || (ev.Kind == viewer.EventRoom && ev.Room == attachwire.RoomHostReconnecting)
	}
	if !sawReconnecting {
		t.Error("no host-reconnecting room state before the restart")
	}
}

// A host that goes away shows as room states, and its return resumes the
// mirror: host-reconnecting while it is gone, live again after.
func TestHostGoneAndBack(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h1 := newHost(t, s, 1, 40, 10)
	h1.output([]byte("first host"))
	c, _ := dial(t, s.URL, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer)
	waitMirror(t, c, h1)
	h1.close()
	testkit.Eventually(t, "host-reconnecting", func() bool { return c.Room() == attachwire.RoomHostReconnecting })
	h2 := newHost(t, s, 2, 40, 10)
	h2.output([]byte("second host"))
	testkit.Eventually(t, "live", func() bool { return c.Room() == attachwire.RoomLive })
	waitMirror(t, c, h2)
}

// After a relay restart the new relay counts inputSeq from 1 again: the
// driver renumbers what it has pending from the relay's ack+1 and its
// keys still reach the host.
func TestInputAfterRelayRestart(t *testing.T) {
	s1 := relaytest.NewServer(t, quiet())
	cfg2 := quiet()
	cfg2.PublicKeys = []ed25519.PublicKey{s1.Key.Public().(ed25519.PublicKey)}
	s2 := relaytest.NewServer(t, cfg2)
	p := newProxy(t, s1)
	h1 := newHost(t, s1, 1, 40, 10)
	h1.output([]byte("$ "))
	c, _ := dial(t, p.URL, s1.DriverToken(t, room, "dan"), attachwire.RoleDriver)
	testkit.Eventually(t, "the pen", func() bool { return c.Pen().Mine })
	if err := c.Input([]byte("abc")); err != nil {
		t.Fatal(err)
	}
	h1.expectInput("abc")
	testkit.Eventually(t, "ack", func() bool { return viewer.PendingInput(c) == 0 })
	p.retarget(s2)
	ctx, cancel := context.WithTimeout(context.Background(), relaytest.Timeout)
	defer cancel()
	if err := s1.Relay.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	h2 := newHost(t, s2, 2, 40, 10)
	h2.output([]byte("$ "))
	waitMirror(t, c, h2)
	testkit.Eventually(t, "the pen on the new relay", func() bool { return c.Pen().Mine })
	if err := c.Input([]byte("def")); err != nil {
		t.Fatal(err)
	}
	h2.expectInput("def")
	testkit.Eventually(t, "acks on the new relay", func() bool { return viewer.PendingInput(c) == 0 })
}

// A Client that joins after the session ended, over WebSocket or the lane,
// learns its exit status: the relay serves the cached final screen at the
// seq before Exit and the Exit frame after it, and the Client ends on that
// Exit with the final screen in its EventSnapshot.
func TestLateJoinerLearnsTheExitStatus(t *testing.T) {
	for _, carrier := range []string{"websocket", "lane"} {
		t.Run(carrier, func(t *testing.T) {
			s := relaytest.NewServer(t, quiet())
			h := newHost(t, s, 1, 40, 10)
			h.output([]byte("last words\r\n"))
			h.exit(5)
			// The final snapshot is cached once a fresh leg starts from
			// a seq-0 snapshot (before, an in-ring one and its tail).
			testkit.Eventually(t, "the post-Exit snapshot cached", func() bool {
				p := relaytest.MustDial(t, s.RoomURL(room), s.ViewerToken(t, room, "probe"),
					attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer})
				defer p.Close()
				f := relaytest.NextFrame(t, p)
				return f.Type == attachwire.TypeSnapshot && f.Seq == 0
			})
			want, _ := h.screen()
			h.close()
			var c *viewer.Client
			var rec *recorder
			if carrier == "lane" {
				g := newGate(t, s)
				g.blockWS.Store(-1)
				c, rec = laneDial(t, g.URL, s.DriverToken(t, room, "late"))
			} else {
				c, rec = dial(t, s.URL, s.ViewerToken(t, room, "late"), attachwire.RoleViewer)
			}
			select {
			case <-c.Done():
			case <-time.After(relaytest.Timeout):
				t.Fatal("the Client did not end in the ended room")
			}
			ex, ok := c.Exit()
			if !ok || ex.Code != 5 || c.Err() != nil {
				t.Fatalf("Exit %+v known %v, Err %v; want code 5", ex, ok, c.Err())
			}
			if carrier == "lane" && !c.Lane() {
				t.Fatal("the Client did not ride the lane")
			}
			rec.mu.Lock()
			defer rec.mu.Unlock()
			var kinds []viewer.EventKind
			var final *attachwire.Screen
			for _, ev := range rec.events {
				switch ev.Kind {
				case viewer.EventExit:
					kinds = append(kinds, ev.Kind)
				case viewer.EventSnapshot:
					kinds = append(kinds, ev.Kind)
					final = ev.Screen
				}
			}
			if len(kinds) != 2 || kinds[0] != viewer.EventSnapshot || kinds[1] != viewer.EventExit {
				t.Fatalf("events %v, want Snapshot then Exit", kinds)
			}
			if d := screenDiff(want, *final); d != "" {
				t.Fatalf("final screen: %s", d)
			}
			// The ended Client still shows its last screen (this
			// panicked once the engine was released).
			scr, _, ok := c.Mirror()
			if !ok {
				t.Fatal("Mirror after the end: no screen")
			}
			if d := screenDiff(want, scr); d != "" {
				t.Fatalf("Mirror after the end: %s", d)
			}
		})
	}
}

// InputWait takes input larger than MaxPendingInput: it queues what fits
// and waits for acks to make room for the rest, so the host gets all of it
// once, in order, where Input refuses it whole (ErrInputFull). A terminal
// (ptyhost attach) feeds its reads to InputWait, so a paste past the bound
// is delayed, never cut.
func TestInputWaitTakesMoreThanMaxPendingInput(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := newHost(t, s, 1, 40, 10)
	h.output([]byte("$ "))
	ctx, cancel := context.WithTimeout(context.Background(), relaytest.Timeout)
	defer cancel()
	c, err := viewer.Dial(ctx, viewer.Config{
		URL: s.URL + "/v1/rooms/" + room, Token: s.DriverToken(t, room, "dan"), Role: attachwire.RoleDriver,
		Viewport: attachwire.Viewport{Cols: 80, Rows: 24}, MaxPendingInput: 1000,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	testkit.Eventually(t, "the pen", func() bool { return c.Pen().Mine })
	var paste strings.Builder
	for i := 0; paste.Len() < 10_000; i++ {
		fmt.Fprintf(&paste, "[%05d]", i)
	}
	if err := c.Input([]byte(paste.String())); !errors.Is(err, viewer.ErrInputFull) {
		t.Fatalf("Input of %d bytes past a bound of 1000: %v, want ErrInputFull", paste.Len(), err)
	}
	if err := c.InputWait(ctx, []byte(paste.String())); err != nil {
		t.Fatalf("InputWait: %v", err)
	}
	h.expectInput(paste.String())
	testkit.Eventually(t, "the acks", func() bool { return viewer.PendingInput(c) == 0 })
	h.noInput()
}
