package relay_test

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/sanitize"
	"github.com/ptyhost/ptyhost/relaytest"
)

// autoHost is a host leg whose reader goroutine runs all along (so it
// answers pings) and ends when the leg closes. Snapshot requests are
// answered by the test calling answer between frames or, for a host made
// by newAnsweringHost, by the reader itself as soon as they arrive, as a
// ptyhost session does: then a test goroutine blocked on a viewer cannot
// leave that viewer waiting for a snapshot nobody sends.
type autoHost struct {
	*host
	requests chan struct{}
	wg       sync.WaitGroup
	// mu serializes the frames of the test and of the answering reader, so
	// seqs leave in order.
	mu sync.Mutex
}

func newAutoHost(t testing.TB, s *relaytest.Server, epoch uint64) *autoHost {
	return startAutoHost(t, s, epoch, false)
}

// newAnsweringHost returns an autoHost that answers every snapshot_request
// from its reader goroutine. Its frames go through its own output and
// snapshot methods.
func newAnsweringHost(t testing.TB, s *relaytest.Server, epoch uint64) *autoHost {
	return startAutoHost(t, s, epoch, true)
}

func startAutoHost(t testing.TB, s *relaytest.Server, epoch uint64, answering bool) *autoHost {
	h := &autoHost{host: dialHost(t, s, epoch), requests: make(chan struct{}, 1)}
	h.wg.Go(func() {
		for {
			// No deadline: a cancelled read closes the leg; this one ends
			// when the test closes it.
			f, err := h.c.Next(context.Background())
			if err != nil {
				return
			}
			if f.Type != attachwire.TypeControl {
				continue
			}
			if answering {
				if h.sendSnapshot("snap") != nil {
					return // the leg is gone
				}
				continue
			}
			select {
			case h.requests <- struct{}{}:
			default:
			}
		}
	})
	t.Cleanup(func() {
		h.c.WS.CloseNow()
		h.wg.Wait()
	})
	return h
}

// answer sends a snapshot if one was asked for.
func (h *autoHost) answer() {
	select {
	case <-h.requests:
		h.snapshot("snap")
	default:
	}
}

// output sends the next Output frame.
func (h *autoHost) output(p string) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.host.output(p)
}

// snapshot sends an in-stream snapshot showing text.
func (h *autoHost) snapshot(text string) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.host.snapshot(text)
}

// seqNow returns the last seq sent.
func (h *autoHost) seqNow() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.seq
}

// sendSnapshot is snapshot for the reader goroutine, which may not fail
// the test: it returns the error instead.
func (h *autoHost) sendSnapshot(text string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	sn, err := attachwire.NewSnapshot(h.seq, screen(h.epoch, text))
	if err != nil {
		return err
	}
	f, err := sn.Frame(h.seq+1, h.seq+1)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), relaytest.Timeout)
	defer cancel()
	if err := h.c.Send(ctx, f); err != nil {
		return err
	}
	h.seq++
	return nil
}

