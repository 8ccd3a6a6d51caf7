package relay_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
)

const room = "sess-1"

// quiet returns a config whose logs go nowhere.
func quiet() relay.Config {
	return relay.Config{Logger: discardLogger()}
}

func u64(v uint64) *uint64 { return &v }

// fakeClock is a Config.Now that moves only when the test moves it, so a
// test steps past a cooldown or a window instead of sleeping through it.
// It starts at the real time: tokens minted now stay valid on it.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Now()} }

// Now is the relay's clock.
func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock d forward.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), relaytest.Timeout)
	t.Cleanup(cancel)
	return ctx
}

// screen returns a one-row screen of epoch whose text is s.
func screen(epoch uint64, s string) *attachwire.Screen {
	cells := make([]attachwire.Cell, 8)
	for i := range cells {
		cells[i] = attachwire.BlankCell()
		if i < len(s) {
			cells[i] = attachwire.Cell{Content: s[i : i+1]}
		}
	}
	return &attachwire.Screen{Epoch: epoch, Echo: attachwire.EchoOn, Cols: 8, Rows: 1, Primary: cells, CursorVisible: true}
}

// host is a test host leg: it numbers its frames as a ptyhost session does.
type host struct {
	t     testing.TB
	c     *relaytest.Conn
	epoch uint64
	seq   uint64 // last seq sent
}

// dialHost binds a host leg for room with epoch and returns it after the
// relay's first snapshot_request (every bind ends with one).
func dialHost(t testing.TB, s *relaytest.Server, epoch uint64) *host {
	t.Helper()
	h := dialHostNoWait(t, s, epoch)
	if r := relaytest.ExpectControl[attachwire.SnapshotRequest](t, h.c); r.Reason != attachwire.SnapshotResync {
		t.Fatalf("first snapshot_request reason %q, want resync", r.Reason)
	}
	return h
}

func dialHostNoWait(t testing.TB, s *relaytest.Server, epoch uint64) *host {
	t.Helper()
	c := relaytest.MustDial(t, s.RoomURL(room), s.HostToken(t, room, epoch),
		attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleHost, Epoch: u64(epoch)})
	return &host{t: t, c: c, epoch: epoch}
}

func (h *host) send(f attachwire.Frame) {
	h.t.Helper()
	if err := h.c.Send(ctxT(h.t), f); err != nil {
		h.t.Fatalf("host send: %v", err)
	}
}

// output sends the next Output frame.
func (h *host) output(p string) uint64 {
	h.seq++
	h.send(attachwire.NewOutputFrame(h.seq, h.seq, []byte(p)))
	return h.seq
}

// snapshot sends an in-stream snapshot showing text (atSeq = its seq - 1).
func (h *host) snapshot(text string) uint64 {
	h.t.Helper()
	h.seq++
	sn, err := attachwire.NewSnapshot(h.seq-1, screen(h.epoch, text))
	if err != nil {
		h.t.Fatal(err)
	}
	f, err := sn.Frame(h.seq, h.seq)
	if err != nil {
		h.t.Fatal(err)
	}
	h.send(f)
	return h.seq
}

// exit sends the Exit frame.
func (h *host) exit(code uint32) uint64 {
	h.seq++
	h.send(attachwire.Exit{Code: code}.Frame(h.seq, h.seq))
	return h.seq
}

// viewer dials a viewer or driver leg with sub filled in for room.
func dialViewer(t testing.TB, s *relaytest.Server, tok string, role attachwire.Role, sub attachwire.Subscribe) *relaytest.Conn {
	t.Helper()
	sub.SessionID, sub.AsRole = room, role
	return relaytest.MustDial(t, s.RoomURL(room), tok, sub)
}

// outputOf returns the payload of an Output frame, failing on another type.
func outputOf(t testing.TB, f attachwire.Frame) string {
	t.Helper()
	if f.Type != attachwire.TypeOutput {
		t.Fatalf("got %s seq %d, want Output", f.Type, f.Seq)
	}
	return string(f.Payload)
}

// snapshotOf decodes a Snapshot frame, failing on another type.
func snapshotOf(t testing.TB, f attachwire.Frame) (attachwire.Snapshot, attachwire.Screen) {
	t.Helper()
	if f.Type != attachwire.TypeSnapshot {
		t.Fatalf("got %s seq %d, want Snapshot", f.Type, f.Seq)
	}
	sn, err := attachwire.DecodeSnapshot(f.Payload)
	if err != nil {
		t.Fatal(err)
	}
	scr, err := sn.DecodeScreen()
	if err != nil {
		t.Fatal(err)
	}
	return sn, scr
}

// text returns a screen's first row.
func text(scr attachwire.Screen) string {
	return testkit.Row(scr.Primary, scr.Cols, 0)
}

// expectClosed checks how the relay ended a leg.
func expectClosed(t testing.TB, c *relaytest.Conn, status websocket.StatusCode, code attachwire.ErrorCode) relaytest.Closed {
	t.Helper()
	cl := relaytest.ExpectClose(t, c)
	if cl.Status != status {
		t.Errorf("close status %v (%q), want %v", cl.Status, cl.Reason, status)
	}
	if code != "" && (cl.Err == nil || cl.Err.Code != code) {
		t.Errorf("error control before the close %+v, want code %q", cl.Err, code)
	}
	return cl
}

// metric returns the value of one sample line of /metrics ("name{labels}"),
// 0 when absent.
func metric(t testing.TB, s *relaytest.Server, sample string) float64 {
	t.Helper()
	_, body := s.Get(t, "/metrics")
	for line := range strings.SplitSeq(body, "\n") {
		if v, ok := strings.CutPrefix(line, sample+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("metric %s: %v", sample, err)
			}
			return f
		}
	}
	return 0
}

// waitHostGone waits until the room has no host leg.
func waitHostGone(t testing.TB, s *relaytest.Server) {
	t.Helper()
	testkit.Eventually(t, "host leg gone", func() bool { return metric(t, s, `ptyhost_relay_legs{role="host"}`) == 0 })
}

func contextWithTimeout(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}

// waitLegs waits until the relay counts n legs of role.
func waitLegs(t testing.TB, s *relaytest.Server, role attachwire.Role, n float64) {
	t.Helper()
	testkit.Eventually(t, "leg count", func() bool { return metric(t, s, `ptyhost_relay_legs{role="`+string(role)+`"}`) == n })
}
