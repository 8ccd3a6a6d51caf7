package attachclient_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachclient"
	"github.com/ptyhost/ptyhost/attachwire"
)

// peer is a protocol-faithful relay stand-in for what the real relay never
// sends a host (unstamped Input, kill, ring-miss, a stop error, a text
// message, a bad frame, no subprotocol echo): a WebSocket server that
// accepts host legs, records the subscribe and every frame the host
// sends, and lets the test write frames back. It speaks attachwire only;
// nothing of RunHost's internals is replaced.
type peer struct {
	url    string
	noEcho bool
	// answerDedup makes the peer answer the host's Attach-Input-Dedup
	// declaration, as a relay that replays does.
	answerDedup atomic.Bool
	legs        chan *peerLeg
	srv         *http.Server
	wg          sync.WaitGroup
	mu          sync.Mutex
	all         []*peerLeg
}

// peerLeg is one host leg the peer accepted.
type peerLeg struct {
	ws     *websocket.Conn
	auth   string
	dedup  string // the dial's Attach-Input-Dedup header
	sub    attachwire.Subscribe
	subErr error

	mu     sync.Mutex
	frames []attachwire.Frame
	notify chan struct{} // closed and replaced on every frame
	end    error         // the read error that ended the leg
	ended  chan struct{}
}

func newPeer(t testing.TB, noEcho bool) *peer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &peer{url: "ws://" + ln.Addr().String() + "/v1/rooms/peer-room", noEcho: noEcho, legs: make(chan *peerLeg, 64)}
	p.srv = &http.Server{Handler: http.HandlerFunc(p.serve)}
	p.wg.Add(1)
	go func() { defer p.wg.Done(); p.srv.Serve(ln) }()
	t.Cleanup(func() {
		p.srv.Close()
		p.mu.Lock()
		for _, l := range p.all {
			l.ws.CloseNow()
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
	return p
}

func (p *peer) serve(w http.ResponseWriter, r *http.Request) {
	opts := &websocket.AcceptOptions{Subprotocols: []string{attachclient.Subprotocol}}
	if p.noEcho {
		opts = nil
	}
	if p.answerDedup.Load() {
		w.Header().Set("Attach-Input-Dedup", "any-carrier")
	}
	ws, err := websocket.Accept(w, r, opts)
	if err != nil {
		return
	}
	ws.SetReadLimit(64 << 20)
	l := &peerLeg{ws: ws, auth: r.Header.Get("Authorization"), dedup: r.Header.Get("Attach-Input-Dedup"), notify: make(chan struct{}), ended: make(chan struct{})}
	p.mu.Lock()
	p.all = append(p.all, l)
	p.wg.Add(1)
	p.mu.Unlock()
	defer p.wg.Done()
	ctx := context.Background()
	l.sub, l.subErr = readSubscribe(ctx, ws)
	p.legs <- l
	for l.subErr == nil {
		typ, b, err := ws.Read(ctx)
		if err == nil && typ != websocket.MessageBinary {
			err = errors.New("peer: text message from the host")
		}
		var f attachwire.Frame
		if err == nil {
			f, err = attachwire.DecodeFrame(b)
		}
		if err != nil {
			l.finish(err)
			return
		}
		l.mu.Lock()
		l.frames = append(l.frames, f)
		close(l.notify)
		l.notify = make(chan struct{})
		l.mu.Unlock()
	}
	l.finish(l.subErr)
}

func (l *peerLeg) finish(err error) {
	l.mu.Lock()
	l.end = err
	l.mu.Unlock()
	close(l.ended)
	l.ws.CloseNow()
}

func readSubscribe(ctx context.Context, ws *websocket.Conn) (attachwire.Subscribe, error) {
	_, b, err := ws.Read(ctx)
	if err != nil {
		return attachwire.Subscribe{}, err
	}
	f, err := attachwire.DecodeFrame(b)
	if err != nil {
		return attachwire.Subscribe{}, err
	}
	c, err := attachwire.DecodeControl(f.Payload)
	if err != nil {
		return attachwire.Subscribe{}, err
	}
	sub, ok := c.(attachwire.Subscribe)
	if !ok || f.Type != attachwire.TypeControl || f.Seq != 0 {
		return attachwire.Subscribe{}, errors.New("peer: first frame is not a subscribe")
	}
	return sub, nil
}

// leg waits for the host's next leg.
func (p *peer) leg(t testing.TB) *peerLeg {
	t.Helper()
	select {
	case l := <-p.legs:
		return l
	case <-time.After(watchdog):
		t.Fatal("the host did not dial the peer")
		return nil
	}
}

// until waits for a frame the host sent that satisfies cond and returns
// it, scanning from the first frame of the leg.
func (l *peerLeg) until(t testing.TB, what string, cond func(attachwire.Frame) bool) attachwire.Frame {
	t.Helper()
	deadline := time.After(watchdog)
	for i := 0; ; {
		l.mu.Lock()
		frames, notify := l.frames, l.notify
		l.mu.Unlock()
		for ; i < len(frames); i++ {
			if cond(frames[i]) {
				return frames[i]
			}
		}
		select {
		case <-notify:
		case <-l.ended:
			l.mu.Lock()
			n := len(l.frames)
			l.mu.Unlock()
			if i == n {
				t.Fatalf("host leg ended (%v) before %s", l.end, what)
			}
		case <-deadline:
			t.Fatalf("no %s from the host", what)
		}
	}
}

func (l *peerLeg) snapshot() []attachwire.Frame {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]attachwire.Frame(nil), l.frames...)
}

