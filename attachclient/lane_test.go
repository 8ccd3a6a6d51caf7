package attachclient_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/faultproxy"
)

// laneProbe is the upgrade probe interval of the lane tests.
const laneProbe = 200 * time.Millisecond

// roomState returns a condition: the viewer has seen room_state st after
// its first from controls on.
func roomState(st attachwire.RoomStatus, from int) func(*view) bool {
	return func(v *view) bool {
		for _, c := range v.controls[min(from, len(v.controls)):] {
			if rs, ok := c.(attachwire.RoomState); ok && rs.State == st {
				return true
			}
		}
		return false
	}
}

// typeKeys sends one line per inputSeq in [from, to] and waits for the
// child to echo the last.
func typeKeys(t *testing.T, d *view, pen uint64, from, to int) {
	t.Helper()
	for i := from; i <= to; i++ {
		f := attachwire.Input{InputSeq: uint64(i), PenGeneration: pen, Data: []byte(fmt.Sprintf("k%03d\n", i))}.Frame(0, 0)
		if err := d.c.Send(context.Background(), f); err != nil {
			t.Fatal(err)
		}
	}
	d.until(t, fmt.Sprintf("the echo of key %d", to), d.sees(fmt.Sprintf("GOT<k%03d>", to)))
}

// outputs is everything the viewer got as Output, across snapshots.
func outputs(v *view) string {
	var b strings.Builder
	for _, f := range v.frames {
		if f.Type == attachwire.TypeOutput {
			b.Write(f.Payload)
		}
	}
	return b.String()
}

func TestLaneFallbackCarriesTheSessionAndUpgradesBack(t *testing.T) {
	r := newRig(t, "lines", fastRelay())
	r.proxy.RefuseUpgrades(true)
	cfg := r.config()
	cfg.UpgradeProbeInterval = laneProbe
	r.start(t, cfg)

	d := r.join(t, attachwire.RoleDriver, "alice", attachwire.Subscribe{Viewport: &attachwire.Viewport{Cols: 100, Rows: 30}})
	d.until(t, "the child's first line over the lane", d.sees("ready"))
	d.until(t, "room_state degraded", roomState(attachwire.RoomDegraded, 0))
	if s := r.proxy.Stats(); s.RefusedUpgrades < 3 {
		t.Fatalf("on the lane after %d refused WebSocket dials, want 3", s.RefusedUpgrades)
	}
	pen := d.pen(t)
	typeKeys(t, d, pen, 1, 30)
	// Resize: the holder's viewport reached the child over SSE.
	size := attachwire.Input{InputSeq: 31, PenGeneration: pen, Data: []byte("size\n")}.Frame(0, 0)
	if err := d.c.Send(context.Background(), size); err != nil {
		t.Fatal(err)
	}
	d.until(t, "the child's size", d.sees("SIZE 30 100"))
	// Snapshot: the relay asks for one on every bind (and as viewers
	// need one), over SSE here; the answer is in the driver's stream.
	d.until(t, "a snapshot from the host on the lane", func(v *view) bool {
		for _, f := range v.frames {
			if f.Type == attachwire.TypeSnapshot && f.Seq > 0 {
				return true
			}
		}
		return false
	})
	checkContiguous(t, d.frames)
	beforeUpgrade := outputs(d)

	// WebSocket works again: the probe finds it and the host moves back.
	mark, frames := len(d.controls), len(d.frames)
	allowed := time.Now()
	r.proxy.RefuseUpgrades(false)
	d.until(t, "room_state live after the upgrade", roomState(attachwire.RoomLive, mark))
	t.Logf("upgraded back %v after WebSocket was allowed (probe every %v)", time.Since(allowed), laneProbe)
	typeKeys(t, d, pen, 32, 60)

	exit := attachwire.Input{InputSeq: 61, PenGeneration: pen, Data: []byte("exit 3\n")}.Frame(0, 0)
	if err := d.c.Send(context.Background(), exit); err != nil {
		t.Fatal(err)
	}
	d.until(t, "the Exit", func(v *view) bool { return v.exit != nil })
	if d.exit.Code != 3 {
		t.Fatalf("exit code %d, want 3", d.exit.Code)
	}
	checkContiguous(t, d.frames[frames:]) // across the upgrade
	after := outputs(&view{frames: d.frames[frames:]})
	for i := 1; i <= 60; i++ {
		out := beforeUpgrade
		switch {
		case i == 31:
			continue
		case i > 31:
			out = after
		}
		if n := strings.Count(out, fmt.Sprintf("GOT<k%03d>", i)); n != 1 {
			var seen []string
			for _, g := range d.frames[frames:] {
				seen = append(seen, fmt.Sprintf("%s/%d", g.Type, g.Seq))
			}
			t.Fatalf("key %d echoed %d times, want once; the driver's frames since the upgrade %v; alice's text %q", i, n, seen, tail(d.text.String()))
		}
	}
	if err := r.wait(t); err != nil {
		t.Fatalf("RunHost = %v", err)
	}
}

// TestLaneRefusedSendsTheHostBackToWebSocket: a relay whose lane answers
// 404 (not served) or keeps failing (500) never strands the host there.
func TestLaneRefusedSendsTheHostBackToWebSocket(t *testing.T) {
	for _, status := range []int{http.StatusNotFound, http.StatusInternalServerError} {
		t.Run(http.StatusText(status), func(t *testing.T) { laneRefused(t, status) })
	}
}

func laneRefused(t *testing.T, status int) {
	r := newRig(t, "lines", fastRelay())
	srv := r.srv.Load()
	var refused atomic.Int64
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if strings.HasSuffix(req.URL.Path, "/host/sse") || strings.HasSuffix(req.URL.Path, "/host/output") {
			refused.Add(1)
			http.Error(w, "no lane", status)
			return
		}
		srv.Relay.ServeHTTP(w, req)
	}))
	t.Cleanup(front.Close)
	r.proxy.SetTarget(strings.TrimPrefix(front.URL, "http://"))
	r.proxy.RefuseUpgrades(true)
	cfg := r.config()
	cfg.UpgradeProbeInterval = laneProbe
	r.start(t, cfg)

	// Fallen back, answered 404, and dialling WebSocket again.
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	if err := r.proxy.Wait(ctx, func(s faultproxy.Stats) bool { return s.RefusedUpgrades >= 3 && refused.Load() >= 1 }); err != nil {
		t.Fatalf("no lane GET after 3 refused dials: %v (%+v)", err, r.proxy.Stats())
	}
	if err := r.proxy.Wait(ctx, func(s faultproxy.Stats) bool { return s.RefusedUpgrades >= 4 }); err != nil {
		t.Fatalf("no WebSocket dial after the lane's 404: %v (%+v)", err, r.proxy.Stats())
	}
	r.proxy.RefuseUpgrades(false)
	d := r.join(t, attachwire.RoleDriver, "alice", attachwire.Subscribe{})
	d.until(t, "the child's first line", d.sees("ready"))
	d.until(t, "room_state live", roomState(attachwire.RoomLive, 0))
	typeKeys(t, d, d.pen(t), 1, 5)
}
