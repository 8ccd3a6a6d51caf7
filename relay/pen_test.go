package relay_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
)

// input sends an Input frame as a viewer does: no userId, header seq = the
// last applied host seq.
func input(t testing.TB, c *relaytest.Conn, seq, gen uint64, user, data string) {
	t.Helper()
	f := attachwire.Input{InputSeq: seq, PenGeneration: gen, UserID: user, Data: []byte(data)}.Frame(0, 0)
	if err := c.Send(ctxT(t), f); err != nil {
		t.Fatalf("send input: %v", err)
	}
}

// hostInput returns the next Input frame the host receives.
func hostInput(t testing.TB, h *host) attachwire.Input {
	t.Helper()
	for {
		f := relaytest.NextFrame(t, h.c)
		if f.Type != attachwire.TypeInput {
			continue
		}
		if f.Seq != 0 || f.RelTime != 0 {
			t.Errorf("relay→host Input header seq %d rel %d, want 0 0", f.Seq, f.RelTime)
		}
		in, err := attachwire.DecodeInput(f.Payload)
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
}

// driverWithPen joins a driver that takes the free pen and returns it with
// the penGeneration it got.
func driverWithPen(t testing.TB, s *relaytest.Server, user string) (*relaytest.Conn, uint64) {
	t.Helper()
	d := dialViewer(t, s, s.DriverToken(t, room, user), attachwire.RoleDriver, attachwire.Subscribe{})
	g := relaytest.ExpectControl[attachwire.PenGranted](t, d)
	if g.UserID != user {
		t.Fatalf("pen granted to %q, want %q", g.UserID, user)
	}
	return d, g.PenGeneration
}

// The holder's Input reaches the host stamped with the token's userId
// (whatever the frame claimed) and header seq 0.
func TestInputUserIDOverwrittenByRelay(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := dialHost(t, s, 1)
	d, gen := driverWithPen(t, s, "alice")
	input(t, d, 1, gen, "mallory", "ls\r")
	in := hostInput(t, h)
	if in.UserID != "alice" || string(in.Data) != "ls\r" || in.InputSeq != 1 || in.PenGeneration != gen {
		t.Fatalf("host got %+v", in)
	}
}

// Input is forwarded only with the current penGeneration AND from the
// holder's connection: a stale generation from the holder itself, and the
// current generation from a non-holder, are both dropped (and acked, with a
// pen_revoked to the sender).
func TestInputDualConditionAdmission(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := dialHost(t, s, 1)
	d, gen := driverWithPen(t, s, "alice")
	other := dialViewer(t, s, s.DriverToken(t, room, "bob"), attachwire.RoleDriver, attachwire.Subscribe{})
	relaytest.ExpectControl[attachwire.PenState](t, other)

	input(t, d, 1, gen-1, "", "stale") // holder, stale generation
	if r := relaytest.ExpectControl[attachwire.PenRevoked](t, d); r.ConnID == "" {
		t.Fatalf("pen_revoked %+v", r)
	}
	if a := relaytest.ExpectControl[attachwire.InputAck](t, d); a.AckInputSeq != 1 {
		t.Fatalf("ack %d after a dropped input, want 1", a.AckInputSeq)
	}
	input(t, other, 1, gen, "", "notyours") // current generation, not the holder
	relaytest.ExpectControl[attachwire.PenRevoked](t, other)
	if a := relaytest.ExpectControl[attachwire.InputAck](t, other); a.AckInputSeq != 1 {
		t.Fatalf("non-holder ack %d, want 1", a.AckInputSeq)
	}
	input(t, d, 2, gen, "", "ok")
	if in := hostInput(t, h); string(in.Data) != "ok" {
		t.Fatalf("host got %q first, want only the admitted input", in.Data)
	}
}

// A viewer-role leg's Input is never forwarded, but it is consumed (acked).
func TestInputFromViewerNeverForwarded(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := dialHost(t, s, 1)
	_, gen := driverWithPen(t, s, "alice")
	v := dialViewer(t, s, s.ViewerToken(t, room, "val"), attachwire.RoleViewer, attachwire.Subscribe{})
	input(t, v, 1, gen, "", "nope")
	if a := relaytest.ExpectControl[attachwire.InputAck](t, v); a.AckInputSeq != 1 {
		t.Fatalf("ack %d", a.AckInputSeq)
	}
	if got := metric(t, s, "ptyhost_relay_inputs_forwarded_total"); got != 0 {
		t.Fatalf("%v inputs forwarded", got)
	}
	_ = h
}

// input_ack is the highest contiguous inputSeq consumed: a duplicate
// re-acks, a gap freezes the ack, and the ack survives a reconnect with the
// same jti.
func TestInputAckContiguity(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := dialHost(t, s, 1)
	tok := s.DriverToken(t, room, "alice")
	d := dialViewer(t, s, tok, attachwire.RoleDriver, attachwire.Subscribe{})
	gen := relaytest.ExpectControl[attachwire.PenGranted](t, d).PenGeneration
	ack := func(want uint64) {
		t.Helper()
		if a := relaytest.ExpectControl[attachwire.InputAck](t, d); a.AckInputSeq != want {
			t.Fatalf("ack %d, want %d", a.AckInputSeq, want)
		}
	}
	input(t, d, 1, gen, "", "a")
	ack(1)
	input(t, d, 1, gen, "", "a") // duplicate
	ack(1)
	input(t, d, 3, gen, "", "c") // gap: frozen
	ack(1)
	input(t, d, 2, gen, "", "b")
	ack(2)
	for _, want := range []string{"a", "b"} {
		if in := hostInput(t, h); string(in.Data) != want {
			t.Fatalf("host got %q, want %q", in.Data, want)
		}
	}
	d.Close()
	waitLegs(t, s, attachwire.RoleDriver, 0)
	d = dialViewer(t, s, tok, attachwire.RoleDriver, attachwire.Subscribe{}) // same jti, within the grace
	input(t, d, 3, gen, "", "c")
	ack(3)
	if in := hostInput(t, h); string(in.Data) != "c" {
		t.Fatalf("after the reconnect the host got %q", in.Data)
	}
}

// A grab within PenCooldown of the last change is refused (pen-denied,
// retryable); after it, the grab takes the pen with notice: the old holder
// is revoked and everyone sees the new generation.
func TestPenGrabCooldown(t *testing.T) {
	cfg := quiet()
	cfg.PenCooldown = time.Hour
	s := relaytest.NewServer(t, cfg)
	driverWithPen(t, s, "alice")
	b := dialViewer(t, s, s.DriverToken(t, room, "bob"), attachwire.RoleDriver, attachwire.Subscribe{})
	relaytest.ExpectControl[attachwire.PenState](t, b)
	if err := b.SendControl(ctxT(t), attachwire.Grab{}); err != nil {
		t.Fatal(err)
	}
	if e := relaytest.ExpectControl[attachwire.ErrorControl](t, b); e.Code != attachwire.CodePenDenied || !e.Retryable {
		t.Fatalf("grab in cooldown: %+v", e)
	}
}

func TestPenGrabAfterCooldownRevokesHolder(t *testing.T) {
	cfg := quiet()
	clock := newFakeClock()
	cfg.Now = clock.Now
	cfg.PenCooldown = time.Minute
	s := relaytest.NewServer(t, cfg)
	a, gen := driverWithPen(t, s, "alice")
	b := dialViewer(t, s, s.DriverToken(t, room, "bob"), attachwire.RoleDriver, attachwire.Subscribe{})
	relaytest.ExpectControl[attachwire.PenState](t, b)
	clock.Advance(time.Minute + time.Nanosecond) // past the cooldown
	if err := b.SendControl(ctxT(t), attachwire.Grab{}); err != nil {
		t.Fatal(err)
	}
	r := relaytest.ExpectControl[attachwire.PenRevoked](t, a)
	g := relaytest.ExpectControl[attachwire.PenGranted](t, a)
	if r.UserID != "alice" || g.UserID != "bob" || g.PenGeneration <= gen {
		t.Fatalf("revoked %+v granted %+v (old generation %d)", r, g, gen)
	}
	if g2 := relaytest.ExpectControl[attachwire.PenGranted](t, b); g2 != g {
		t.Fatalf("bob saw %+v, alice %+v", g2, g)
	}
}

// A viewer leg's grab is refused with pen-denied, and a viewer token
// subscribing as driver is refused and closed (see admission tests).
func TestPenGrabFromViewerDenied(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	v := dialViewer(t, s, s.ViewerToken(t, room, "val"), attachwire.RoleViewer, attachwire.Subscribe{})
	relaytest.ExpectControl[attachwire.PenState](t, v)
	v.SendControl(ctxT(t), attachwire.Grab{})
	if e := relaytest.ExpectControl[attachwire.ErrorControl](t, v); e.Code != attachwire.CodePenDenied {
		t.Fatalf("viewer grab: %+v", e)
	}
}

// The holder's disconnect keeps the pen for PenGrace: the same jti back in
// time keeps it (same generation); otherwise it is released and revoked.
func TestPenGraceKeepsPenForSameJTI(t *testing.T) {
	cfg := quiet()
	cfg.PenGrace = time.Hour
	s := relaytest.NewServer(t, cfg)
	h := dialHost(t, s, 1)
	tok := s.DriverToken(t, room, "alice")
	d := dialViewer(t, s, tok, attachwire.RoleDriver, attachwire.Subscribe{})
	gen := relaytest.ExpectControl[attachwire.PenGranted](t, d).PenGeneration
	d.Close()
	waitLegs(t, s, attachwire.RoleDriver, 0)
	d = dialViewer(t, s, tok, attachwire.RoleDriver, attachwire.Subscribe{})
	if ps := relaytest.ExpectControl[attachwire.PenState](t, d); ps.HolderUserID != "alice" || ps.PenGeneration != gen {
		t.Fatalf("pen_state after the reconnect %+v, want alice at %d", ps, gen)
	}
	input(t, d, 1, gen, "", "still mine")
	if in := hostInput(t, h); string(in.Data) != "still mine" {
		t.Fatalf("host got %q", in.Data)
	}
}

func TestPenGraceExpiryReleasesPen(t *testing.T) {
	cfg := quiet()
	cfg.PenGrace = 50 * time.Millisecond
	s := relaytest.NewServer(t, cfg)
	d, gen := driverWithPen(t, s, "alice")
	w := dialViewer(t, s, s.ViewerToken(t, room, "watch"), attachwire.RoleViewer, attachwire.Subscribe{})
	relaytest.ExpectControl[attachwire.PenState](t, w)
	d.Close()
	r := relaytest.ExpectControl[attachwire.PenRevoked](t, w)
	if r.UserID != "alice" || r.PenGeneration != gen+1 {
		t.Fatalf("pen_revoked %+v, want alice at %d", r, gen+1)
	}
}

// The holder's viewport is the authoritative size, clamped to the relay's
// limits, sent to the host as a seq-0 Resize; a read-only viewer's is not.
func TestResizeFollowsHolderClamped(t *testing.T) {
	cfg := relay.Config{Logger: discardLogger(), MaxCols: 300, MaxRows: 100}
	s := relaytest.NewServer(t, cfg)
	h := dialHost(t, s, 1)
	v := dialViewer(t, s, s.ViewerToken(t, room, "val"), attachwire.RoleViewer,
		attachwire.Subscribe{Viewport: &attachwire.Viewport{Cols: 20, Rows: 5}})
	relaytest.ExpectControl[attachwire.PenState](t, v)
	dialViewer(t, s, s.DriverToken(t, room, "alice"), attachwire.RoleDriver,
		attachwire.Subscribe{Viewport: &attachwire.Viewport{Cols: 500, Rows: 50}})
	f := relaytest.NextFrame(t, h.c)
	rs, err := attachwire.DecodeResize(f.Payload)
	if f.Type != attachwire.TypeResize || err != nil || f.Seq != 0 || rs.Cols != 300 || rs.Rows != 50 {
		t.Fatalf("host got %s seq %d %+v %v, want Resize 300x50", f.Type, f.Seq, rs, err)
	}
}

// presence: a joiner gets the list, the others a join, and a leave when it
// goes; the host is never listed.
func TestPresenceJoinListLeave(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	dialHost(t, s, 1)
	a := dialViewer(t, s, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer, attachwire.Subscribe{})
	if p := relaytest.ExpectControl[attachwire.Presence](t, a); p.Op != attachwire.PresenceList || len(p.Members) != 1 {
		t.Fatalf("first presence %+v", p)
	}
	b := dialViewer(t, s, s.ViewerToken(t, room, "ben"), attachwire.RoleViewer, attachwire.Subscribe{})
	if p := relaytest.ExpectControl[attachwire.Presence](t, b); p.Op != attachwire.PresenceList || len(p.Members) != 2 {
		t.Fatalf("ben's list %+v", p)
	}
	if p := relaytest.ExpectControl[attachwire.Presence](t, a); p.Op != attachwire.PresenceJoin || p.Members[0].UserID != "ben" {
		t.Fatalf("ann saw %+v", p)
	}
	b.Close()
	if p := relaytest.ExpectControl[attachwire.Presence](t, a); p.Op != attachwire.PresenceLeave || p.Members[0].UserID != "ben" {
		t.Fatalf("ann saw %+v", p)
	}
}

// Relay→host Input is never dropped: with no host bound the room's queue
// fills, the driver's further input is not consumed (no ack: the relay has
// stopped reading its socket), and a host binding again gets every key in
// order.
func TestInputQueueFullStopsReadingDriver(t *testing.T) {
	cfg := quiet()
	cfg.HostQueueFrames = 2
	s := relaytest.NewServer(t, cfg)
	h := dialHost(t, s, 1)
	d, gen := driverWithPen(t, s, "alice")
	h.c.Close()
	waitHostGone(t, s)
	for i := uint64(1); i <= 5; i++ {
		input(t, d, i, gen, "", string(rune('a'+i-1)))
	}
	for want := uint64(1); want <= 2; want++ {
		if a := relaytest.ExpectControl[attachwire.InputAck](t, d); a.AckInputSeq != want {
			t.Fatalf("ack %d, want %d", a.AckInputSeq, want)
		}
	}
	time.Sleep(100 * time.Millisecond) // let the relay read more, if it wrongly would
	if n := metric(t, s, "ptyhost_relay_inputs_forwarded_total"); n != 2 {
		t.Fatalf("%v inputs consumed with a queue of 2 and no host", n)
	}
	h = dialHost(t, s, 1)
	var got string
	for range 5 {
		got += string(hostInput(t, h).Data)
	}
	if got != "abcde" {
		t.Fatalf("host got %q, want abcde", got)
	}
	for want := uint64(3); want <= 5; want++ {
		if a := relaytest.ExpectControl[attachwire.InputAck](t, d); a.AckInputSeq != want {
			t.Fatalf("ack %d after the drain, want %d", a.AckInputSeq, want)
		}
	}
}

// A driver held back by a full host queue is not closed as silent: the
// relay stopped reading it, not the other way round. The driver's client
// reads all along, as a real one does, so it answers every ping the relay
// sends before the queue fills; once the relay stops reading it, the
// relay could not see a pong anyway.
func TestInputQueueFullDriverNotClosedAsSilent(t *testing.T) {
	cfg := quiet()
	cfg.HostQueueFrames = 1
	cfg.PingInterval = 20 * time.Millisecond
	cfg.SilenceTimeout = 100 * time.Millisecond
	s := relaytest.NewServer(t, cfg)
	h := newAutoHost(t, s, 1)
	d, gen := driverWithPen(t, s, "alice")
	frames := readAll(t, d)
	h.c.WS.CloseNow()
	waitHostGone(t, s)
	input(t, d, 1, gen, "", "a")
	input(t, d, 2, gen, "", "b") // waits for room
	for acked := false; !acked; {
		f, ok := <-frames
		if !ok {
			t.Fatal("the driver's leg closed before its first ack")
		}
		if c, err := attachwire.DecodeControl(f.Payload); err == nil && f.Type == attachwire.TypeControl {
			_, acked = c.(attachwire.InputAck)
		}
	}
	time.Sleep(400 * time.Millisecond) // several silence timeouts
	if n := metric(t, s, `ptyhost_relay_legs{role="driver"}`); n != 1 {
		t.Fatalf("%v driver legs after waiting on the queue", n)
	}
}

// readAll reads c on a goroutine until it closes, so that the client
// answers pings, and hands the frames over on the returned channel, which
// is closed when the leg ends. The goroutine is joined when the test ends.
func readAll(t testing.TB, c *relaytest.Conn) <-chan attachwire.Frame {
	frames := make(chan attachwire.Frame, 1024)
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(frames)
		for {
			f, err := c.Next(context.Background())
			if err != nil {
				return
			}
			select {
			case frames <- f:
			default: // nobody is looking at this many: only liveness counts
			}
		}
	})
	t.Cleanup(func() {
		c.WS.CloseNow()
		wg.Wait()
	})
	return frames
}

