package viewer_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
	"github.com/ptyhost/ptyhost/faultproxy"
	"github.com/ptyhost/ptyhost/internal/term"
	"github.com/ptyhost/ptyhost/internal/term/engine"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/viewer"
)

const room = "sess-v"

func quiet() relay.Config {
	return relay.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

func u64(v uint64) *uint64 { return &v }

// testHost is a host leg driven by the test: it feeds its own terminal
// engine what it sends as Output (so its Snapshot is the host's truth),
// answers snapshot_request with an in-stream Snapshot, and collects the
// Input the relay forwards. In a sealed room it seals every frame it
// sends, as attachclient does. Safe for use by the test goroutine while
// its reader runs.
type testHost struct {
	t     testing.TB
	c     *relaytest.Conn
	epoch uint64
	room  *seal.Room // nil: a plain room

	mu     sync.Mutex
	emu    *engine.Engine
	seq    uint64
	exited uint64 // the Exit frame's seq, once sent

	input     chan []byte
	resized   attachwire.Resize // the last authoritative Resize; under mu
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	closeOnce sync.Once
}

func newHost(t testing.TB, s *relaytest.Server, epoch uint64, cols, rows int) *testHost {
	t.Helper()
	return newSealedHost(t, s, epoch, cols, rows, nil)
}

// newSealedHost is newHost in a room sealed under key (nil: plain).
func newSealedHost(t testing.TB, s *relaytest.Server, epoch uint64, cols, rows int, key *seal.Key) *testHost {
	t.Helper()
	sub := attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleHost, Epoch: u64(epoch)}
	var sr *seal.Room
	if key != nil {
		sub.Sealed, sr = key.ID().String(), seal.NewRoom(key, room)
	}
	c := relaytest.MustDial(t, s.RoomURL(room), s.HostToken(t, room, epoch), sub)
	ctx, cancel := context.WithCancel(context.Background())
	h := &testHost{t: t, c: c, epoch: epoch, room: sr, emu: engine.New(term.Options{Cols: cols, Rows: rows}),
		input: make(chan []byte, 1024), cancel: cancel}
	h.wg.Go(func() { h.read(ctx) })
	t.Cleanup(func() {
		h.close()
		h.emu.Close()
	})
	return h
}

// close drops the host leg; it is idempotent.
func (h *testHost) close() {
	h.closeOnce.Do(func() {
		h.cancel()
		h.c.WS.CloseNow()
		h.wg.Wait()
	})
}

func (h *testHost) read(ctx context.Context) {
	for {
		f, err := h.c.Next(ctx)
		if err != nil {
			return
		}
		switch f.Type {
		case attachwire.TypeInput:
			in, err := attachwire.DecodeInput(f.Payload)
			if err == nil {
				h.input <- append([]byte(nil), in.Data...)
			}
		case attachwire.TypeResize:
			if rs, err := attachwire.DecodeResize(f.Payload); err == nil {
				h.mu.Lock()
				h.resized = rs
				h.mu.Unlock()
			}
		case attachwire.TypeControl:
			ctl, err := attachwire.DecodeControl(f.Payload)
			if req, ok := ctl.(attachwire.SnapshotRequest); ok && err == nil {
				if req.Reason == attachwire.SnapshotKeyframe {
					h.keyframe()
				} else {
					h.snapshot()
				}
			}
		}
	}
}

func (h *testHost) sendLocked(f attachwire.Frame) {
	if h.room != nil {
		var err error
		if f.Type == attachwire.TypeSnapshot && f.Seq == 0 && h.exited != 0 {
			f, err = h.room.SealFinal(f, h.epoch)
		} else {
			f, err = h.room.Seal(f, h.epoch)
		}
		if err != nil {
			h.t.Errorf("host seal: %v", err)
			return
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), relaytest.Timeout)
	defer cancel()
	if err := h.c.Send(ctx, f); err != nil && ctx.Err() == nil && !errors.Is(err, net.ErrClosed) {
		h.t.Errorf("host send: %v", err)
	}
}

