package attachclient_test

import (
	"bytes"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/viewer"
)

// BenchmarkKeystrokeEchoHostCarrier times one keystroke's round trip
// through the whole networked path on loopback: a viewer.Client holding
// the pen sends a byte → relay → RunHost → the session's PTY → the
// rawcat child, which copies it back → RunHost → relay → the same
// Client's Output event. Each side reaches the relay's handler through
// its own loopback HTTP server, which answers WebSocket upgrades 502 for
// the side put on the degraded lane: no proxy hop on either carrier, so
// the figures are the carriers' own. It reports the p50 and p99 per
// keystroke, and conns/op, the TCP connections the two front servers
// accepted per keystroke.
//
// The host runs with the default HTTPClient, for which RunHost sends the
// lane's POSTs through a keep-alive client of its own; the extra case
// "host=lane-keepalive" gives it a caller's client that keeps them.
func BenchmarkKeystrokeEchoHostCarrier(b *testing.B) {
	for _, hostLane := range []bool{false, true} {
		for _, viewerLane := range []bool{false, true} {
			name := "host=" + carrierName(hostLane) + "/viewer=" + carrierName(viewerLane)
			b.Run(name, func(b *testing.B) { keystrokeEcho(b, hostLane, false, viewerLane) })
		}
	}
	b.Run("host=lane-keepalive/viewer=ws", func(b *testing.B) { keystrokeEcho(b, true, true, false) })
}

func carrierName(lane bool) string {
	if lane {
		return "lane"
	}
	return "ws"
}

// frontDoor is a loopback server of its own in front of the relay's
// handler.
type frontDoor struct {
	base    string       // ws://host:port
	refused atomic.Int64 // WebSocket upgrades answered 502
	conns   atomic.Int64 // TCP connections accepted
}

// front starts a frontDoor; when refuse is set it answers every WebSocket
// upgrade 502, as a path that breaks WebSocket only.
func front(b testing.TB, rl http.Handler, refuse bool) *frontDoor {
	b.Helper()
	f := &frontDoor{}
	fs := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if refuse && strings.EqualFold(req.Header.Get("Upgrade"), "websocket") {
			f.refused.Add(1)
			http.Error(w, "websocket blocked", http.StatusBadGateway)
			return
		}
		rl.ServeHTTP(w, req)
	}))
	fs.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			f.conns.Add(1)
		}
	}
	fs.Start()
	b.Cleanup(fs.Close)
	f.base = "ws://" + strings.TrimPrefix(fs.URL, "http://")
	return f
}

// echoPath is a running rig of the keystroke echo benchmark: a Client
// holding the pen, its Output events, and the two front doors.
type echoPath struct {
	c      *viewer.Client
	out    <-chan []byte
	hf, vf *frontDoor
}

// newEchoPath starts the relay, the host on its carrier and a driving
// Client on its own, and echoes one untimed key.
func newEchoPath(b testing.TB, hostLane, keepAlive, viewerLane bool) echoPath {
	b.Helper()
	r := newRig(b, "rawcat", fastRelay())
	srv := r.srv.Load()
	hf, vf := front(b, srv.Relay, hostLane), front(b, srv.Relay, viewerLane)
	cfg := r.config()
	cfg.AttachURL = hf.base + "/v1/rooms/" + r.room
	if keepAlive {
		htr := &http.Transport{}
		b.Cleanup(htr.CloseIdleConnections)
		cfg.HTTPClient = &http.Client{Transport: htr}
	}
	r.start(b, cfg)

	// Output events go to the timing loop; the buffer covers the few
	// chunks one echo can arrive in, and a dropped one shows as a
	// timeout, never as a wrong figure.
	out := make(chan []byte, 256)
	tr := &http.Transport{}
	b.Cleanup(tr.CloseIdleConnections)
	c, err := viewer.Dial(b.Context(), viewer.Config{
		URL:        vf.base + "/v1/rooms/" + r.room,
		Token:      srv.DriverToken(b, r.room, "dan"),
		Role:       attachwire.RoleDriver,
		BackoffMin: 10 * time.Millisecond, BackoffMax: 100 * time.Millisecond,
		HTTPClient: &http.Client{Transport: tr},
		OnEvent: func(ev viewer.Event) {
			if ev.Kind == viewer.EventOutput {
				select {
				case out <- bytes.Clone(ev.Data):
				default:
				}
			}
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	if c.Lane() != viewerLane {
		b.Fatalf("viewer on the lane: %v, want %v", c.Lane(), viewerLane)
	}
	wantRoom := attachwire.RoomLive
	if hostLane {
		wantRoom = attachwire.RoomDegraded
	}
	await(b, "the pen and room_state "+string(wantRoom), func() bool {
		return c.Pen().Mine && c.Room() == wantRoom
	})
	if refused := hf.refused.Load(); hostLane != (refused > 0) {
		b.Fatalf("host front refused %d upgrades with the host on the lane: %v", refused, hostLane)
	}
	// One untimed key: the child is in raw mode and the whole path is warm.
	echo(b, c, out, '.')
	return echoPath{c: c, out: out, hf: hf, vf: vf}
}

func keystrokeEcho(b *testing.B, hostLane, keepAlive, viewerLane bool) {
	p := newEchoPath(b, hostLane, keepAlive, viewerLane)
	c, out, hf, vf := p.c, p.out, p.hf, p.vf
	lat := make([]time.Duration, 0, b.N)
	conns := hf.conns.Load() + vf.conns.Load()
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		echo(b, c, out, byte('a'+i%26))
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	// New connections per key: what a carrier pays beyond its frames.
	b.ReportMetric(float64(hf.conns.Load()+vf.conns.Load()-conns)/float64(b.N), "conns/op")
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// echo sends key and waits for it to come back as Output.
func echo(b testing.TB, c *viewer.Client, out <-chan []byte, key byte) {
	b.Helper()
	if err := c.Input([]byte{key}); err != nil {
		b.Fatal(err)
	}
	deadline := time.After(watchdog)
	for {
		select {
		case p := <-out:
			if bytes.IndexByte(p, key) >= 0 {
				return
			}
		case <-deadline:
			b.Fatalf("the echo of %q never came back", key)
		}
	}
}

// await polls cond until it holds, failing after the watchdog.
func await(b testing.TB, what string, cond func() bool) {
	b.Helper()
	deadline := time.Now().Add(watchdog)
	for !cond() {
		if time.Now().After(deadline) {
			b.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestLanePostsKeepTheirConnection: with the default HTTPClient the
// host's lane POSTs reuse one connection instead of opening one per batch
// (WebSocket dials still open a fresh one each).
func TestLanePostsKeepTheirConnection(t *testing.T) {
	p := newEchoPath(t, true, false, false)
	before := p.hf.conns.Load()
	for i := range 20 {
		echo(t, p.c, p.out, byte('a'+i))
	}
	if n := p.hf.conns.Load() - before; n > 2 {
		t.Fatalf("the host opened %d connections for 20 keystrokes' echo batches, want at most 2", n)
	}
}
