package relay_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
)

// replayHost is a host leg of room on either carrier, declaring
// attachwire.InputDedupHeader or not, reduced to what the redelivery tests need:
// the Input it is written, and an end.
type replayHost struct {
	ws   *host
	lane *laneHost
}

// bindReplayHost binds a host leg of epoch 1 for room on the lane or on
// WebSocket, with the DedupHeader declaration when declare is set, and
// checks the relay's answer to it.
func bindReplayHost(t *testing.T, s *relaytest.Server, lane, declare bool) *replayHost {
	t.Helper()
	hdr := http.Header{}
	if declare {
		hdr.Set(attachwire.InputDedupHeader, attachwire.InputDedupAnyCarrier)
	}
	var got string
	h := &replayHost{}
	if lane {
		tok := s.HostToken(t, room, 1)
		sse, resp, err := relaytest.DialSSEHeader(ctxT(t), relaytest.LaneURL(s.RoomURL(room), "/host/sse?epoch=1"), tok, hdr)
		if err != nil {
			t.Fatalf("host sse: %v (%v)", err, resp)
		}
		t.Cleanup(sse.Close)
		got = resp.Header.Get(attachwire.InputDedupHeader)
		h.lane = &laneHost{t: t, s: s, sse: sse, tok: tok, epoch: 1}
		expectSSE[attachwire.SnapshotRequest](t, sse)
	} else {
		c, resp, err := relaytest.Dial(ctxT(t), s.RoomURL(room), s.HostToken(t, room, 1), &relaytest.DialOptions{Header: hdr})
		if err != nil {
			t.Fatalf("host dial: %v", err)
		}
		t.Cleanup(func() { c.WS.CloseNow() })
		if err := c.SendControl(ctxT(t), attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleHost, Epoch: u64(1)}); err != nil {
			t.Fatal(err)
		}
		got = resp.Header.Get(attachwire.InputDedupHeader)
		h.ws = &host{t: t, c: c, epoch: 1}
		relaytest.ExpectControl[attachwire.SnapshotRequest](t, c)
	}
	if want := map[bool]string{true: attachwire.InputDedupAnyCarrier}[declare]; got != want {
		t.Fatalf("relay answered %s %q, want %q", attachwire.InputDedupHeader, got, want)
	}
	return h
}

// input returns the data of the next Input the host is written.
func (h *replayHost) input(t *testing.T) string {
	t.Helper()
	if h.lane != nil {
		f := nextSSEOf(t, h.lane.sse, attachwire.TypeInput)
		in, err := attachwire.DecodeInput(f.Payload)
		if err != nil {
			t.Fatal(err)
		}
		return string(in.Data)
	}
	return string(hostInput(t, h.ws).Data)
}

// inputs returns the data of the next n Inputs, joined by spaces.
func (h *replayHost) inputs(t *testing.T, n int) string {
	t.Helper()
	got := make([]string, n)
	for i := range got {
		got[i] = h.input(t)
	}
	return strings.Join(got, " ")
}

// end ends the leg as a host going away does, and waits until the relay
// has unbound it.
func (h *replayHost) end(t *testing.T, s *relaytest.Server) {
	t.Helper()
	if h.lane != nil {
		h.lane.sse.Close()
	} else {
		h.ws.c.WS.CloseNow()
	}
	waitHostGone(t, s)
}

// typed sends keys from..to ("k1".."kN") from d with pen generation gen.
func typed(t *testing.T, d *relaytest.Conn, gen uint64, from, to int) {
	t.Helper()
	for i := from; i <= to; i++ {
		input(t, d, uint64(i), gen, "", fmt.Sprintf("k%d", i))
	}
}

// keys returns "kFrom … kTo".
func keys(from, to int) string {
	var ks []string
	for i := from; i <= to; i++ {
		ks = append(ks, fmt.Sprintf("k%d", i))
	}
	return strings.Join(ks, " ")
}

