package faultproxy_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/faultproxy"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// watchdog bounds every blocking step of a test.
const watchdog = 10 * time.Second

func testCtx(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	t.Cleanup(cancel)
	return ctx
}

// target is a loopback TCP server that runs serve on each connection and
// counts them.
type target struct {
	ln       net.Listener
	accepted atomic.Int64
	wg       sync.WaitGroup
	mu       sync.Mutex
	conns    []net.Conn
}

func newTarget(t testing.TB, serve func(net.Conn)) *target {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tg := &target{ln: ln}
	tg.wg.Add(1)
	go func() {
		defer tg.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			tg.accepted.Add(1)
			tg.mu.Lock()
			tg.conns = append(tg.conns, c)
			tg.mu.Unlock()
			tg.wg.Add(1)
			go func() {
				defer tg.wg.Done()
				defer c.Close()
				serve(c)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		tg.mu.Lock()
		for _, c := range tg.conns {
			c.Close()
		}
		tg.mu.Unlock()
		tg.wg.Wait()
	})
	return tg
}

func (tg *target) addr() string { return tg.ln.Addr().String() }

// echo copies a connection's input back to it.
func echo(c net.Conn) { io.Copy(c, c) }

func newProxy(t testing.TB, target string) *faultproxy.Proxy {
	t.Helper()
	p, err := faultproxy.New(target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func dial(t testing.TB, addr string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, watchdog)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(watchdog))
	t.Cleanup(func() { c.Close() })
	return c
}

func waitStats(t testing.TB, p *faultproxy.Proxy, what string, cond func(faultproxy.Stats) bool) {
	t.Helper()
	if err := p.Wait(testCtx(t), cond); err != nil {
		t.Fatalf("waiting for %s: %v (stats %+v)", what, err, p.Stats())
	}
}

func TestForwardsBothWays(t *testing.T) {
	tg := newTarget(t, echo)
	p := newProxy(t, tg.addr())
	c := dial(t, p.Addr())
	msg := bytes.Repeat([]byte("0123456789"), 10000) // several chunks
	go c.Write(msg)
	got := make([]byte, len(msg))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, msg) {
		t.Fatal("echo through the proxy differs")
	}
	c.Close()
	waitStats(t, p, "the connection to end", func(s faultproxy.Stats) bool { return s.Live == 0 })
	s := p.Stats()
	if s.Dials != 1 || s.Forwarded != 1 || s.BytesUp != int64(len(msg)) || s.BytesDown != int64(len(msg)) || s.Cuts != 0 {
		t.Fatalf("stats %+v", s)
	}
}

func TestRefuseNextResetsWithoutReachingTarget(t *testing.T) {
	tg := newTarget(t, echo)
	p := newProxy(t, tg.addr())
	p.RefuseNext(2)
	for i := range 2 {
		// The reset reaches the client in connect or in its first read.
		c, err := net.DialTimeout("tcp", p.Addr(), watchdog)
		if err != nil {
			continue
		}
		c.SetDeadline(time.Now().Add(watchdog))
		c.Write([]byte("x"))
		n, err := c.Read(make([]byte, 1))
		c.Close()
		if err == nil {
			t.Fatalf("refused dial %d read %d bytes", i, n)
		}
	}
	c := dial(t, p.Addr())
	if _, err := c.Write([]byte("y")); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 1)
	if _, err := io.ReadFull(c, b); err != nil || b[0] != 'y' {
		t.Fatalf("third dial: %q %v", b, err)
	}
	if n := tg.accepted.Load(); n != 1 {
		t.Fatalf("target accepted %d connections, want 1", n)
	}
	waitStats(t, p, "two refusals and one forward", func(s faultproxy.Stats) bool {
		return s.Dials == 3 && s.Refused == 2 && s.Forwarded == 1
	})
}