// A holder's Input stamped with a generation from before the pen's last
// change (the pen taken back and grabbed again while it was on its way)
// is refused with a pen_revoked naming the holder, and then the pen's
// state: read in order, as a client keeps the newest generation, the
// holder still holds the pen, and its next key reaches the host.
func TestPenRefusedHolderKeepsThePen(t *testing.T) {
	cfg := quiet()
	clock := newFakeClock()
	cfg.Now = clock.Now
	cfg.PenCooldown = time.Minute
	s := relaytest.NewServer(t, cfg)
	h := dialHost(t, s, 1)
	d, old := driverWithPen(t, s, "alice")
	if err := h.c.SendControl(ctxT(t), attachwire.PenTake{}); err != nil {
		t.Fatal(err)
	}
	relaytest.ExpectControl[attachwire.PenRevoked](t, d)
	// The revoke may reach the driver before the relay stamps the change's
	// time: a grab in the cooldown is refused, and tried again later.
	var gen uint64
	for gen == 0 {
		clock.Advance(time.Minute + time.Nanosecond)
		if err := d.SendControl(ctxT(t), attachwire.Grab{}); err != nil {
			t.Fatal(err)
		}
		for answered := false; !answered; {
			switch c := nextControl(t, d).(type) {
			case attachwire.PenGranted:
				gen, answered = c.PenGeneration, true
			case attachwire.ErrorControl:
				if c.Code != attachwire.CodePenDenied || !c.Retryable {
					t.Fatalf("grab: %+v", c)
				}
				answered = true
			}
		}
	}

	ty := newTypist(t, d, "alice")
	ty.mu.Lock()
	ty.holding, ty.gen = true, gen
	ty.mu.Unlock()
	input(t, d, 1, old, "", "stale")
	// The ack comes after whatever the refusal sent.
	ty.until("the stale key's ack", func() bool { return ty.acked == 1 })
	ty.mu.Lock()
	holding := ty.holding
	ty.next = 1
	ty.mu.Unlock()
	if !holding {
		t.Fatalf("after the refusal: holding %v, want the pen it holds", holding)
	}
	ty.typeKey("fresh")
	if in := hostInput(t, h); string(in.Data) != "fresh" {
		t.Fatalf("host got %q, want fresh (the stale key refused)", in.Data)
	}
}
