package viewer_test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/viewer"
)

// BenchmarkKeystrokeEcho measures a keystroke's round trip on loopback:
// Client.Input → relay → host, the host echoes it as Output → relay →
// the same Client's OnEvent. It reports the p50 and p99 per keystroke.
func BenchmarkKeystrokeEcho(b *testing.B) {
	s := relaytest.NewServer(b, quiet())
	h := newHost(b, s, 1, 80, 24)
	echoed := make(chan struct{}, 1)
	c, err := viewer.Dial(b.Context(), viewer.Config{
		URL: s.RoomURL(room), Token: s.DriverToken(b, room, "dan"), Role: attachwire.RoleDriver,
		OnEvent: func(ev viewer.Event) {
			if ev.Kind == viewer.EventOutput {
				select {
				case echoed <- struct{}{}:
				default:
				}
			}
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	testkit.Eventually(b, "the pen", func() bool { return c.Pen().Mine })
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if err := c.Input([]byte("k")); err != nil {
			b.Fatal(err)
		}
		select {
		case p := <-h.input:
			h.output(p)
		case <-time.After(relaytest.Timeout):
			b.Fatal("the keystroke never reached the host")
		}
		select {
		case <-echoed:
		case <-time.After(relaytest.Timeout):
			b.Fatal("the echo never came back")
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkKeystrokeEchoCarrier is BenchmarkKeystrokeEcho through the
// same HTTP proxy on each carrier: "websocket", and "lane" (WebSocket
// blocked, so SSE down and a POST per keystroke up).
func BenchmarkKeystrokeEchoCarrier(b *testing.B) {
	for _, lane := range []bool{false, true} {
		name := "websocket"
		if lane {
			name = "lane"
		}
		b.Run(name, func(b *testing.B) {
			s := relaytest.NewServer(b, quiet())
			h := newHost(b, s, 1, 80, 24)
			g := newGate(b, s)
			if lane {
				g.blockWS.Store(-1)
			}
			echoed := make(chan struct{}, 1)
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			c, err := viewer.Dial(b.Context(), viewer.Config{
				URL: g.URL + "/v1/rooms/" + room, Token: s.DriverToken(b, room, "dan"), Role: attachwire.RoleDriver,
				BackoffMin: 10 * time.Millisecond, BackoffMax: 100 * time.Millisecond,
				HTTPClient: &http.Client{Transport: tr},
				OnEvent: func(ev viewer.Event) {
					if ev.Kind == viewer.EventOutput {
						select {
						case echoed <- struct{}{}:
						default:
						}
					}
				},
			})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			if c.Lane() != lane {
				b.Fatalf("on the lane: %v, want %v", c.Lane(), lane)
			}
			testkit.Eventually(b, "the pen", func() bool { return c.Pen().Mine })
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				start := time.Now()
				if err := c.Input([]byte("k")); err != nil {
					b.Fatal(err)
				}
				select {
				case p := <-h.input:
					h.output(p)
				case <-time.After(relaytest.Timeout):
					b.Fatal("the keystroke never reached the host")
				}
				select {
				case <-echoed:
				case <-time.After(relaytest.Timeout):
					b.Fatal("the echo never came back")
				}
				lat = append(lat, time.Since(start))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}
