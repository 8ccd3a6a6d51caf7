package relay_test

import (
	"bytes"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/sanitize"
	"github.com/ptyhost/ptyhost/relaytest"
)

// autoHost is a host that answers snapshot requests between the frames it
// floods, as a ptyhost session does. Its reader goroutine ends when the leg
// closes.
type autoHost struct {
	*host
	requests chan struct{}
	wg       sync.WaitGroup
}

func newAutoHost(t *testing.T, s *relaytest.Server, epoch uint64) *autoHost {
	h := &autoHost{host: dialHost(t, s, epoch), requests: make(chan struct{}, 1)}
	h.wg.Go(func() {
		for {
			f, err := h.c.Next(ctxT(t))
			if err != nil {
				return
			}
			if f.Type == attachwire.TypeControl {
				select {
				case h.requests <- struct{}{}:
				default:
				}
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

// A viewer that stops reading is skipped forward to a snapshot once it
// lags past ViewerQueueBytes, and continues contiguously from there; a
// viewer reading everything meanwhile gets every frame, and the host is
// never held back.
func TestBackpressureSlowViewerSkipsToSnapshot(t *testing.T) {
	cfg := quiet()
	s := relaytest.NewServer(t, cfg)
	h := newAutoHost(t, s, 1)
	h.snapshot("start")
	slow := dialViewer(t, s, s.ViewerToken(t, room, "slow"), attachwire.RoleViewer, attachwire.Subscribe{})
	fast := dialViewer(t, s, s.ViewerToken(t, room, "fast"), attachwire.RoleViewer, attachwire.Subscribe{})
	first := relaytest.NextFrame(t, fast)
	snapshotOf(t, first)
	next := first.Seq + 1
	var fastDone sync.WaitGroup
	var fastErr error
	const frames = 4000
	chunk := strings.Repeat("z", 4000)
	fastDone.Go(func() {
		for next <= first.Seq+frames {
			f, err := fast.Next(ctxT(t))
			if err != nil {
				fastErr = err
				return
			}
			if f.Type == attachwire.TypeControl || f.Type == attachwire.TypeSnapshot && f.Seq != next {
				continue
			}
			if f.Seq != next {
				fastErr = errGap{f.Seq, next}
				return
			}
			next++
		}
	})
	for range frames {
		h.output(chunk)
		h.answer()
	}
	fastDone.Wait()
	if fastErr != nil {
		t.Fatalf("fast viewer: %v", fastErr)
	}
	// The slow viewer now reads: its backlog is far past the budget, so it
	// is brought forward by a snapshot and continues from there.
	skipped := false
	var sNext uint64
	for !skipped {
		h.answer()
		f := relaytest.NextFrame(t, slow)
		if f.Type == attachwire.TypeSnapshot && sNext != 0 && f.Seq != sNext {
			skipped = true
		}
		sNext = f.Seq + 1
		if !skipped && f.Seq > first.Seq+frames {
			break
		}
	}
	if !skipped {
		t.Fatal("the slow viewer read the whole backlog: it was never skipped")
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
	s := relaytest.NewServer(t, cfg)
	h := newAutoHost(t, s, 1)
	h.snapshot("start")
	dialViewer(t, s, s.ViewerToken(t, room, "stuck"), attachwire.RoleViewer, attachwire.Subscribe{})
	chunk := strings.Repeat("z", 60000)
	deadline := time.Now().Add(relaytest.Timeout)
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