// TestInputReplayedToTheNextHostLeg: Input written to a host leg that
// ended is written again, in order and before new Input, to the next leg
// of the epoch when the next host declares that it dedups on every
// carrier, whatever the carriers; a host that does not declare it gets no
// replay (counted as unreplayed), on the lane too, since the seed's
// carrier keeps its lane dedup set per leg.
func TestInputReplayedToTheNextHostLeg(t *testing.T) {
	cases := []struct {
		name                  string
		firstLane, firstDecl  bool
		secondLane, secondDec bool
		replayed              bool
	}{
		{"websocket then websocket, declared", false, true, false, true, true},
		{"lane then websocket, declared", true, true, false, true, true},
		{"websocket then lane, declared", false, true, true, true, true},
		{"lane then lane, declared", true, true, true, true, true},
		{"lane then lane, undeclared", true, false, true, false, false},
		{"websocket then websocket, undeclared", false, false, false, false, false},
		{"declared, then undeclared", false, true, false, false, false},
		{"lane then websocket, undeclared", true, false, false, false, false},
		{"websocket then lane, undeclared", false, false, true, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := relaytest.NewServer(t, quiet())
			h1 := bindReplayHost(t, s, c.firstLane, c.firstDecl)
			d, gen := driverWithPen(t, s, "alice")
			typed(t, d, gen, 1, 3)
			if got := h1.inputs(t, 3); got != keys(1, 3) {
				t.Fatalf("first leg got %q", got)
			}
			h1.end(t, s)

			h2 := bindReplayHost(t, s, c.secondLane, c.secondDec)
			typed(t, d, gen, 4, 4)
			want, unreplayed := keys(1, 4), 0.0
			if !c.replayed {
				want, unreplayed = keys(4, 4), 3
			}
			if got := h2.inputs(t, len(strings.Fields(want))); got != want {
				t.Fatalf("second leg got %q, want %q", got, want)
			}
			if n := metric(t, s, "ptyhost_relay_inputs_unreplayed_total"); n != unreplayed {
				t.Fatalf("%v inputs counted unreplayed, want %v", n, unreplayed)
			}
			if n := metric(t, s, "ptyhost_relay_inputs_replayed_total"); n != 3-unreplayed {
				t.Fatalf("%v inputs counted replayed, want %v", n, 3-unreplayed)
			}
		})
	}
}

// TestInputReplayWindowBounds: the window keeps only the newest
// ReplayInputs frames, ReplayBytes bytes and ReplayAge of Input: a host
// away longer than the window gets only what is left, the rest is counted
// and logged once.
func TestInputReplayWindowBounds(t *testing.T) {
	cases := []struct {
		name   string
		cfg    relay.Config
		typed  int
		wait   time.Duration // host away before it comes back
		replay string        // what the next leg gets before the next key
		// lost bounds the unreplayed count. The relay's clock is the
		// test's, and moves only by wait: typing takes no time on it.
		lostMin, lostMax float64
	}{
		{"count", relay.Config{ReplayInputs: 4}, 10, 0, keys(7, 10), 0, 0},
		{"bytes", relay.Config{ReplayBytes: stampedSize(t, 8) + stampedSize(t, 9) + stampedSize(t, 10)}, 10, 0, keys(8, 10), 0, 0},
		{"age", relay.Config{ReplayAge: 10 * time.Second}, 10, 30 * time.Second, "", 10, 10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			logs := &testkit.Buffer{}
			cfg := c.cfg
			cfg.Logger = slog.New(slog.NewTextHandler(logs, nil))
			clock := newFakeClock()
			cfg.Now = clock.Now
			s := relaytest.NewServer(t, cfg)
			h1 := bindReplayHost(t, s, false, true)
			d, gen := driverWithPen(t, s, "alice")
			typed(t, d, gen, 1, c.typed)
			if got := h1.inputs(t, c.typed); got != keys(1, c.typed) {
				t.Fatalf("first leg got %q", got)
			}
			h1.end(t, s)
			clock.Advance(c.wait)

			h2 := bindReplayHost(t, s, false, true)
			typed(t, d, gen, c.typed+1, c.typed+1)
			want := strings.TrimSpace(c.replay + " " + keys(c.typed+1, c.typed+1))
			if got := h2.inputs(t, len(strings.Fields(want))); got != want {
				t.Fatalf("second leg got %q, want %q", got, want)
			}
			if n := metric(t, s, "ptyhost_relay_inputs_unreplayed_total"); n < c.lostMin || n > c.lostMax {
				t.Fatalf("%v inputs counted unreplayed, want %v to %v", n, c.lostMin, c.lostMax)
			}
			if n, want := strings.Count(logs.String(), "is not replayed"), min(int(c.lostMin), 1); n != want {
				t.Fatalf("%d log lines about unreplayed input, want %d:\n%s", n, want, logs)
			}
		})
	}
}

