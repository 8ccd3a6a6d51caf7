package relay_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relay/natsembed"
	"github.com/ptyhost/ptyhost/relaytest"
)

// natsOut returns the messages and bytes the NATS server has delivered.
func natsOut(b testing.TB, ns *natsembed.Server) (msgs, bytes int64) {
	st, err := ns.Stats()
	if err != nil {
		b.Fatal(err)
	}
	return st.OutMsgs, st.OutBytes
}

// BenchmarkClusterFanout streams b.N 4 KiB Output frames from a host on
// node A to viewers spread evenly over nodes A, B and C, and reports what
// each viewer received per second and what NATS delivered per frame: a
// frame crosses NATS once per node with viewers (here 2), not once per
// viewer.
func BenchmarkClusterFanout(b *testing.B) {
	for _, n := range []int{30, 300} {
		b.Run(fmt.Sprintf("viewers=%d", n), func(b *testing.B) {
			ns := natsServer(b)
			cfg := relay.Config{Logger: discardLogger(), DialsPerSecond: 1e6, MaxViewersPerRoom: 2000,
				RingBytes: 64 << 20, ViewerQueueBytes: 32 << 20}
			nodes := startClusterWith(b, ns, cfg, "a", "b", "c")
			a := nodes[0]
			h := hostOn(b, a.Server, a.Server, 1)
			h.snapshot("")
			conns := make([]*relaytest.Conn, n)
			for i := range conns {
				nd := nodes[i%len(nodes)]
				conns[i] = relaytest.MustDial(b, nd.RoomURL(room), a.ViewerToken(b, room, fmt.Sprint("v", i)),
					attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer})
				untilFrame(b, conns[i], attachwire.TypeSnapshot)
			}
			chunk := strings.Repeat("x", 4096)
			last := h.seq + uint64(b.N)
			var wg sync.WaitGroup
			start := make(chan struct{})
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
			// Let the joins' presence notices (one per member per join)
			// drain, so they are not counted as the stream's traffic.
			m0, b0 := natsOut(b, ns)
			for {
				time.Sleep(200 * time.Millisecond)
				m, bb := natsOut(b, ns)
				if m == m0 {
					break
				}
				m0, b0 = m, bb
			}
			runtime.GC()
			b.ResetTimer()
			t0 := time.Now()
			close(start)
			for range b.N {
				h.output(chunk)
			}
			wg.Wait()
			el := time.Since(t0)
			b.StopTimer()
			m1, b1 := natsOut(b, ns)
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			mib := float64(b.N) * 4096 / (1 << 20)
			b.ReportMetric(mib/el.Seconds(), "MiB/s/viewer")
			b.ReportMetric(float64(m1-m0)/float64(b.N), "nats-msgs/frame")
			b.ReportMetric(float64(b1-b0)/float64(b.N), "nats-bytes/frame")
			b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB(process)")
		})
	}
}