// waitEnd waits for the leg to end and returns the read error.
func (l *peerLeg) waitEnd(t testing.TB) error {
	t.Helper()
	select {
	case <-l.ended:
		return l.end
	case <-time.After(watchdog):
		t.Fatal("the host leg did not end")
		return nil
	}
}

func (l *peerLeg) send(t testing.TB, f attachwire.Frame) {
	t.Helper()
	b, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	if err := l.ws.Write(ctx, websocket.MessageBinary, b); err != nil {
		t.Fatalf("peer write: %v", err)
	}
}

func (l *peerLeg) sendControl(t testing.TB, c attachwire.Control) {
	t.Helper()
	f, err := attachwire.ControlFrame(c)
	if err != nil {
		t.Fatal(err)
	}
	l.send(t, f)
}

// outputHas matches an Output frame containing s.
func outputHas(s string) func(attachwire.Frame) bool {
	return func(f attachwire.Frame) bool {
		return f.Type == attachwire.TypeOutput && contains(f.Payload, s)
	}
}

func contains(b []byte, s string) bool { return len(s) > 0 && indexOf(b, s) >= 0 }

func indexOf(b []byte, s string) int {
	for i := 0; i+len(s) <= len(b); i++ {
		if string(b[i:i+len(s)]) == s {
			return i
		}
	}
	return -1
}

// hostOn returns a rig-less HostConfig carrying sess to the peer.
func (p *peer) config(sess attachclient.HostConfig) attachclient.HostConfig {
	sess.AttachURL = p.url
	if sess.Logger == nil {
		sess.Logger = testLogger()
	}
	if sess.BackoffMin == 0 {
		sess.BackoffMin, sess.BackoffMax = 10*time.Millisecond, 100*time.Millisecond
	}
	if sess.FinalScreenWindow == 0 {
		sess.FinalScreenWindow = 300 * time.Millisecond
	}
	return sess
}

// runHost runs RunHost with cfg; the cleanup cancels it and waits. The
// returned channel yields its result.
func runHost(t testing.TB, cfg attachclient.HostConfig) (<-chan error, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	res := make(chan error, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		res <- attachclient.RunHost(ctx, cfg)
	}()
	t.Cleanup(func() { cancel(); <-done })
	return res, cancel
}

func result(t testing.TB, res <-chan error) error {
	t.Helper()
	select {
	case err := <-res:
		return err
	case <-time.After(watchdog):
		t.Fatal("RunHost did not return")
		return nil
	}
}

// staticToken returns a TokenSource minting an unsigned-but-well-formed
// host token (the peer does not verify) for session s at epoch e.
func staticToken(s string, e uint64, calls *int64) func(context.Context) (string, error) {
	var mu sync.Mutex
	return func(context.Context) (string, error) {
		mu.Lock()
		if calls != nil {
			*calls++
		}
		mu.Unlock()
		return fakeJWT(s, e), nil
	}
}