func TestAnswer503Next(t *testing.T) {
	tg := newTarget(t, func(c net.Conn) {
		// A minimal HTTP server: one 200 answer per connection.
		http.ReadRequest(bufio.NewReader(c))
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
	})
	p := newProxy(t, tg.addr())
	p.Answer503Next(1, "7")
	p.Answer503Next(1, "")
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: watchdog}
	get := func() *http.Response {
		t.Helper()
		resp, err := client.Get("http://" + p.Addr() + "/v1/rooms/r")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if r := get(); r.StatusCode != http.StatusServiceUnavailable || r.Header.Get("Retry-After") != "7" {
		t.Fatalf("first: %d Retry-After %q", r.StatusCode, r.Header.Get("Retry-After"))
	}
	if r := get(); r.StatusCode != http.StatusServiceUnavailable || r.Header["Retry-After"] != nil {
		t.Fatalf("second (bare): %d Retry-After %q", r.StatusCode, r.Header["Retry-After"])
	}
	if n := tg.accepted.Load(); n != 0 {
		t.Fatalf("target reached %d times during the 503s", n)
	}
	if r := get(); r.StatusCode != http.StatusOK {
		t.Fatalf("third: %d", r.StatusCode)
	}
	waitStats(t, p, "two 503s and one forward", func(s faultproxy.Stats) bool {
		return s.Dials == 3 && s.Answered503 == 2 && s.Forwarded == 1
	})
}

func TestCutAfterForwardsExactlyKBytes(t *testing.T) {
	for _, tc := range []struct {
		name string
		dir  faultproxy.Direction
		k    int64
	}{
		{"upstream", faultproxy.Upstream, 10},
		{"upstream-one", faultproxy.Upstream, 1},
		{"downstream", faultproxy.Downstream, 7},
		{"downstream-across-chunks", faultproxy.Downstream, 50000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var seen atomic.Int64 // bytes the target read
			served := make(chan struct{})
			tg := newTarget(t, func(c net.Conn) {
				defer close(served)
				buf := make([]byte, 4096)
				for {
					n, err := c.Read(buf)
					seen.Add(int64(n))
					if n > 0 {
						if _, werr := c.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			})
			p := newProxy(t, tg.addr())
			c := dial(t, p.Addr())
			// One round trip first, so the connection is live when armed.
			c.Write([]byte("!"))
			if _, err := io.ReadFull(c, make([]byte, 1)); err != nil {
				t.Fatal(err)
			}
			if n := p.CutAfter(tc.dir, tc.k); n != 1 {
				t.Fatalf("armed %d connections", n)
			}
			msg := bytes.Repeat([]byte("abcdefgh"), 20000)
			go c.Write(msg)
			got, _ := io.ReadAll(c) // ends at the cut
			waitStats(t, p, "the cut", func(s faultproxy.Stats) bool { return s.Cuts == 1 && s.Live == 0 })
			s := p.Stats()
			if tc.dir == faultproxy.Upstream {
				<-served // the target has read everything it will
				if seen.Load() != 1+tc.k || s.BytesUp != 1+tc.k {
					t.Fatalf("target read %d, proxy forwarded %d; want %d", seen.Load(), s.BytesUp, 1+tc.k)
				}
				return
			}
			if int64(len(got)) != tc.k || s.BytesDown != 1+tc.k || !bytes.Equal(got, msg[:tc.k]) {
				t.Fatalf("client read %d bytes, proxy forwarded %d; want %d", len(got), s.BytesDown, tc.k)
			}
		})
	}
}

func TestCutAfterZeroCutsNow(t *testing.T) {
	tg := newTarget(t, echo)
	p := newProxy(t, tg.addr())
	c := dial(t, p.Addr())
	waitStats(t, p, "a live connection", func(s faultproxy.Stats) bool { return s.Live == 1 })
	if n := p.CutAfter(faultproxy.Upstream, 0); n != 1 {
		t.Fatalf("cut %d connections", n)
	}
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatal("read succeeded on a cut connection")
	}
	waitStats(t, p, "the cut", func(s faultproxy.Stats) bool { return s.Cuts == 1 && s.Live == 0 })
}

// wsEcho is a coder/websocket server that echoes messages and reports the
// error that ended each connection.
type wsEcho struct {
	srv   *http.Server
	ended chan error
	conns chan *websocket.Conn
}

func newWSEcho(t testing.TB) (*wsEcho, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	w := &wsEcho{ended: make(chan error, 4), conns: make(chan *websocket.Conn, 4)}
	w.srv = &http.Server{Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(rw, r, nil)
		if err != nil {
			return
		}
		w.conns <- ws
		ctx := r.Context()
		for {
			typ, msg, err := ws.Read(ctx)
			if err != nil {
				w.ended <- err
				ws.CloseNow()
				return
			}
			if err := ws.Write(ctx, typ, msg); err != nil {
				w.ended <- err
				ws.CloseNow()
				return
			}
		}
	})}
	done := make(chan struct{})
	go func() { defer close(done); w.srv.Serve(ln) }()
	t.Cleanup(func() { w.srv.Close(); <-done })
	return w, ln.Addr().String()
}

