package attachclient_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/faultproxy"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/viewer"
)

// viewerDoor is the viewers' way to the relay: a fault proxy of their own,
// so that breaking WebSocket or cutting connections for them leaves the
// host's alone.
type viewerDoor struct{ *faultproxy.Proxy }

func newViewerDoor(t testing.TB, srv *relaytest.Server) viewerDoor {
	p, err := faultproxy.New(strings.TrimPrefix(srv.URL, "ws://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return viewerDoor{p}
}

func (d viewerDoor) roomURL(room string) string { return "ws://" + d.Addr() + "/v1/rooms/" + room }

// laneViewer is a viewer.Client and what it has seen.
type laneViewer struct {
	c *viewer.Client

	mu     sync.Mutex
	output strings.Builder // every Output event's bytes, in order
	seqs   []uint64        // seqs of the frames since the last snapshot (its atSeq first)
	bad    string          // the first broken seq order seen
	snaps  []*attachwire.Screen
	exit   *attachwire.Exit
}

func dialLaneViewer(t testing.TB, url, tok string, role attachwire.Role) *laneViewer {
	t.Helper()
	lv := &laneViewer{}
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	c, err := viewer.Dial(context.Background(), viewer.Config{
		URL:           url,
		Token:         tok,
		Role:          role,
		Viewport:      attachwire.Viewport{Cols: 90, Rows: 25},
		BackoffMin:    10 * time.Millisecond,
		BackoffMax:    100 * time.Millisecond,
		ProbeInterval: laneProbe,
		HTTPClient:    &http.Client{Transport: tr},
		OnEvent:       lv.event,
	})
	if err != nil {
		t.Fatal(err)
	}
	lv.c = c
	t.Cleanup(func() { c.Close() })
	return lv
}

func (lv *laneViewer) event(ev viewer.Event) {
	lv.mu.Lock()
	defer lv.mu.Unlock()
	switch ev.Kind {
	case viewer.EventOutput, viewer.EventResize, viewer.EventMarker, viewer.EventExit:
		// Every seq-bearing frame comes after the one before it: none
		// twice. (Seqs may skip: a Snapshot in the stream takes one and
		// shows as no event when the mirror needs none. A lost Output
		// shows in the keys' echoes.)
		if n := len(lv.seqs); n > 0 && ev.Seq <= lv.seqs[n-1] && lv.bad == "" {
			lv.bad = fmt.Sprintf("seq %d (event kind %d) after %d", ev.Seq, ev.Kind, lv.seqs[n-1])
		}
		lv.seqs = append(lv.seqs, ev.Seq)
	case viewer.EventSnapshot:
		lv.snaps = append(lv.snaps, ev.Screen)
		lv.seqs = append(lv.seqs[:0], ev.Seq)
	}
	switch ev.Kind {
	case viewer.EventOutput:
		lv.output.Write(ev.Data)
	case viewer.EventExit:
		e := ev.Exit
		lv.exit = &e
	}
}

// until polls cond (under the viewer's lock) until it holds.
func (lv *laneViewer) until(t testing.TB, what string, cond func(lv *laneViewer) bool) {
	t.Helper()
	testkit.EventuallyDescribe(t, what, func() bool {
		lv.mu.Lock()
		defer lv.mu.Unlock()
		return cond(lv)
	}, func() string {
		lv.mu.Lock()
		defer lv.mu.Unlock()
		return fmt.Sprintf("lane %v, room %s, output tail %q", lv.c.Lane(), lv.c.Room(), tail(lv.output.String()))
	})
}

func (lv *laneViewer) sees(s string) func(*laneViewer) bool {
	return func(lv *laneViewer) bool { return strings.Contains(lv.output.String(), s) }
}

// typeLine sends one line and waits for the child's echo of it.
func (lv *laneViewer) typeLine(t testing.TB, line, echo string) {
	t.Helper()
	if err := lv.c.Input([]byte(line + "\n")); err != nil {
		t.Fatal(err)
	}
	lv.until(t, "the echo "+echo, lv.sees(echo))
}

// TestLaneBothCarriersWholeSession walks a whole session through with the
// real clients on both sides: WebSocket refused three times for the host
// (through the fault proxy) and for the viewers (through their door) →
// host and viewers on the lane → output, input, resize and a joiner's
// snapshot over it → WebSocket allowed again → both upgrade back within
// the probe interval while a key is typed every 10 ms, each key echoed
// exactly once and Output seqs contiguous → WebSocket broken and every
// connection cut → back on the lane → the relay's kill, the Exit, and a
// late joiner's post-Exit snapshot, all over the lane.
func TestLaneBothCarriersWholeSession(t *testing.T) {
	r := newRig(t, "lines", fastRelay())
	r.proxy.RefuseUpgrades(true)
	srv := r.srv.Load()
	door := newViewerDoor(t, srv)
	door.RefuseUpgrades(true)
	cfg := r.config()
	cfg.UpgradeProbeInterval = laneProbe
	r.start(t, cfg)

	d := dialLaneViewer(t, door.roomURL(r.room), srv.DriverToken(t, r.room, "dan"), attachwire.RoleDriver)
	d.until(t, "the driver on the lane, the pen, the host on the lane", func(lv *laneViewer) bool {
		return lv.c.Lane() && lv.c.Pen().Mine && lv.c.Room() == attachwire.RoomDegraded
	})
	if n := door.Stats().RefusedUpgrades; n < 3 {
		t.Fatalf("the driver is on the lane after %d refused dials, want 3", n)
	}
	if s := r.proxy.Stats(); s.RefusedUpgrades < 3 {
		t.Fatalf("the host is on the lane after %d refused dials, want 3", s.RefusedUpgrades)
	}

	// Output and input over both lanes.
	for i := 1; i <= 10; i++ {
		d.typeLine(t, fmt.Sprintf("a%03d", i), fmt.Sprintf("GOT<a%03d>", i))
	}
	// Resize: the pen holder's viewport reaches the child over the lane.
	if err := d.c.Resize(101, 31); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(watchdog)
	for n := 0; ; n++ {
		d.typeLine(t, "size", "SIZE ")
		if strings.Contains(d.outputString(), "SIZE 31 101") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the child never saw 101×31: %q", tail(d.outputString()))
		}
		time.Sleep(20 * time.Millisecond)
	}
	// A joiner on the lane gets the session so far (the ring's replay
	// here; the snapshot path is the late joiner's, below).
	w := dialLaneViewer(t, door.roomURL(r.room), srv.ViewerToken(t, r.room, "wes"), attachwire.RoleViewer)
	w.until(t, "the joiner's view over the lane", func(lv *laneViewer) bool {
		seen := lv.output.String()
		for _, s := range lv.snaps {
			seen += testkit.History(*s)
		}
		return lv.c.Lane() && strings.Contains(seen, "GOT<a010>")
	})

	// WebSocket is allowed again: both upgrade back, with keys in flight.
	allowed := time.Now()
	r.proxy.RefuseUpgrades(false)
	door.RefuseUpgrades(false)
	for i := 1; ; i++ {
		if err := d.c.Input([]byte(fmt.Sprintf("b%03d\n", i))); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
		if !d.c.Lane() && !w.c.Lane() && d.c.Room() == attachwire.RoomLive && i >= 20 {
			d.typeLine(t, "last", "GOT<last>")
			t.Logf("both upgraded %v after WebSocket was allowed (probe every %v), %d keys typed meanwhile", time.Since(allowed), laneProbe, i)
			d.mu.Lock()
			out := d.output.String()
			d.mu.Unlock()
			for k := 1; k <= i; k++ {
				if n := strings.Count(out, fmt.Sprintf("GOT<b%03d>", k)); n != 1 {
					t.Fatalf("key b%03d echoed %d times across the upgrade, want once", k, n)
				}
			}
			break
		}
		if time.Since(allowed) > watchdog {
			t.Fatalf("not upgraded within %v: driver lane %v, joiner lane %v, room %s", watchdog, d.c.Lane(), w.c.Lane(), d.c.Room())
		}
	}
	for _, lv := range []*laneViewer{d, w} {
		lv.mu.Lock()
		bad := lv.bad
		lv.mu.Unlock()
		if bad != "" {
			t.Fatalf("a frame repeated: %s", bad)
		}
	}

	// WebSocket breaks again and every connection is cut: back to the lane.
	r.proxy.RefuseUpgrades(true)
	door.RefuseUpgrades(true)
	r.proxy.CutAfter(faultproxy.Downstream, 0)
	door.CutAfter(faultproxy.Downstream, 0)
	d.until(t, "both back on the lane", func(lv *laneViewer) bool {
		return lv.c.Lane() && lv.c.Pen().Mine && lv.c.Room() == attachwire.RoomDegraded
	})
	d.typeLine(t, "c001", "GOT<c001>")

	// The relay's kill reaches the host over its SSE stream; the Exit
	// comes back up its POSTs and down the viewers' streams.
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	delivered, err := srv.Relay.Kill(ctx, relaytest.DefaultOrg, r.room, attachwire.KillStopped, "SIGTERM")
	if err != nil || !delivered {
		t.Fatalf("Relay.Kill = %v, %v; want delivered", delivered, err)
	}
	d.until(t, "the Exit over the lane", func(lv *laneViewer) bool { return lv.exit != nil })
	if d.exit.Signal == "" {
		// The default Kill hook is Session.Stop: SIGHUP first.
		t.Fatalf("Exit %+v, want death by a signal", *d.exit)
	}
	// A late joiner, on the lane too, gets the post-Exit snapshot.
	late := dialLaneViewer(t, door.roomURL(r.room), srv.ViewerToken(t, r.room, "lou"), attachwire.RoleViewer)
	late.until(t, "the post-Exit snapshot over the lane", func(lv *laneViewer) bool {
		return lv.c.Lane() && len(lv.snaps) > 0 && strings.Contains(testkit.History(*lv.snaps[len(lv.snaps)-1]), "GOT<c001>")
	})
	if late.c.Room() != attachwire.RoomEnded {
		t.Fatalf("the late joiner's room_state is %s, want ended", late.c.Room())
	}
	if err := r.wait(t); err != nil {
		t.Fatalf("RunHost = %v", err)
	}
}

func (lv *laneViewer) outputString() string {
	lv.mu.Lock()
	defer lv.mu.Unlock()
	return lv.output.String()
}