// output feeds p to the host's engine and sends it as the next frame.
func (h *testHost) output(p []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.emu.Write(p)
	h.seq++
	h.sendLocked(attachwire.NewOutputFrame(h.seq, h.seq, append([]byte(nil), p...)))
}

// outputAt is output with the frame's rel_time set to rel (µs); it
// returns the frame's seq (a snapshot the host answers meanwhile may take
// the next).
func (h *testHost) outputAt(rel uint64, p []byte) uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.emu.Write(p)
	h.seq++
	h.sendLocked(attachwire.NewOutputFrame(h.seq, rel, append([]byte(nil), p...)))
	return h.seq
}

// screen is the host's own snapshot: its engine's screen and atSeq.
func (h *testHost) screen() (attachwire.Screen, uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.screenLocked(), h.seq
}

func (h *testHost) screenLocked() attachwire.Screen {
	var scr attachwire.Screen
	h.emu.Screen(&scr)
	scr.Epoch, scr.Echo = h.epoch, attachwire.EchoOn
	return scr
}

// snapshot publishes an in-stream Snapshot (seq S, atSeq S-1), or after
// Exit the post-Exit one (seq 0, atSeq the Exit's seq).
func (h *testHost) snapshot() {
	h.mu.Lock()
	defer h.mu.Unlock()
	scr := h.screenLocked()
	sn, err := attachwire.NewSnapshot(h.seq, &scr)
	if err != nil {
		h.t.Errorf("host snapshot: %v", err)
		return
	}
	seq := uint64(0)
	if h.exited == 0 {
		h.seq++
		seq = h.seq
	}
	f, err := sn.Frame(seq, seq)
	if err != nil {
		h.t.Errorf("host snapshot: %v", err)
		return
	}
	h.sendLocked(f)
}

// keyframe answers a key frame request as attachclient does: a seq-0
// Snapshot at the current seq, beside the stream.
func (h *testHost) keyframe() {
	h.mu.Lock()
	defer h.mu.Unlock()
	scr := h.screenLocked()
	sn, err := attachwire.NewSnapshot(h.seq, &scr)
	if err != nil {
		h.t.Errorf("host key frame: %v", err)
		return
	}
	f, err := sn.Frame(0, h.seq)
	if err != nil {
		h.t.Errorf("host key frame: %v", err)
		return
	}
	h.sendLocked(f)
}

// exit sends the Exit frame.
func (h *testHost) exit(code uint32) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seq++
	h.exited = h.seq
	h.sendLocked(attachwire.Exit{Code: code}.Frame(h.seq, h.seq))
}

// expectInput waits until the host has received want (maybe in pieces).
func (h *testHost) expectInput(want string) {
	h.t.Helper()
	var got strings.Builder
	deadline := time.After(relaytest.Timeout)
	for got.Len() < len(want) {
		select {
		case p := <-h.input:
			got.Write(p)
		case <-deadline:
			h.t.Fatalf("host got input %q, want %q", got.String(), want)
		}
	}
	if got.String() != want {
		h.t.Fatalf("host got input %q, want %q", got.String(), want)
	}
}

// noInput checks that nothing more reaches the host within a short while
// (a negative check: it can only fail, never flake into a false pass).
func (h *testHost) noInput() {
	h.t.Helper()
	select {
	case p := <-h.input:
		h.t.Fatalf("host got unexpected input %q", p)
	case <-time.After(200 * time.Millisecond):
	}
}

// recorder collects a Client's events.
type recorder struct {
	mu     sync.Mutex
	events []viewer.Event
}

func (r *recorder) on(ev viewer.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
}

func (r *recorder) count(k viewer.EventKind) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, ev := range r.events {
		if ev.Kind == k {
			n++
		}
	}
	return n
}

