package viewer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/viewer"
)

// gate is an HTTP proxy in front of the relay that can break WebSocket
// the way a corporate proxy does (upgrades answered 502), not serve the
// lane (404), lose POST answers after forwarding them (502, so the
// client retries a batch the relay already applied) or answer POSTs 429.
type gate struct {
	URL string // ws://…
	srv *httptest.Server

	blockWS  atomic.Int64 // upgrades still to refuse; negative: all
	lane404  atomic.Bool
	lose     atomic.Int64 // POST answers still to lose
	busy     atomic.Int64 // POSTs still to answer 429
	gone     atomic.Int64 // POSTs still to answer 410
	conflict atomic.Int64 // POSTs still to answer 409 (the batch refused whole)
	refused  atomic.Int64 // upgrades refused
	upgrades atomic.Int64 // upgrades let through
	laneGETs atomic.Int64
	notFound atomic.Int64 // lane requests answered 404
	lastGET  atomic.Value // the last lane GET's query string
	posts    atomic.Int64 // POSTs forwarded
	tooLarge atomic.Int64 // POSTs the relay answered 413
	maxBody  atomic.Int64 // the largest POST body forwarded
}

// statusWriter remembers the status a handler answered.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func newGate(t testing.TB, s *relaytest.Server) *gate {
	t.Helper()
	target, err := url.Parse("http://" + strings.TrimPrefix(s.URL, "ws://"))
	if err != nil {
		t.Fatal(err)
	}
	g := &gate{}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ErrorLog = nil
	g.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		lane := strings.HasSuffix(r.URL.Path, "/sse") || strings.HasSuffix(r.URL.Path, "/input")
		switch {
		case strings.EqualFold(r.Header.Get("Upgrade"), "websocket"):
			if n := g.blockWS.Load(); n != 0 {
				if n > 0 {
					g.blockWS.Add(-1)
				}
				g.refused.Add(1)
				http.Error(w, "websocket blocked", http.StatusBadGateway)
				return
			}
			g.upgrades.Add(1)
		case lane && g.lane404.Load():
			g.notFound.Add(1)
			http.NotFound(w, r)
			return
		case r.Method == http.MethodGet && lane:
			g.laneGETs.Add(1)
			g.lastGET.Store(r.URL.RawQuery)
		case r.Method == http.MethodPost && lane:
			if g.busy.Load() > 0 {
				g.busy.Add(-1)
				w.Header().Set("Retry-After", "1")
				http.Error(w, "busy", http.StatusTooManyRequests)
				return
			}
			if g.gone.Load() > 0 {
				g.gone.Add(-1)
				http.Error(w, "no sse leg", http.StatusGone)
				return
			}
			if g.conflict.Load() > 0 {
				g.conflict.Add(-1)
				var b struct{ FirstInputSeq *uint64 }
				json.NewDecoder(r.Body).Decode(&b)
				ack := uint64(0)
				if b.FirstInputSeq != nil {
					ack = *b.FirstInputSeq - 1
				}
				w.WriteHeader(http.StatusConflict)
				fmt.Fprintf(w, `{"batchId":"x","ackInputSeq":%d}`, ack)
				return
			}
			g.posts.Add(1)
			if r.ContentLength > g.maxBody.Load() {
				g.maxBody.Store(r.ContentLength) // one POST at a time per Client
			}
			if g.lose.Load() > 0 {
				g.lose.Add(-1)
				rp.ServeHTTP(httptest.NewRecorder(), r)
				http.Error(w, "answer lost", http.StatusBadGateway)
				return
			}
			sw := &statusWriter{ResponseWriter: w}
			rp.ServeHTTP(sw, r)
			if sw.status == http.StatusRequestEntityTooLarge {
				g.tooLarge.Add(1)
			}
			return
		}
		rp.ServeHTTP(w, r)
	}))
	g.URL = "ws://" + strings.TrimPrefix(g.srv.URL, "http://")
	t.Cleanup(g.srv.Close)
	return g
}

