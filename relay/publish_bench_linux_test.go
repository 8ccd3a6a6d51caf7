package relay_test

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
	"golang.org/x/sys/unix"
)

// BenchmarkFanoutPublish is the publish cost per frame on the socket path:
// 1, 10, 100 or 1000 viewers are real WebSocket legs reading every frame
// over loopback, and the benchmark's goroutine takes b.N 4 KiB Output
// frames into the room exactly as the host leg's reader does (sanitize,
// encode, ring append, wake), timing only that. publish-cpu-ns/frame is the
// CPU time of the publishing thread (CLOCK_THREAD_CPUTIME_ID, the
// goroutine locked to its thread), which the 2n other goroutines competing for the
// cores cannot inflate; publish-ns/frame is its wall time, which they can.
// It must not grow with the viewers: publishing is one channel close
// however many wait, and no viewer is ever waited for. MiB/s/viewer is
// what each viewer received, until the last one had every frame.
func BenchmarkFanoutPublish(b *testing.B) {
	for _, n := range []int{1, 10, 100, 1000} {
		b.Run(fmt.Sprintf("viewers=%d", n), func(b *testing.B) {
			cfg := benchConfig()
			cfg.RingBytes, cfg.ViewerQueueBytes = 256<<20, 128<<20
			s := relaytest.NewServer(b, cfg)
			h := newAutoHost(b, s, 1)
			h.snapshot("")
			conns := make([]*relaytest.Conn, n)
			for i := range conns {
				conns[i] = dialViewer(b, s, s.ViewerToken(b, room, fmt.Sprint("v", i)), attachwire.RoleViewer, attachwire.Subscribe{})
				snapshotOf(b, relaytest.NextFrame(b, conns[i]))
			}
			publish := relay.IngestAsHost(s.Relay, relaytest.DefaultOrg, room)
			first := h.seq + 1
			last := h.seq + uint64(b.N)
			var wg sync.WaitGroup
			for _, c := range conns {
				wg.Go(func() {
					for {
						f, err := c.Next(ctxT(b))
						if err != nil || f.Seq >= last {
							return
						}
					}
				})
			}
			payload := []byte(strings.Repeat("x", 4096))
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			b.ResetTimer()
			cpu0 := threadCPU(b)
			t0 := time.Now()
			for i := range uint64(b.N) {
				if err := publish(attachwire.NewOutputFrame(first+i, first+i, payload)); err != nil {
					b.Fatal(err)
				}
			}
			wall := time.Since(t0)
			cpu := threadCPU(b) - cpu0
			wg.Wait()
			el := time.Since(t0)
			b.StopTimer()
			mib := float64(b.N) * 4096 / (1 << 20)
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "publish-cpu-ns/frame")
			b.ReportMetric(float64(wall.Nanoseconds())/float64(b.N), "publish-ns/frame")
			b.ReportMetric(mib/el.Seconds(), "MiB/s/viewer")
			b.ReportMetric(mib*float64(n)/el.Seconds(), "MiB/s-total")
		})
	}
}

// threadCPU returns the CPU time of the calling thread. Unlike getrusage,
// CLOCK_THREAD_CPUTIME_ID counts the running slice up to now, so short
// runs are not rounded to a scheduler tick.
func threadCPU(b *testing.B) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ts.Nano())
}
