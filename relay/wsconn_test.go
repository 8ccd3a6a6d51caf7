package relay

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
)

// corkedPair is a WebSocket over loopback whose server end was accepted
// through a corkHijacker, its socket counting writes.
type corkedPair struct {
	server *websocket.Conn
	cc     *corkConn
	sock   *CountingConn
	client *websocket.Conn
}

// newCorkedPair connects one; a clientReadBuffer above zero shrinks the
// client's receive buffer, and with it what the server can write to a
// client that does not read.
func newCorkedPair(t testing.TB, clientReadBuffer int) corkedPair {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cl := &CountingListener{Listener: ln}
	type accepted struct {
		c  *websocket.Conn
		cc *corkConn
	}
	got := make(chan accepted, 1)
	pool := newCorkPool()
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hj := &corkHijacker{ResponseWriter: w, pool: pool}
		c, _ := websocket.Accept(hj, r, nil)
		got <- accepted{c, hj.cc}
	})}
	served := make(chan struct{})
	go func() {
		defer close(served)
		srv.Serve(cl)
	}()
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err == nil && clientReadBuffer > 0 {
			err = c.(*net.TCPConn).SetReadBuffer(clientReadBuffer)
		}
		return c, err
	}}
	t.Cleanup(func() {
		srv.Close()
		<-served
		tr.CloseIdleConnections()
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client, _, err := websocket.Dial(ctx, "ws://"+ln.Addr().String(), &websocket.DialOptions{HTTPClient: &http.Client{Transport: tr}})
	if err != nil {
		t.Fatal(err)
	}
	client.SetReadLimit(1 << 20)
	t.Cleanup(func() { client.CloseNow() })
	a := <-got
	if a.c == nil || a.cc == nil {
		t.Fatal("the server did not accept through the corkHijacker")
	}
	t.Cleanup(func() { a.c.CloseNow() })
	return corkedPair{server: a.c, cc: a.cc, sock: a.cc.Conn.(*CountingConn), client: client}
}

func watchdog(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// message returns a distinct message of n bytes for i.
func message(i, n int) []byte {
	return bytes.Repeat([]byte{byte('a' + i%26)}, n)
}

// Messages written while corked reach the socket in one write at the
// uncork, whole and in order.
func TestCorkedMessagesLeaveInOneWrite(t *testing.T) {
	p := newCorkedPair(t, 0)
	ctx := watchdog(t)
	before := p.sock.Writes()
	p.cc.cork()
	const n = 10
	for i := range n {
		if err := p.server.Write(ctx, websocket.MessageBinary, message(i, 4096)); err != nil {
			t.Fatal(err)
		}
	}
	if w := p.sock.Writes() - before; w != 0 {
		t.Fatalf("%d writes reached the socket while corked", w)
	}
	if err := p.cc.uncork(); err != nil {
		t.Fatal(err)
	}
	if w := p.sock.Writes() - before; w != 1 {
		t.Fatalf("%d writes for %d corked messages, want 1", w, n)
	}
	for i := range n {
		_, b, err := p.client.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, message(i, 4096)) {
			t.Fatalf("message %d: got %d bytes of %q, want 4096 of %q", i, len(b), b[:1], message(i, 1))
		}
	}
}

// Uncorked, a message is written at once: it reaches the client with
// nothing else written after it.
func TestUncorkedMessageGoesAtOnce(t *testing.T) {
	p := newCorkedPair(t, 0)
	ctx := watchdog(t)
	before := p.sock.Writes()
	if err := p.server.Write(ctx, websocket.MessageBinary, []byte("k")); err != nil {
		t.Fatal(err)
	}
	if w := p.sock.Writes() - before; w != 1 {
		t.Fatalf("%d writes for one uncorked keystroke, want 1", w)
	}
	if _, b, err := p.client.Read(ctx); err != nil || string(b) != "k" {
		t.Fatalf("read %q, %v; want k", b, err)
	}
}

// The library answers a peer's close frame from its reader and closes at
// once: with the connection corked, the answer goes out at the close.
func TestCloseAnswerWhileCorkedGoesOut(t *testing.T) {
	p := newCorkedPair(t, 0)
	ctx := watchdog(t)
	p.cc.cork()
	read := make(chan error, 1)
	go func() {
		_, _, err := p.server.Read(ctx)
		read <- err
	}()
	if err := p.client.Close(websocket.StatusNormalClosure, "bye"); err != nil {
		t.Fatalf("client close: %v; want the server's answer", err)
	}
	if err := <-read; websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Fatalf("server read: %v, want the client's close", err)
	}
}