// laneDial starts a driver Client through url with a short upgrade probe
// and its own HTTP transport (closed at cleanup, for goleak).
func laneDial(t testing.TB, url, tok string) (*viewer.Client, *recorder) {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	rec := &recorder{}
	ctx, cancel := context.WithTimeout(context.Background(), relaytest.Timeout)
	defer cancel()
	c, err := viewer.Dial(ctx, viewer.Config{
		URL: url + "/v1/rooms/" + room, Token: tok, Role: attachwire.RoleDriver, OnEvent: rec.on,
		Viewport:   attachwire.Viewport{Cols: 80, Rows: 24},
		BackoffMin: 10 * time.Millisecond, BackoffMax: 100 * time.Millisecond,
		ProbeInterval: 100 * time.Millisecond,
		HTTPClient:    &http.Client{Transport: tr},
	})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c, rec
}

// checkStream fails unless the Output events after the first Snapshot
// carry each seq once, in order, and together read want.
func checkStream(t testing.TB, rec *recorder, want string) {
	t.Helper()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var got strings.Builder
	var last uint64
	for _, ev := range rec.events {
		switch ev.Kind {
		case viewer.EventSnapshot:
			last = max(last, ev.Seq)
		case viewer.EventOutput, viewer.EventExit, viewer.EventResize, viewer.EventMarker:
			if ev.Seq <= last {
				t.Fatalf("seq %d after %d: a frame applied twice or out of order", ev.Seq, last)
			}
			last = ev.Seq
			got.Write(ev.Data)
		}
	}
	if !strings.Contains(got.String(), want) {
		t.Fatalf("output %q does not hold %q", got.String(), want)
	}
}

// typeAll sends n numbered keystrokes, one every 2 ms, and returns what
// it typed.
func typeAll(t testing.TB, c *viewer.Client, n int) string {
	var all strings.Builder
	for i := range n {
		k := fmt.Sprintf("<%d>", i)
		for {
			err := c.Input([]byte(k))
			if err == nil {
				break
			}
			if err != viewer.ErrInputFull {
				t.Errorf("input %d: %v", i, err)
				return all.String()
			}
			time.Sleep(time.Millisecond)
		}
		all.WriteString(k)
		time.Sleep(2 * time.Millisecond)
	}
	return all.String()
}

// WebSocket refused at every dial: the driver falls back to the lane
// after three failures and views, types, resizes and follows snapshots
// and Exit over it; WebSocket allowed again: it upgrades back within the
// probe interval, with keystrokes typed throughout the switch each
// delivered once and every frame applied once.
func TestLaneFallbackAndUpgrade(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := newHost(t, s, 1, 80, 24)
	g := newGate(t, s)
	g.blockWS.Store(-1)
	c, rec := laneDial(t, g.URL, s.DriverToken(t, room, "ann"))
	if !c.Lane() {
		t.Fatal("the Client did not fall back to the lane")
	}
	if n := g.refused.Load(); n != viewer.DefaultFallbackAfter {
		t.Fatalf("%d WebSocket dials refused before the lane, want %d", n, viewer.DefaultFallbackAfter)
	}
	h.output([]byte("over the lane\r\n"))
	waitMirror(t, c, h)
	testkit.Eventually(t, "the pen", func() bool { return c.Pen().Mine })
	if err := c.Input([]byte("ls\r")); err != nil {
		t.Fatal(err)
	}
	h.expectInput("ls\r")
	if err := c.Resize(100, 30); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "the resize at the host", func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.resized.Cols == 100 && h.resized.Rows == 30
	})
	h.snapshot()
	h.output([]byte("after a snapshot\r\n"))
	waitMirror(t, c, h)

	// Keystrokes and output while WebSocket comes back.
	var wg sync.WaitGroup
	var typed string
	wg.Go(func() { typed = typeAll(t, c, 100) })
	for i := range 20 {
		h.output(fmt.Appendf(nil, "line %d\r\n", i))
		time.Sleep(5 * time.Millisecond)
		if i == 5 {
			g.blockWS.Store(0)
		}
	}
	testkit.Eventually(t, "the upgrade back to WebSocket", func() bool { return !c.Lane() && g.upgrades.Load() >= 2 })
	wg.Wait()
	h.expectInput(typed)
	h.noInput()
	h.output([]byte("over websocket\r\n"))
	waitMirror(t, c, h)
	h.exit(3)
	testkit.Eventually(t, "the Exit", func() bool { return c.Ended() })
	if ex, ok := c.Exit(); !ok || ex.Code != 3 {
		t.Fatalf("exit %+v %v", ex, ok)
	}
	checkStream(t, rec, "over the lane")
	var lanes, wss int
	rec.mu.Lock()
	for _, ev := range rec.events {
		if ev.Kind == viewer.EventConnection && ev.Connected {
			if ev.Lane {
				lanes++
			} else {
				wss++
			}
		}
	}
	rec.mu.Unlock()
	if lanes < 1 || wss < 1 {
		t.Fatalf("%d lane legs and %d WebSocket legs, want both", lanes, wss)
	}
}

