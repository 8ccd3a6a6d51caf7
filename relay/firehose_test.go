package relay_test

import (
	"bytes"
	"crypto/sha256"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/sanitize"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
)

// firehoseChunk returns 16 KiB of seeded text with escape sequences (SGR,
// OSC 52, titles, queries) cut anywhere.
func firehoseChunk(r *rand.Rand) []byte {
	parts := [][]byte{[]byte("hello world "), []byte("\x1b[31m"), []byte("\x1b[0m"), []byte("\x1b]52;c;aGk=\x07"),
		[]byte("\x1b]0;t\x07"), []byte("\x1b[6n"), []byte("\r\n"), []byte("\xe2\x82\xac")}
	var b bytes.Buffer
	for b.Len() < 16<<10 {
		b.Write(parts[r.IntN(len(parts))])
	}
	return b.Bytes()[:16<<10]
}

// Under a 64 MiB firehose, a viewer that reads everything gets every frame
// with no gap, and its Output is byte for byte one Driver-profile pass over
// the host's stream (sha256); a viewer that never reads is skipped or
// closed; the host is never held back by it; and the process's heap stays
// bounded. The host keeps at most 2 MiB ahead of the reading viewer, as a
// PTY under flow control would, so the test holds on a loaded machine.
func TestFirehoseFastViewerGapFreeSlowViewerShed(t *testing.T) {
	if testing.Short() {
		t.Skip("64 MiB firehose: skipped with -short")
	}
	total := int64(64 << 20)
	if raceEnabled {
		total = 16 << 20
	}
	// The stuck client cannot answer pings: keepalive would close it as
	// silent on a slow machine, which is neither a skip nor a backpressure
	// close, so it is off here (TestKeepaliveClosesSilentLeg covers it).
	cfg := relay.Config{Logger: discardLogger(), ViewerQueueBytes: 4 << 20, WriteTimeout: 2 * time.Second,
		PingInterval: time.Hour, SilenceTimeout: 2 * time.Hour}
	s := relaytest.NewServer(t, cfg)
	h := newAutoHost(t, s, 1)
	h.snapshot("")
	dialViewer(t, s, s.ViewerToken(t, room, "slow"), attachwire.RoleViewer, attachwire.Subscribe{})
	fast := dialViewer(t, s, s.ViewerToken(t, room, "fast"), attachwire.RoleViewer, attachwire.Subscribe{})
	first := relaytest.NextFrame(t, fast)
	snapshotOf(t, first)

	var got atomic.Int64 // Output bytes the host sent that the fast viewer has seen, by seq
	var gotSeq atomic.Uint64
	gotSeq.Store(first.Seq)
	sum := sha256.New()
	var fastErr error
	var wg sync.WaitGroup
	var peak atomic.Uint64
	stopSampling := make(chan struct{})
	wg.Go(func() {
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-stopSampling:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	lastSeq := first.Seq + uint64(total/(16<<10))
	wg.Go(func() {
		next := first.Seq + 1
		for next <= lastSeq {
			f, err := fast.Next(ctxT(t))
			if err != nil {
				fastErr = err
				return
			}
			if f.Type == attachwire.TypeControl {
				continue
			}
			if f.Seq != next {
				fastErr = errGap{f.Seq, next}
				return
			}
			if f.Type == attachwire.TypeOutput {
				sum.Write(f.Payload)
			}
			next++
			gotSeq.Store(f.Seq)
			got.Add(16 << 10)
		}
	})
	rnd := rand.New(rand.NewPCG(1, 2))
	want := sha256.New()
	san := sanitize.New(sanitize.Options{Profile: sanitize.Driver})
	var sent int64
	start := time.Now()
	for sent < total {
		for sent-got.Load() > 2<<20 && fastErr == nil {
			time.Sleep(100 * time.Microsecond)
		}
		chunk := firehoseChunk(rnd)
		want.Write(san.Append(nil, chunk))
		h.seq++
		h.send(attachwire.NewOutputFrame(h.seq, h.seq, chunk))
		sent += int64(len(chunk))
	}
	hostTime := time.Since(start)
	close(stopSampling)
	wg.Wait()
	if fastErr != nil {
		t.Fatalf("fast viewer: %v", fastErr)
	}
	if !bytes.Equal(sum.Sum(nil), want.Sum(nil)) {
		t.Fatal("the fast viewer's Output differs from one sanitizer pass over the host's")
	}
	// The stuck viewer's socket holds a few MiB; past them its writer
	// waits, and WriteTimeout later it is closed (or, lagging past its
	// budget, skipped). How much the buffers took depends on the kernel,
	// so the host goes on until that happened, with the fast viewer gone
	// so that only the stuck one is counted.
	fast.WS.CloseNow()
	testkit.Eventually(t, "the fast viewer gone", func() bool { return metric(t, s, `ptyhost_relay_legs{role="viewer"}`) <= 1 })
	var skips, closes float64
	deadline := time.Now().Add(2 * time.Minute)
	for {
		skips = metric(t, s, "ptyhost_relay_viewer_skips_total")
		closes = metric(t, s, "ptyhost_relay_backpressure_closes_total")
		if skips+closes >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the stuck viewer was neither skipped nor closed")
		}
		for range 64 {
			h.seq++
			h.send(attachwire.NewOutputFrame(h.seq, h.seq, firehoseChunk(rnd)))
		}
	}
	t.Logf("%d MiB in %v (%.0f MiB/s), peak heap in use %.1f MiB, slow viewer skips %v closes %v",
		total>>20, hostTime, float64(total>>20)/hostTime.Seconds(), float64(peak.Load())/(1<<20), skips, closes)
	if peak.Load() > 128<<20 {
		t.Fatalf("peak heap %d MiB, bound 128 MiB", peak.Load()>>20)
	}
}