func dialWS(t testing.TB, addr string) *websocket.Conn {
	t.Helper()
	ws, _, err := websocket.Dial(testCtx(t), "ws://"+addr+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.CloseNow() })
	ws.SetReadLimit(1 << 20)
	return ws
}

func roundTrip(t testing.TB, ws *websocket.Conn, msg []byte) {
	t.Helper()
	ctx := testCtx(t)
	if err := ws.Write(ctx, websocket.MessageBinary, msg); err != nil {
		t.Fatal(err)
	}
	_, got, err := ws.Read(ctx)
	if err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("round trip: %v", err)
	}
}

func TestCutMidFrameUpstream(t *testing.T) {
	w, addr := newWSEcho(t)
	p := newProxy(t, addr)
	ws := dialWS(t, p.Addr())
	roundTrip(t, ws, []byte("before the cut"))
	before := p.Stats().BytesUp
	if n := p.CutMidFrame(faultproxy.Upstream); n != 1 {
		t.Fatalf("armed %d connections", n)
	}
	ws.Write(testCtx(t), websocket.MessageBinary, bytes.Repeat([]byte{'z'}, 1000))
	select {
	case err := <-w.ended:
		t.Logf("server read ended with: %v", err)
	case <-testCtx(t).Done():
		t.Fatal("the server never saw the connection end")
	}
	waitStats(t, p, "the cut", func(s faultproxy.Stats) bool { return s.Cuts == 1 && s.Live == 0 })
	// A masked 1000-byte frame has a 2+2+4 byte header: the cut falls
	// after it and one payload byte.
	if d := p.Stats().BytesUp - before; d != 9 {
		t.Fatalf("forwarded %d bytes of the frame, want 9 (header + 1)", d)
	}
	if _, _, err := ws.Read(testCtx(t)); err == nil {
		t.Fatal("client read a message after the cut")
	}
}

func TestCutMidFrameDownstream(t *testing.T) {
	w, addr := newWSEcho(t)
	p := newProxy(t, addr)
	ws := dialWS(t, p.Addr())
	roundTrip(t, ws, []byte("x"))
	srv := <-w.conns
	before := p.Stats().BytesDown
	p.CutMidFrame(faultproxy.Downstream)
	srv.Write(testCtx(t), websocket.MessageBinary, bytes.Repeat([]byte{'q'}, 70000))
	if _, _, err := ws.Read(testCtx(t)); err == nil {
		t.Fatal("client read a whole message across a mid-frame cut")
	}
	waitStats(t, p, "the cut", func(s faultproxy.Stats) bool { return s.Cuts == 1 })
	// An unmasked 70000-byte frame has a 2+8 byte header.
	if d := p.Stats().BytesDown - before; d != 11 {
		t.Fatalf("forwarded %d bytes of the frame, want 11 (header + 1)", d)
	}
}

func TestCutMidFrameSkipsNonWebSocket(t *testing.T) {
	tg := newTarget(t, echo)
	p := newProxy(t, tg.addr())
	c := dial(t, p.Addr())
	c.Write([]byte("HTTP/1.1 200 OK\r\n\r\n"))
	io.ReadFull(c, make([]byte, 19))
	p.CutMidFrame(faultproxy.Downstream)
	msg := bytes.Repeat([]byte{0x82, 0x7e, 0x01, 0x00}, 100) // looks like frame headers
	c.Write(msg)
	if _, err := io.ReadFull(c, make([]byte, len(msg))); err != nil {
		t.Fatalf("a non-101 stream was cut: %v", err)
	}
	if s := p.Stats(); s.Cuts != 0 {
		t.Fatalf("stats %+v", s)
	}
}