// dial starts a Client for room with tok, through url (the relay or a
// proxy), recording its events.
func dial(t testing.TB, url, tok string, role attachwire.Role) (*viewer.Client, *recorder) {
	t.Helper()
	rec := &recorder{}
	ctx, cancel := context.WithTimeout(context.Background(), relaytest.Timeout)
	defer cancel()
	c, err := viewer.Dial(ctx, viewer.Config{
		URL: url + "/v1/rooms/" + room, Token: tok, Role: role, OnEvent: rec.on,
		Viewport:   attachwire.Viewport{Cols: 80, Rows: 24},
		BackoffMin: 10 * time.Millisecond, BackoffMax: 100 * time.Millisecond,
	})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c, rec
}

// waitMirror waits until c's mirror shows the host's screen at the host's
// head (of this host: after a relay restart the seqs start again), and
// fails with the difference otherwise.
func waitMirror(t testing.TB, c *viewer.Client, h *testHost) {
	t.Helper()
	want, at := h.screen()
	deadline := time.Now().Add(relaytest.Timeout)
	for {
		got, seq, ok := c.Mirror()
		d := "no snapshot yet"
		if ok {
			d = screenDiff(want, got)
		}
		if ok && seq >= at && d == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("mirror at seq %d differs from the host's screen at seq %d: %s", seq, at, d)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitAt waits until c's mirror has applied seq and returns its screen.
func waitAt(t testing.TB, c *viewer.Client, at uint64) attachwire.Screen {
	t.Helper()
	deadline := time.Now().Add(relaytest.Timeout)
	for {
		got, seq, ok := c.Mirror()
		if ok && seq >= at {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("mirror at seq %d (ok %v), host at %d", seq, ok, at)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// screenDiff compares what a terminal shows: size, active buffer, grids,
// cursor and modes ("" when equal). Scrollback is left out: a mirror
// keeps what it saw, not what the host keeps.
func screenDiff(want, got attachwire.Screen) string {
	var b strings.Builder
	if want.Cols != got.Cols || want.Rows != got.Rows {
		return "size " + itoa(got.Cols) + "x" + itoa(got.Rows) + ", want " + itoa(want.Cols) + "x" + itoa(want.Rows)
	}
	if want.Active != got.Active {
		b.WriteString("active buffer differs; ")
	}
	if want.CursorRow != got.CursorRow || want.CursorCol != got.CursorCol || want.CursorVisible != got.CursorVisible {
		b.WriteString("cursor (" + itoa(got.CursorRow) + "," + itoa(got.CursorCol) + ") want (" + itoa(want.CursorRow) + "," + itoa(want.CursorCol) + "); ")
	}
	if want.Epoch != got.Epoch {
		b.WriteString("epoch differs; ")
	}
	grid := func(name string, w, g []attachwire.Cell) {
		if len(w) != len(g) {
			b.WriteString(name + " grid length differs; ")
			return
		}
		for i := range w {
			if w[i] != g[i] {
				b.WriteString(name + " row " + itoa(i/want.Cols) + ": " + testkit.Row(g, want.Cols, i/want.Cols) + " | want " + testkit.Row(w, want.Cols, i/want.Cols) + "; ")
				return
			}
		}
	}
	if want.Active == attachwire.BufferAlternate {
		grid("alt", want.Alt, got.Alt)
	} else {
		grid("primary", want.Primary, got.Primary)
	}
	return b.String()
}

func itoa(n int) string {
	if n < 0 {
		return "-" + itoa(-n)
	}
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// proxy is a faultproxy between Clients and the relay whose connections
// the test can cut, as a network drop would.
type proxy struct {
	URL string
	fp  *faultproxy.Proxy
}

func newProxy(t testing.TB, s *relaytest.Server) *proxy {
	t.Helper()
	fp, err := faultproxy.New(strings.TrimPrefix(s.URL, "ws://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fp.Close() })
	return &proxy{URL: "ws://" + fp.Addr(), fp: fp}
}

// retarget sends later connections to s instead.
func (p *proxy) retarget(s *relaytest.Server) {
	p.fp.SetTarget(strings.TrimPrefix(s.URL, "ws://"))
}

// cut closes every connection through the proxy.
func (p *proxy) cut() { p.fp.CutAfter(faultproxy.Downstream, 0) }