// A leg's write and uncork: a message is held until the uncork, which
// writes it in one go; a message over corkFlushBytes goes out with what
// was held before it, in order.
func TestLegUncorkWrites(t *testing.T) {
	p := newCorkedPair(t, 0)
	ctx := watchdog(t)
	l := testLeg(t, p, 10*time.Second)
	before := p.sock.Writes()
	small, big := message(1, 100), message(2, 3*corkFlushBytes)
	for _, m := range [][]byte{small, big, small} {
		if err := l.write(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.uncork(); err != nil {
		t.Fatal(err)
	}
	// The big one leaves with the small one held before it (a vectored
	// write, two Write calls through the counting socket); the last
	// small one at the uncork.
	if w := p.sock.Writes() - before; w > 3 {
		t.Fatalf("%d writes, want at most 3", w)
	}
	for i, want := range [][]byte{small, big, small} {
		if _, b, err := p.client.Read(ctx); err != nil || !bytes.Equal(b, want) {
			t.Fatalf("message %d: %d bytes, %v; want %d bytes", i, len(b), err, len(want))
		}
	}
}

// A leg whose uncork cannot write (the peer reads nothing, the socket is
// full) is stopped by the write deadline: the uncork returns
// errWriteTimeout and the connection is closed.
func TestUncorkBlockedIsBoundedByWriteTimeout(t *testing.T) {
	p := newCorkedPair(t, 4096)
	if err := p.sock.Conn.(*net.TCPConn).SetWriteBuffer(4096); err != nil {
		t.Fatal(err)
	}
	l := testLeg(t, p, 100*time.Millisecond)
	m := make([]byte, corkFlushBytes-1024) // held whole: only the uncork writes
	for i := 0; ; i++ {
		if i == 1000 {
			t.Fatal("1000 uncorks into a peer that reads nothing, none blocked")
		}
		before := p.sock.Writes()
		if err := l.write(m); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		if w := p.sock.Writes() - before; w != 0 {
			t.Fatalf("write %d reached the socket while corked (%d writes)", i, w)
		}
		err := l.uncork()
		if err == nil {
			continue
		}
		if !errors.Is(err, errWriteTimeout) {
			t.Fatalf("uncork %d: %v, want %v", i, err, errWriteTimeout)
		}
		break
	}
	if err := l.write([]byte("after")); err == nil {
		t.Fatal("a write after the deadline passed succeeded: the connection is open")
	}
}

// testLeg is a viewer leg on p's server end with writeTimeout.
func testLeg(t testing.TB, p corkedPair, writeTimeout time.Duration) *leg {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	rl, err := New(Config{PublicKeys: []ed25519.PublicKey{pub}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		WriteTimeout: writeTimeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rl.Close() })
	l := newLeg(rl, p.server, attachwire.RoleViewer, "v", "jti-v", rl.log)
	l.cc = p.cc
	t.Cleanup(func() {
		l.cancel()
		l.deadline.stop()
	})
	return l
}

// BenchmarkLegWrite is a leg's write of 4 KiB frames to a reading peer,
// uncorked every 16 frames as a writer draining a backlog does: it
// should allocate nothing per frame.
func BenchmarkLegWrite(b *testing.B) {
	p := newCorkedPair(b, 0)
	l := testLeg(b, p, 10*time.Second)
	drained := make(chan struct{})
	go func() { // a context that cannot end: the library allocates for one that can
		defer close(drained)
		for {
			_, r, err := p.client.Reader(context.Background())
			if err != nil {
				return
			}
			if _, err := io.Copy(io.Discard, r); err != nil {
				return
			}
		}
	}()
	frame, err := attachwire.NewOutputFrame(1, 1, message(0, 4096)).MarshalBinary()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if err := l.write(frame); err != nil {
			b.Fatal(err)
		}
		if i%16 == 15 {
			if err := l.uncork(); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := l.uncork(); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	p.client.CloseNow()
	<-drained
}
