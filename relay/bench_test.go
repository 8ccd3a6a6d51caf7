package relay_test

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
)

// benchConfig is the relay the benchmarks run: quiet, no dial rate limit,
// room for 1000 viewers, and no keepalive. The benchmarks' clients read
// only while measuring, so they answer no ping while hundreds of others
// are dialled; on a loaded machine that takes longer than SilenceTimeout
// and the relay would close them as silent, which is not what is measured.
func benchConfig() relay.Config {
	return relay.Config{Logger: discardLogger(), DialsPerSecond: 1e6, MaxViewersPerRoom: 2000,
		PingInterval: time.Hour, SilenceTimeout: 2 * time.Hour}
}

// BenchmarkFanout streams b.N 4 KiB Output frames from one host to N
// viewers over loopback WebSockets and reports what each viewer and all of
// them received per second. host-ns/frame is the host client's send loop;
// with -benchtime 300x the socket buffers take the whole stream, so it
// shows the host is never made to wait, not the relay's own cost per
// frame (BenchmarkFanoutPublish times that).
func BenchmarkFanout(b *testing.B) {
	for _, n := range []int{1, 10, 100, 1000} {
		b.Run(fmt.Sprintf("viewers=%d", n), func(b *testing.B) {
			cfg := benchConfig()
			cfg.RingBytes, cfg.ViewerQueueBytes = 64<<20, 32<<20
			s := relaytest.NewServer(b, cfg)
			h := dialHost(b, s, 1)
			h.snapshot("")
			chunk := strings.Repeat("x", 4096)
			var wg sync.WaitGroup
			start := make(chan struct{})
			conns := make([]*relaytest.Conn, n)
			for i := range conns {
				conns[i] = dialViewer(b, s, s.ViewerToken(b, room, fmt.Sprint("v", i)), attachwire.RoleViewer, attachwire.Subscribe{})
				snapshotOf(b, relaytest.NextFrame(b, conns[i]))
			}
			last := h.seq + uint64(b.N)
			for _, c := range conns {
				wg.Go(func() {
					<-start
					for {
						f, err := c.Next(ctxT(b))
						if err != nil || f.Seq == last {
							return
						}
					}
				})
			}
			b.ResetTimer()
			t0 := time.Now()
			close(start)
			for range b.N {
				h.output(chunk)
			}
			sent := time.Since(t0)
			wg.Wait()
			el := time.Since(t0)
			b.StopTimer()
			mib := float64(b.N) * 4096 / (1 << 20)
			b.ReportMetric(mib/el.Seconds(), "MiB/s/viewer")
			b.ReportMetric(mib*float64(n)/el.Seconds(), "MiB/s-total")
			b.ReportMetric(float64(sent.Nanoseconds())/float64(b.N), "host-ns/frame")
		})
	}
}

// BenchmarkIdleViewerMemory reports the heap one idle viewer costs the
// process: the relay's leg, its goroutines and buffers, plus the test
// client's end of the connection (both sides run here, so this is an upper
// bound for the relay alone).
func BenchmarkIdleViewerMemory(b *testing.B) {
	const n = 200
	for range b.N {
		s := relaytest.NewServer(b, benchConfig())
		h := dialHost(b, s, 1)
		h.snapshot("")
		before := heap()
		conns := make([]*relaytest.Conn, n)
		for i := range conns {
			conns[i] = dialViewer(b, s, s.ViewerToken(b, room, fmt.Sprint("v", i)), attachwire.RoleViewer, attachwire.Subscribe{})
			snapshotOf(b, relaytest.NextFrame(b, conns[i]))
		}
		after := heap()
		b.ReportMetric(float64(after-before)/n/1024, "KiB/viewer(both-ends)")
		roomBefore := heap()
		for i := range 100 {
			id := fmt.Sprint("room-", i)
			relaytest.MustDial(b, s.RoomURL(id), s.ViewerToken(b, id, "x"),
				attachwire.Subscribe{SessionID: id, AsRole: attachwire.RoleViewer})
		}
		waitLegs(b, s, attachwire.RoleViewer, n+100)
		b.ReportMetric(float64(heap()-roomBefore)/100/1024, "KiB/room+viewer(both-ends)")
		for _, c := range conns {
			c.WS.CloseNow()
		}
		s.Close()
	}
}

func heap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkKeystrokeEcho is the round trip of one key through the relay: a
// driver sends Input, the host gets it and echoes it as Output, the driver
// gets the Output. It reports p50 and p99.
func BenchmarkKeystrokeEcho(b *testing.B) {
	s := relaytest.NewServer(b, benchConfig())
	h := dialHost(b, s, 1)
	h.snapshot("")
	d, gen := driverWithPen(b, s, "alice")
	snapshotOf(b, relaytest.NextFrame(b, d))
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		t0 := time.Now()
		input(b, d, uint64(i+1), gen, "", "k")
		in := hostInput(b, h)
		h.output(string(in.Data))
		relaytest.NextFrame(b, d)
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkHostBesideStuckViewer streams b.N 16 KiB frames to one reading
// viewer, with and without a second viewer that never reads, and reports
// the host's send cost per frame: the stuck viewer must not raise it.
func BenchmarkHostBesideStuckViewer(b *testing.B) {
	for _, stuck := range []bool{false, true} {
		b.Run(fmt.Sprintf("stuck=%v", stuck), func(b *testing.B) {
			cfg := benchConfig()
			cfg.WriteTimeout = time.Minute
			s := relaytest.NewServer(b, cfg)
			h := dialHost(b, s, 1)
			h.snapshot("")
			if stuck {
				dialViewer(b, s, s.ViewerToken(b, room, "stuck"), attachwire.RoleViewer, attachwire.Subscribe{})
			}
			fast := dialViewer(b, s, s.ViewerToken(b, room, "fast"), attachwire.RoleViewer, attachwire.Subscribe{})
			first := relaytest.NextFrame(b, fast)
			last := first.Seq + uint64(b.N)
			var wg sync.WaitGroup
			wg.Go(func() {
				for {
					f, err := fast.Next(ctxT(b))
					if err != nil || f.Seq >= last {
						return
					}
				}
			})
			chunk := strings.Repeat("y", 16<<10)
			b.ResetTimer()
			t0 := time.Now()
			for range b.N {
				h.output(chunk)
			}
			b.ReportMetric(float64(time.Since(t0).Nanoseconds())/float64(b.N), "host-ns/frame")
			wg.Wait()
		})
	}
}
