package attachclient_test

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost"
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
	sess   *ptyhost.Session // the session the keys reach
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
	return echoPath{c: c, out: out, hf: hf, vf: vf, sess: r.sess}
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
	awaitEcho(b, out, key)
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

// BenchmarkKeystrokeEchoAgainstInProcess times, on one session and in the
// same iterations, a keystroke's round trip in process (WriteInput → PTY
// → the rawcat child → an Output frame on a subscription) and through the
// networked path on WebSocket carriers (a viewer.Client → relay →
// RunHost → the same PTY and back), one key each, so that the difference
// is the networked path's own, whatever the machine's load does to both.
// It reports each side's p50 and p99 and the differences of the two.
func BenchmarkKeystrokeEchoAgainstInProcess(b *testing.B) {
	p := newEchoPath(b, false, false, false)
	_, head, err := p.sess.Snapshot()
	if err != nil {
		b.Fatal(err)
	}
	sub, err := p.sess.Subscribe(head)
	if err != nil {
		b.Fatal(err)
	}
	defer sub.Close()
	inproc := make([]time.Duration, 0, b.N)
	relayed := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		// In process; the relayed viewer's copy of the echo is drained
		// before the relayed key, so that it cannot pass for that one.
		key := byte('a' + i%26)
		start := time.Now()
		if _, err := p.sess.WriteInput([]byte{key}); err != nil {
			b.Fatal(err)
		}
		awaitOutput(b, sub, key)
		inproc = append(inproc, time.Since(start))
		awaitEcho(b, p.out, key)

		key = byte('A' + i%26)
		start = time.Now()
		echo(b, p.c, p.out, key)
		relayed = append(relayed, time.Since(start))
		awaitOutput(b, sub, key)
	}
	b.StopTimer()
	slices.Sort(inproc)
	slices.Sort(relayed)
	us := func(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
	p50, p99 := len(inproc)/2, len(inproc)*99/100
	b.ReportMetric(us(inproc[p50]), "inproc-p50-µs")
	b.ReportMetric(us(relayed[p50]), "relay-p50-µs")
	b.ReportMetric(us(relayed[p50]-inproc[p50]), "added-p50-µs")
	b.ReportMetric(us(inproc[p99]), "inproc-p99-µs")
	b.ReportMetric(us(relayed[p99]), "relay-p99-µs")
	b.ReportMetric(us(relayed[p99]-inproc[p99]), "added-p99-µs")
}

// awaitOutput reads sub until an Output frame holds key.
func awaitOutput(b testing.TB, sub *ptyhost.Subscription, key byte) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	for {
		f, err := sub.Next(ctx)
		if err != nil {
			b.Fatalf("the echo of %q never came to the subscription: %v", key, err)
		}
		if f.Type == attachwire.TypeOutput && bytes.IndexByte(f.Payload, key) >= 0 {
			return
		}
	}
}

// awaitEcho waits for key among the Client's Output events.
func awaitEcho(b testing.TB, out <-chan []byte, key byte) {
	b.Helper()
	deadline := time.After(watchdog)
	for {
		select {
		case p := <-out:
			if bytes.IndexByte(p, key) >= 0 {
				return
			}
		case <-deadline:
			b.Fatalf("the echo of %q never reached the viewer", key)
		}
	}
}