// A viewer that stops reading is skipped forward to a snapshot once it
// lags past ViewerQueueBytes, and continues contiguously from there; a
// viewer reading everything meanwhile gets every frame with no gap.
//
// Nothing here depends on the machine's speed: the host keeps at most
// fastWindow frames (1 MiB, a quarter of the budget) ahead of the reading
// viewer, as a PTY under flow control would, so that viewer is never
// skipped however slowly it is scheduled; the paused viewer is not pinged
// (it could not answer) nor timed out while it waits; and the host answers
// snapshot requests from its own reader, so the test waiting on a viewer
// never leaves that viewer waiting on the host.
func TestBackpressureSlowViewerSkipsToSnapshot(t *testing.T) {
	cfg := quiet()
	cfg.RingBytes = 16 << 20
	cfg.ViewerQueueBytes = 4 << 20
	// The paused viewer must outlast the flood however long it takes:
	// this test is about the skip; TestBackpressureStuckViewerClosed is
	// about the close and TestKeepaliveClosesSilentLeg about silence.
	cfg.WriteTimeout = time.Hour
	cfg.PingInterval = time.Hour
	cfg.SilenceTimeout = 2 * time.Hour
	s := relaytest.NewServer(t, cfg)
	h := newAnsweringHost(t, s, 1)
	h.snapshot("start")
	slow := dialViewer(t, s, s.ViewerToken(t, room, "slow"), attachwire.RoleViewer, attachwire.Subscribe{})
	fast := dialViewer(t, s, s.ViewerToken(t, room, "fast"), attachwire.RoleViewer, attachwire.Subscribe{})
	first := relaytest.NextFrame(t, fast)
	snapshotOf(t, first)
	// 6000 frames of 4000 bytes: 23 MiB, more than the ring holds and far
	// more than the paused viewer's socket buffers.
	const frames = 6000
	const fastWindow = 256
	chunk := strings.Repeat("z", 4000)
	var fastSeq atomic.Uint64 // the last seq the reading viewer took
	fastSeq.Store(first.Seq)
	fastDone := make(chan struct{})
	var fastErr error
	go func() {
		defer close(fastDone)
		next := first.Seq + 1
		for fastSeq.Load() < first.Seq+frames {
			f, err := fast.Next(ctxT(t))
			if err != nil {
				fastErr = err
				return
			}
			if f.Type == attachwire.TypeControl {
				continue
			}
			// Snapshots the host sends for the paused viewer are part of
			// the stream, at their seq like any frame.
			if f.Seq != next {
				fastErr = errGap{f.Seq, next}
				return
			}
			next++
			fastSeq.Store(f.Seq)
		}
	}()
	fastEnded := func() bool {
		select {
		case <-fastDone:
			return true
		default:
			return false
		}
	}
	for sent := 0; sent < frames && !fastEnded(); sent++ {
		for h.seqNow() > fastSeq.Load()+fastWindow && !fastEnded() {
			time.Sleep(100 * time.Microsecond)
		}
		h.output(chunk)
	}
	<-fastDone
	if fastErr != nil {
		t.Fatalf("fast viewer: %v", fastErr)
	}
	// The slow viewer now reads: its backlog is far past the budget (or off
	// the ring), so it is brought forward by a snapshot and continues from
	// its seq+1.
	var sNext uint64
	for {
		f := relaytest.NextFrame(t, slow)
		if f.Type == attachwire.TypeSnapshot && sNext != 0 && f.Seq != sNext {
			h.output("after") // the skip may have landed on the newest frame
			if g := relaytest.NextFrame(t, slow); g.Seq != f.Seq+1 {
				t.Fatalf("after the skip to snapshot %d the next frame is %d", f.Seq, g.Seq)
			}
			break
		}
		if f.Seq > first.Seq+frames {
			t.Fatal("the slow viewer read the whole backlog: it was never skipped")
		}
		sNext = f.Seq + 1
	}
	if got := metric(t, s, "ptyhost_relay_viewer_skips_total"); got < 1 {
		t.Fatalf("skips metric %v", got)
	}
}

type errGap struct{ got, want uint64 }

func (e errGap) Error() string { return "gap: got seq " + u(e.got) + ", want " + u(e.want) }

func u(v uint64) string { return strconv.FormatUint(v, 10) }

// A viewer that cannot take even its catch-up within WriteTimeout is
// closed, and counted.
func TestBackpressureStuckViewerClosed(t *testing.T) {
	cfg := quiet()
	cfg.WriteTimeout = 200 * time.Millisecond
	cfg.SnapshotRetry = 20 * time.Millisecond
	cfg.RingBytes = 1 << 20
	cfg.ViewerQueueBytes = 64 << 10
	// The stuck client cannot answer pings: without this it would be
	// closed as silent (not counted as backpressure) on a slow machine.
	cfg.PingInterval = time.Hour
	cfg.SilenceTimeout = 2 * time.Hour
	s := relaytest.NewServer(t, cfg)
	h := newAutoHost(t, s, 1)
	h.snapshot("start")
	dialViewer(t, s, s.ViewerToken(t, room, "stuck"), attachwire.RoleViewer, attachwire.Subscribe{})
	chunk := strings.Repeat("z", 60000)
	// Every round adds 3.7 MiB the stuck socket must take; the close comes
	// once its buffers are full. The watchdog is generous because on a
	// loaded machine the host's sends alone can run below 1 MiB/s.
	deadline := time.Now().Add(2 * time.Minute)
	for metric(t, s, "ptyhost_relay_backpressure_closes_total") < 1 {
		if time.Now().After(deadline) {
			_, body := s.Get(t, "/metrics")
			t.Fatalf("the stuck viewer was never closed\n%s", body)
		}
		for range 64 {
			h.output(chunk)
			h.answer()
		}
	}
}

