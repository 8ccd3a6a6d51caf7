package relay_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
)

// BenchmarkLaneKeystrokeEcho is BenchmarkKeystrokeEcho with both ends on
// the degraded lane: the driver POSTs one Input per batch, the host gets
// it on its SSE stream and POSTs the echo, the driver gets the Output on
// its SSE stream. Each POST is a new loopback connection (the helpers do
// not keep connections alive), as a worst case. It reports p50 and p99.
func BenchmarkLaneKeystrokeEcho(b *testing.B) {
	s := relaytest.NewServer(b, relay.Config{Logger: discardLogger()})
	h := openLaneHost(b, s, 1)
	h.ok(h.frames(h.snapshot("")))
	dtok := s.DriverToken(b, room, "alice")
	d := openLaneViewer(b, s, dtok, "")
	gen := expectSSE[attachwire.PenGranted](b, d).PenGeneration
	nextSSEOf(b, d, attachwire.TypeSnapshot)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		t0 := time.Now()
		seq := uint64(i + 1)
		r := postLane(b, s, "/input", dtok, attachwire.ViewerBatch{BatchID: fmt.Sprint("k", seq),
			FirstInputSeq: &seq, LastInputSeq: &seq, Inputs: []string{inputB64(b, seq, gen, "k")}})
		if r.Status != http.StatusOK {
			b.Fatalf("input: %d %s", r.Status, r.Body)
		}
		in, _ := attachwire.DecodeInput(nextSSEOf(b, h.sse, attachwire.TypeInput).Payload)
		h.ok(h.frames(h.output(string(in.Data))))
		nextSSEOf(b, d, attachwire.TypeOutput)
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}