// TestInputSwitchAfterQuietSpellWarnsNothing: a lane host upgrading to
// WebSocket half a minute after its last key (the keys long applied,
// older than the window) is a normal switch: nothing is replayed, counted
// or warned about; the window's leaving is logged at debug only.
func TestInputSwitchAfterQuietSpellWarnsNothing(t *testing.T) {
	logs := &testkit.Buffer{}
	cfg := quiet()
	cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	clock := newFakeClock()
	cfg.Now = clock.Now
	s := relaytest.NewServer(t, cfg)
	h1 := bindReplayHost(t, s, true, true)
	d, gen := driverWithPen(t, s, "alice")
	typed(t, d, gen, 1, 3)
	if got := h1.inputs(t, 3); got != keys(1, 3) {
		t.Fatalf("lane leg got %q", got)
	}
	clock.Advance(30 * time.Second)
	h1.end(t, s)
	h2 := bindReplayHost(t, s, false, true)
	typed(t, d, gen, 4, 4)
	if got := h2.input(t); got != "k4" {
		t.Fatalf("WebSocket leg got %q first, want k4", got)
	}
	for _, m := range []string{"ptyhost_relay_inputs_unreplayed_total", "ptyhost_relay_inputs_replayed_total"} {
		if n := metric(t, s, m); n != 0 {
			t.Fatalf("%s %v, want 0", m, n)
		}
	}
	out := logs.String()
	if strings.Contains(out, "level=WARN") {
		t.Fatalf("a normal switch logged a warning:\n%s", out)
	}
	if !strings.Contains(out, "level=DEBUG msg=\"relay: input older than the replay window") {
		t.Fatalf("the window's leaving is not logged at debug:\n%s", out)
	}
}

// stampedSize is the wire size of key i stamped for alice with a
// penGeneration of today's magnitude (its varint is as long).
func stampedSize(t *testing.T, i int) int64 {
	t.Helper()
	in := attachwire.Input{InputSeq: uint64(i), PenGeneration: uint64(time.Now().UnixMicro()), UserID: "alice", Data: []byte(fmt.Sprintf("k%d", i))}
	b, err := in.Frame(0, 0).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return int64(len(b))
}

// TestPenGenerationStartsAtTheWallClock: a room's first penGeneration is
// the wall clock in microseconds, so a room made again after a relay
// restart never hands out a generation its predecessor used.
func TestPenGenerationStartsAtTheWallClock(t *testing.T) {
	before := uint64(time.Now().UnixMicro())
	s := relaytest.NewServer(t, quiet())
	_, gen := driverWithPen(t, s, "alice")
	after := uint64(time.Now().UnixMicro())
	if gen <= before || gen > after+1 {
		t.Fatalf("first penGeneration %d, want in (%d, %d]", gen, before, after+1)
	}
	s.Close()
	s2 := relaytest.NewServer(t, quiet())
	if _, gen2 := driverWithPen(t, s2, "alice"); gen2 <= gen {
		t.Fatalf("penGeneration %d on the restarted relay, want above %d", gen2, gen)
	}
}