// A relay (or proxy) that answers the lane 404 does not strand the
// Client: after the fallback finds no lane it dials WebSocket again and
// carries on there once WebSocket works.
func TestLane404ReturnsToWebSocket(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := newHost(t, s, 1, 80, 24)
	g := newGate(t, s)
	p := newProxy(t, s)
	p.fp.SetTarget(strings.TrimPrefix(g.URL, "ws://"))
	c, _ := laneDial(t, p.URL, s.DriverToken(t, room, "ann"))
	h.output([]byte("first\r\n"))
	waitMirror(t, c, h)
	g.lane404.Store(true)
	g.blockWS.Store(int64(viewer.DefaultFallbackAfter))
	p.cut()
	testkit.Eventually(t, "WebSocket again", func() bool { return g.refused.Load() == 3 && g.upgrades.Load() >= 2 })
	if c.Lane() || g.notFound.Load() == 0 {
		t.Fatalf("lane answered 404 %d times, Client on the lane: %v", g.notFound.Load(), c.Lane())
	}
	h.output([]byte("second\r\n"))
	waitMirror(t, c, h)
	testkit.Eventually(t, "the pen", func() bool { return c.Pen().Mine })
	if err := c.Input([]byte("x")); err != nil {
		t.Fatal(err)
	}
	h.expectInput("x")
}

// At-least-once POSTs: an answer lost after the relay applied the batch
// is retried with the same batchId and applied once; a 429 is waited out
// and retried. Every keystroke arrives once.
func TestLanePostRetries(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := newHost(t, s, 1, 80, 24)
	g := newGate(t, s)
	g.blockWS.Store(-1)
	c, _ := laneDial(t, g.URL, s.DriverToken(t, room, "ann"))
	h.output([]byte("x\r\n"))
	waitMirror(t, c, h)
	testkit.Eventually(t, "the pen", func() bool { return c.Pen().Mine })
	g.lose.Store(2)
	if err := c.Input([]byte("one")); err != nil {
		t.Fatal(err)
	}
	h.expectInput("one")
	testkit.Eventually(t, "the lost answers", func() bool { return g.lose.Load() == 0 })
	g.busy.Store(1)
	if err := c.Input([]byte("two")); err != nil {
		t.Fatal(err)
	}
	h.expectInput("two")
	h.noInput()
	if g.busy.Load() != 0 {
		t.Fatal("the 429 was not served")
	}
}

