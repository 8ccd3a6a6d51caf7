package relay_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
)

// BenchmarkClusterJoinStorm dials N viewers at once, on node B, into a
// room whose host is on node A, until every viewer's member view shows
// all N, b.N times (a fresh cluster each), and reports the NATS messages
// published per join (nats-msgs/join) and the viewers' presence controls
// per join. One message per member per join, as before presence was
// coalesced, is N/2 per join on average; now a join costs its request
// and reply and its share of the updates, whatever N. Viewers that read
// lists (lists) still get the whole list and every join, O(N^2) bytes
// in all, which a process holding both ends of 1,000 of them cannot
// carry on two cores; they run to 300.
func BenchmarkClusterJoinStorm(b *testing.B) {
	for _, n := range []int{100, 300, 1000} {
		for _, mode := range []attachwire.PresenceMode{"", attachwire.PresenceCounts} {
			name := "lists"
			if mode != "" {
				name = "counts"
			} else if n > 300 {
				continue
			}
			b.Run(fmt.Sprintf("viewers=%d/%s", n, name), func(b *testing.B) {
				var msgs, controls int64
				for range b.N {
					m, c := clusterStorm(b, n, mode)
					msgs += m
					controls += c
				}
				b.ReportMetric(float64(msgs)/float64(b.N*n), "nats-msgs/join")
				b.ReportMetric(float64(controls)/float64(b.N*n), "presence/join")
			})
		}
	}
}

// clusterStorm runs one storm and returns the NATS messages published and
// the presence controls the viewers read.
func clusterStorm(b *testing.B, n int, mode attachwire.PresenceMode) (msgs, controls int64) {
	b.StopTimer()
	ns := natsServer(b)
	cfg := presenceConfig(250*time.Millisecond, 64)
	cfg.MaxViewersPerRoom = n
	cfg.SnapshotRetry = 200 * time.Millisecond
	nodes := startClusterWith(b, ns, cfg, "a", "b")
	h := hostOn(b, nodes[0].Server, nodes[0].Server, 1)
	h.snapshot("") // in the rings: a joiner needs nothing of the host
	before, err := ns.Stats()
	if err != nil {
		b.Fatal(err)
	}
	vs := make([]*watched, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	b.StartTimer()
	for i := range vs {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			vs[i] = dialWatched(b, nodes[1].Server, fmt.Sprintf("j%04d", i), mode)
		})
	}
	wg.Wait()
	for _, v := range vs {
		testkit.EventuallyDescribe(b, "the member view of "+v.jti+" shows everyone", func() bool {
			v.view.mu.Lock()
			defer v.view.mu.Unlock()
			return v.view.total == n
		}, v.view.String)
	}
	b.StopTimer()
	after, err := ns.Stats()
	if err != nil {
		b.Fatal(err)
	}
	for _, v := range vs {
		controls += int64(v.view.framesRead())
	}
	return after.InMsgs - before.InMsgs, controls
}