// BenchmarkClusterEcho measures keystroke → host → echo → driver with the
// driver on the host's node and on another node.
func BenchmarkClusterEcho(b *testing.B) {
	for _, where := range []string{"same-node", "cross-node"} {
		b.Run(where, func(b *testing.B) {
			ns := natsServer(b)
			nodes := startClusterWith(b, ns, relay.Config{Logger: discardLogger()}, "a", "c")
			a, c := nodes[0], nodes[1]
			h := hostOn(b, a.Server, a.Server, 1)
			h.snapshot("")
			dn := a
			if where == "cross-node" {
				dn = c
			}
			d := relaytest.MustDial(b, dn.RoomURL(room), a.DriverToken(b, room, "dan"),
				attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleDriver})
			// The snapshot may come before or after the grant (it is served
			// from the node's own ring): the loop below skips it.
			gen := relaytest.ExpectControl[attachwire.PenGranted](b, d).PenGeneration
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := range b.N {
				t0 := time.Now()
				input(b, d, uint64(i+1), gen, "", "k")
				in := hostInput(b, h)
				h.output(string(in.Data))
				untilFrame(b, d, attachwire.TypeOutput)
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}

// BenchmarkClusterRooms runs 100 rooms of an interactive program at once
// over three nodes: each room's host on one node, its driver on the next
// and five viewers spread over all three. Every round, each driver types a
// key that its host echoes; it reports the echo latency over every room and
// round, and the process heap (three nodes, NATS and every client). The
// workers report the first error back here instead of failing from their
// own goroutines, and it stops the others.
func BenchmarkClusterRooms(b *testing.B) {
	const rooms, viewers = 100, 5
	ns := natsServer(b)
	cfg := relay.Config{Logger: discardLogger(), DialsPerSecond: 1e6}
	nodes := startClusterWith(b, ns, cfg, "a", "b", "c")
	mint := nodes[0]
	type roomLegs struct {
		h   *host
		d   *relaytest.Conn
		gen uint64
		vs  []*relaytest.Conn
	}
	all := make([]roomLegs, rooms)
	for i := range all {
		id := fmt.Sprint("room-", i)
		hn, dn := nodes[i%3], nodes[(i+1)%3]
		hc := relaytest.MustDial(b, hn.RoomURL(id), mint.HostToken(b, id, 1),
			attachwire.Subscribe{SessionID: id, AsRole: attachwire.RoleHost, Epoch: u64(1)})
		h := &host{t: b, c: hc, epoch: 1}
		relaytest.ExpectControl[attachwire.SnapshotRequest](b, hc)
		h.snapshot("")
		d := relaytest.MustDial(b, dn.RoomURL(id), mint.DriverToken(b, id, "dan"),
			attachwire.Subscribe{SessionID: id, AsRole: attachwire.RoleDriver})
		gen := relaytest.ExpectControl[attachwire.PenGranted](b, d).PenGeneration
		rl := roomLegs{h: h, d: d, gen: gen}
		for j := range viewers {
			v := relaytest.MustDial(b, nodes[j%3].RoomURL(id), mint.ViewerToken(b, id, fmt.Sprint("v", j)),
				attachwire.Subscribe{SessionID: id, AsRole: attachwire.RoleViewer})
			untilFrame(b, v, attachwire.TypeSnapshot)
			rl.vs = append(rl.vs, v)
		}
		all[i] = rl
	}
	// run bounds the whole measurement; a worker's first error cancels it,
	// which ends every other worker's read.
	run, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var once sync.Once
	var firstErr error
	fail := func(err error) {
		once.Do(func() { firstErr = err })
		cancel()
	}
	lats := make([][]time.Duration, rooms)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range all {
		r := &all[i]
		last := r.h.seq + uint64(b.N)
		for j, v := range r.vs {
			wg.Go(func() {
				for {
					f, err := nextWithin(run, v)
					if err != nil {
						fail(fmt.Errorf("room %d viewer %d: %w", i, j, err))
						return
					}
					if f.Seq >= last {
						return
					}
				}
			})
		}
		wg.Go(func() {
			<-start
			for n := range b.N {
				t0 := time.Now()
				if err := echoRound(run, r.h, r.d, uint64(n+1), r.gen); err != nil {
					fail(fmt.Errorf("room %d round %d: %w", i, n, err))
					return
				}
				lats[i] = append(lats[i], time.Since(t0))
			}
		})
	}
	b.ResetTimer()
	close(start)
	wg.Wait()
	b.StopTimer()
	if firstErr != nil {
		b.Fatal(firstErr)
	}
	var lat []time.Duration
	for _, l := range lats {
		lat = append(lat, l...)
	}
	slices.Sort(lat)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB(process)")
}

// nextWithin reads c's next frame, waiting at most relaytest.Timeout and
// no longer than run lasts.
func nextWithin(run context.Context, c *relaytest.Conn) (attachwire.Frame, error) {
	ctx, cancel := context.WithTimeout(run, relaytest.Timeout)
	defer cancel()
	return c.Next(ctx)
}

// echoRound is one keystroke of a room: the driver d sends Input seq, the
// host h receives it and echoes it as Output, and d reads up to that
// Output. It returns errors rather than failing, for worker goroutines.
func echoRound(run context.Context, h *host, d *relaytest.Conn, seq, gen uint64) error {
	ctx, cancel := context.WithTimeout(run, relaytest.Timeout)
	defer cancel()
	in := attachwire.Input{InputSeq: seq, PenGeneration: gen, Data: []byte("k")}.Frame(0, 0)
	if err := d.Send(ctx, in); err != nil {
		return fmt.Errorf("driver send: %w", err)
	}
	var echo []byte
	for echo == nil {
		f, err := h.c.Next(ctx)
		if err != nil {
			return fmt.Errorf("host read: %w", err)
		}
		if f.Type != attachwire.TypeInput {
			continue
		}
		got, err := attachwire.DecodeInput(f.Payload)
		if err != nil {
			return fmt.Errorf("host input: %w", err)
		}
		echo = append([]byte{}, got.Data...)
	}
	h.seq++
	if err := h.c.Send(ctx, attachwire.NewOutputFrame(h.seq, h.seq, echo)); err != nil {
		return fmt.Errorf("host send: %w", err)
	}
	for {
		f, err := d.Next(ctx)
		if err != nil {
			return fmt.Errorf("driver read: %w", err)
		}
		if f.Type == attachwire.TypeOutput {
			return nil
		}
	}
}