// A 409 (the batch refused whole) makes the Client resend its inputs
// from the ack and its controls again; a 410 (no live SSE half) reopens
// the SSE at once and resends what was not acknowledged.
func TestLaneConflictAndGone(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := newHost(t, s, 1, 80, 24)
	g := newGate(t, s)
	g.blockWS.Store(-1)
	c, rec := laneDial(t, g.URL, s.DriverToken(t, room, "ann"))
	h.output([]byte("x\r\n"))
	waitMirror(t, c, h)
	testkit.Eventually(t, "the pen", func() bool { return c.Pen().Mine })
	g.conflict.Store(1)
	if err := c.Resize(90, 20); err != nil {
		t.Fatal(err)
	}
	if err := c.Input([]byte("one")); err != nil {
		t.Fatal(err)
	}
	h.expectInput("one")
	testkit.Eventually(t, "the resize at the host", func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.resized.Cols == 90 && h.resized.Rows == 20
	})
	if g.conflict.Load() != 0 {
		t.Fatal("the 409 was not served")
	}
	gets, snaps := g.laneGETs.Load(), rec.count(viewer.EventSnapshot)
	g.gone.Store(1)
	if err := c.Input([]byte("two")); err != nil {
		t.Fatal(err)
	}
	h.expectInput("two")
	h.noInput()
	if g.gone.Load() != 0 || g.laneGETs.Load() <= gets {
		t.Fatalf("410 left %d, SSE GETs %d → %d: the SSE was not reopened", g.gone.Load(), gets, g.laneGETs.Load())
	}
	h.output([]byte("still here\r\n"))
	waitMirror(t, c, h)
	if n := rec.count(viewer.EventSnapshot); n != snaps {
		t.Fatalf("%d Snapshots after the SSE reopened, want none: the reopen did not resume", n-snaps)
	}
	if q, _ := g.lastGET.Load().(string); !strings.Contains(q, "resume_from=") || !strings.Contains(q, "epoch=1") {
		t.Fatalf("the reopened SSE asked %q, want a resume", q)
	}

	// A read-only viewer on the lane too, then the Exit over it.
	v, _ := laneDial(t, g.URL, s.ViewerToken(t, room, "vic"))
	waitMirror(t, v, h)
	if !v.Lane() || v.Pen().Mine {
		t.Fatalf("viewer on the lane %v, holding the pen %v", v.Lane(), v.Pen().Mine)
	}
	h.exit(7)
	for _, cl := range []*viewer.Client{c, v} {
		select {
		case <-cl.Done():
		case <-time.After(relaytest.Timeout):
			t.Fatal("the Exit over the lane did not end the Client")
		}
		if ex, ok := cl.Exit(); !ok || ex.Code != 7 || cl.Err() != nil {
			t.Fatalf("exit %+v %v, err %v", ex, ok, cl.Err())
		}
	}
}

// A driver on the lane whose MaxPendingInput lets megabytes wait sends a
// 4 MiB paste in POSTs of bounded size: it reaches the host whole and in
// order, no POST is refused as too large (413), and the Client stays on
// the lane. (Before, every due input went in one POST, which the relay
// refused past its body limit, and the Client left the lane.)
func TestLaneLargeInputInBoundedBatches(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := newHost(t, s, 1, 80, 24)
	g := newGate(t, s)
	g.blockWS.Store(-1)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	ctx, cancel := context.WithTimeout(context.Background(), relaytest.Timeout)
	defer cancel()
	c, err := viewer.Dial(ctx, viewer.Config{
		URL: g.URL + "/v1/rooms/" + room, Token: s.DriverToken(t, room, "ann"), Role: attachwire.RoleDriver,
		Viewport:   attachwire.Viewport{Cols: 80, Rows: 24},
		BackoffMin: 10 * time.Millisecond, BackoffMax: 100 * time.Millisecond,
		HTTPClient: &http.Client{Transport: tr}, MaxPendingInput: 8 << 20,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	testkit.Eventually(t, "the pen on the lane", func() bool { return c.Lane() && c.Pen().Mine })
	paste := make([]byte, 4<<20)
	for i := range paste {
		paste[i] = byte('a' + (i/7)%26)
	}
	if err := c.Input(paste); err != nil {
		t.Fatal(err)
	}
	var got []byte
	// 4 MiB through POSTs under -race on a loaded machine takes seconds:
	// the watchdog is the kit's, not a single dial's.
	deadline := time.After(testkit.Deadline)
	for len(got) < len(paste) {
		select {
		case p := <-h.input:
			got = append(got, p...)
		case <-deadline:
			t.Fatalf("watchdog: the host got %d of %d bytes; 413s %d, on the lane %v", len(got), len(paste), g.tooLarge.Load(), c.Lane())
		}
	}
	if !bytes.Equal(got, paste) {
		t.Fatal("the host got the paste's bytes changed or out of order")
	}
	if n := g.tooLarge.Load(); n != 0 || !c.Lane() {
		t.Fatalf("%d POSTs refused as too large; on the lane %v", n, c.Lane())
	}
	if m := g.maxBody.Load(); m > 512<<10 {
		t.Fatalf("a POST of %d bytes", m)
	}
}