func TestStallHoldsADirectionUntilRelease(t *testing.T) {
	var echoed atomic.Int64
	tg := newTarget(t, func(c net.Conn) {
		buf := make([]byte, 64)
		for {
			n, err := c.Read(buf)
			if err != nil {
				return
			}
			c.Write(buf[:n])
			echoed.Add(int64(n))
		}
	})
	p := newProxy(t, tg.addr())
	c := dial(t, p.Addr())
	p.Stall(faultproxy.Downstream)
	c.Write([]byte("hello"))
	waitStats(t, p, "the request upstream", func(s faultproxy.Stats) bool { return s.BytesUp == 5 })
	for echoed.Load() < 5 {
		time.Sleep(time.Millisecond) // the target writes right after it reads
	}
	c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if n, err := c.Read(make([]byte, 5)); err == nil {
		t.Fatalf("read %d bytes through a stalled direction", n)
	}
	if s := p.Stats(); s.BytesDown != 0 {
		t.Fatalf("stalled direction forwarded %d bytes", s.BytesDown)
	}
	p.Release(faultproxy.Downstream)
	c.SetReadDeadline(time.Now().Add(watchdog))
	got := make([]byte, 5)
	if _, err := io.ReadFull(c, got); err != nil || string(got) != "hello" {
		t.Fatalf("after Release: %q %v", got, err)
	}
}

func TestDelayHoldsEachChunk(t *testing.T) {
	tg := newTarget(t, echo)
	p := newProxy(t, tg.addr())
	c := dial(t, p.Addr())
	const delay = 150 * time.Millisecond
	p.SetDelay(faultproxy.Upstream, delay)
	start := time.Now()
	c.Write([]byte("ping"))
	if _, err := io.ReadFull(c, make([]byte, 4)); err != nil {
		t.Fatal(err)
	}
	// A lower bound only: a busy machine makes it longer, never shorter.
	if took := time.Since(start); took < delay {
		t.Fatalf("round trip took %v with a %v delay", took, delay)
	}
	p.SetDelay(faultproxy.Upstream, 0)
}

func TestCloseJoinsStalledConnections(t *testing.T) {
	tg := newTarget(t, echo)
	p, err := faultproxy.New(tg.addr())
	if err != nil {
		t.Fatal(err)
	}
	p.Stall(faultproxy.Upstream)
	p.SetDelay(faultproxy.Downstream, time.Hour)
	var conns []net.Conn
	for range 3 {
		c := dial(t, p.Addr())
		c.Write([]byte("stuck"))
		conns = append(conns, c)
	}
	waitStats(t, p, "three live connections", func(s faultproxy.Stats) bool { return s.Live == 3 })
	p.RefuseNext(1) // left queued: Close drops it
	p.Close()
	p.Close() // idempotent
	for _, c := range conns {
		if _, err := c.Read(make([]byte, 1)); err == nil {
			t.Fatal("a connection survived Close")
		}
	}
	if err := p.Wait(context.Background(), func(faultproxy.Stats) bool { return false }); !errors.Is(err, faultproxy.ErrClosed) {
		t.Fatalf("Wait after Close: %v", err)
	}
}

func TestSetTargetMovesLaterDials(t *testing.T) {
	a := newTarget(t, func(c net.Conn) { io.WriteString(c, "a") })
	b := newTarget(t, func(c net.Conn) { io.WriteString(c, "b") })
	p := newProxy(t, a.addr())
	read := func() string {
		c := dial(t, p.Addr())
		got, _ := io.ReadAll(c)
		return string(got)
	}
	if got := read(); got != "a" {
		t.Fatalf("first target answered %q", got)
	}
	p.SetTarget(b.addr())
	if got := read(); got != "b" {
		t.Fatalf("second target answered %q", got)
	}
}

func TestRefuseUpgradesResetsWebSocketDialsOnly(t *testing.T) {
	_, addr := newWSEcho(t)
	p := newProxy(t, addr)
	p.RefuseUpgrades(true)
	if ws, _, err := websocket.Dial(testCtx(t), "ws://"+p.Addr()+"/", nil); err == nil {
		ws.CloseNow()
		t.Fatal("a WebSocket dial went through")
	}
	// A plain request (a lane's GET or POST) reaches the target, which
	// answers it: the echo server wants an upgrade.
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	req, err := http.NewRequestWithContext(testCtx(t), http.MethodPost, "http://"+p.Addr()+"/", strings.NewReader("body"))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatalf("a plain request was not forwarded: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusSwitchingProtocols {
		t.Fatalf("status %d", resp.StatusCode)
	}
	// The proxy counts a refusal after the reset the client already saw.
	if err := p.Wait(testCtx(t), func(s faultproxy.Stats) bool { return s.RefusedUpgrades == 1 && s.Forwarded == 1 }); err != nil {
		t.Fatalf("stats %+v: want 1 upgrade refused, 1 request forwarded", p.Stats())
	}
	p.RefuseUpgrades(false)
	roundTrip(t, dialWS(t, p.Addr()), []byte("upgraded"))
}
