package attachclient_test

import (
	"bytes"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/faultproxy"
	"github.com/ptyhost/ptyhost/viewer"
)

// BenchmarkKeystrokeEchoHostCarrier times one keystroke's round trip
// through the whole networked path on loopback: a viewer.Client holding
// the pen sends a byte → relay → RunHost → the session's PTY → the
// rawcat child, which copies it back → RunHost → relay → the same
// Client's Output event. Each side reaches the relay through its own
// faultproxy, which refuses WebSocket upgrades for the side put on the
// degraded lane, so both carriers cross the same extra hop. It reports
// the p50 and p99 per keystroke (issue 16: the host carrier's lane
// against WebSocket).
//
// The host runs with the default HTTPClient, which keeps no connection
// alive, so each of its lane POSTs opens a new TCP connection; the extra
// case "host=lane-keepalive" gives it a client that keeps them, to show
// what that choice costs.
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

func keystrokeEcho(b *testing.B, hostLane, keepAlive, viewerLane bool) {
	r := newRig(b, "rawcat", fastRelay())
	r.proxy.RefuseUpgrades(hostLane)
	cfg := r.config()
	if keepAlive {
		htr := &http.Transport{}
		b.Cleanup(htr.CloseIdleConnections)
		cfg.HTTPClient = &http.Client{Transport: htr}
		// A probe could reuse a kept POST connection, which the proxy
		// forwards without looking: no probe while the keys are timed.
		cfg.UpgradeProbeInterval = time.Hour
	}
	r.start(b, cfg)

	srv := r.srv.Load()
	vp, err := faultproxy.New(strings.TrimPrefix(srv.URL, "ws://"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { vp.Close() })
	vp.RefuseUpgrades(viewerLane)

	// Output events go to the timing loop; the buffer covers the few
	// chunks one echo can arrive in, and a dropped one shows as a
	// timeout, never as a wrong figure.
	out := make(chan []byte, 256)
	tr := &http.Transport{}
	b.Cleanup(tr.CloseIdleConnections)
	c, err := viewer.Dial(b.Context(), viewer.Config{
		URL:        "ws://" + vp.Addr() + "/v1/rooms/" + r.room,
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
	if refused := r.proxy.Stats().RefusedUpgrades; hostLane != (refused > 0) {
		b.Fatalf("host proxy refused %d upgrades with the host on the lane: %v", refused, hostLane)
	}
	// One untimed key: the child is in raw mode and the whole path is warm.
	echo(b, c, out, '.')

	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		echo(b, c, out, byte('a'+i%26))
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// echo sends key and waits for it to come back as Output.
func echo(b *testing.B, c *viewer.Client, out <-chan []byte, key byte) {
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
func await(b *testing.B, what string, cond func() bool) {
	b.Helper()
	deadline := time.Now().Add(watchdog)
	for !cond() {
		if time.Now().After(deadline) {
			b.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