// The relay sanitizes once per room on ingest: hostile output split at
// every interior byte across frames reaches a viewer as exactly what one
// Driver-profile pass over the whole stream gives.
func TestSanitizeOnIngestSplitAtEveryByte(t *testing.T) {
	stream := []byte("a\x1b]52;c;aGVsbG8=\x07b\x1b[31mred\x1b[0m\x1b]0;title\x07\x1bP+q544e\x1b\\c\x1b[6n\x1b[?1000hd\x1b]8;;http://x\x07link\x1b]8;;\x07\xe2\x82\xac\x9b5n")
	want := sanitize.New(sanitize.Options{Profile: sanitize.Driver}).Append(nil, stream)
	cfg := quiet()
	cfg.DialsPerSecond = 1e6
	s := relaytest.NewServer(t, cfg)
	for cut := 1; cut < len(stream); cut++ {
		h := dialHost(t, s, uint64(cut))
		h.snapshot("")
		v := dialViewer(t, s, s.ViewerToken(t, room, "v"), attachwire.RoleViewer, attachwire.Subscribe{})
		snapshotOf(t, relaytest.NextFrame(t, v))
		h.output(string(stream[:cut]))
		h.output(string(stream[cut:]))
		var got []byte
		for range 2 {
			got = append(got, outputOf(t, relaytest.NextFrame(t, v))...)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("cut at %d: viewer got %q, want %q", cut, got, want)
		}
		v.Close()
		h.c.Close()
		waitHostGone(t, s)
	}
}

// Real programs' recorded output (the sanitizer's stream corpus), pushed
// through a host leg one byte per frame (so split at every interior byte)
// and in seeded random chunks, reaches a viewer as exactly one
// Driver-profile pass over each whole stream.
func TestSanitizeOnIngestRecordedStreams(t *testing.T) {
	files, err := filepath.Glob("../attachwire/sanitize/testdata/streams/*.raw")
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded streams: %v", err)
	}
	cfg := quiet()
	cfg.RingBytes = 64 << 20
	cfg.ViewerQueueBytes = 64 << 20
	s := relaytest.NewServer(t, cfg)
	epoch := uint64(100)
	for i, name := range files {
		for _, mode := range []string{"bytes", "chunks"} {
			epoch++
			t.Run(filepath.Base(name)+"/"+mode, func(t *testing.T) {
				stream, err := os.ReadFile(name)
				if err != nil {
					t.Fatal(err)
				}
				want := sanitize.New(sanitize.Options{Profile: sanitize.Driver}).Append(nil, stream)
				h := dialHost(t, s, epoch)
				h.snapshot("")
				v := dialViewer(t, s, s.ViewerToken(t, room, "v"), attachwire.RoleViewer, attachwire.Subscribe{})
				snapshotOf(t, relaytest.NextFrame(t, v))
				rnd := rand.New(rand.NewPCG(uint64(i), 7))
				n := 0
				for p := stream; len(p) > 0; n++ {
					k := 1
					if mode == "chunks" {
						k = min(1+rnd.IntN(4096), len(p))
					}
					h.output(string(p[:k]))
					p = p[k:]
				}
				var got []byte
				for range n {
					got = append(got, outputOf(t, relaytest.NextFrame(t, v))...)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("viewer got %d bytes, one pass gives %d; first difference at %d", len(got), len(want), firstDiff(got, want))
				}
				v.Close()
				h.c.Close()
				waitHostGone(t, s)
				waitLegs(t, s, attachwire.RoleViewer, 0)
			})
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// ViewerBytesPerSecond holds a reading viewer to its rate: a burst faster
// ViewerBytesPerSecond holds a reading viewer to its rate: a burst faster
// than that makes it lag, and it is skipped forward to a snapshot like a
// slow one. The cap (8 KiB/s, a 16 KiB bucket) is low enough that the 300
// KB burst outruns it however slowly the host's sends are scheduled.
func TestViewerByteRateCapSkips(t *testing.T) {
	cfg := quiet()
	cfg.ViewerBytesPerSecond = 8 << 10
	cfg.ViewerQueueBytes = 16 << 10
	s := relaytest.NewServer(t, cfg)
	h := newAnsweringHost(t, s, 1)
	h.snapshot("start")
	v := dialViewer(t, s, s.ViewerToken(t, room, "capped"), attachwire.RoleViewer, attachwire.Subscribe{})
	first := relaytest.NextFrame(t, v)
	snapshotOf(t, first)
	for range 300 {
		h.output(strings.Repeat("r", 1000))
	}
	sent := h.seqNow()
	next := first.Seq + 1
	for {
		f := relaytest.NextFrame(t, v)
		if f.Type == attachwire.TypeSnapshot && f.Seq > next {
			break // skipped forward
		}
		if f.Seq != next {
			t.Fatalf("seq %d, want %d", f.Seq, next)
		}
		next++
		if next > sent {
			t.Fatal("the capped viewer received the whole burst: the cap did not hold it back")
		}
	}
}
