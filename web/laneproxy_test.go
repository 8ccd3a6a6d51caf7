package web_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
)

// laneProxy is a loopback HTTP proxy in front of a testRelay for the
// browser lane tests. The page is opened through it, so its WebSocket
// dials, ticket fetches, SSE legs and POSTs all pass it: WebSocket
// messages are forwarded one by one, SSE streams are copied as they come,
// and the rest goes through a reverse proxy. A test can make it answer the
// lane's paths 404 (noLane), rewrite or answer a POST …/input in the
// relay's place (setInputRule), cut the relay's half of the live SSE legs
// (cutSSE) and hold WebSocket handshakes (holdWebSockets). It records the
// answers to every POST and counts the controls the relay received from
// the page on either carrier. It forwards no Origin header, as a native
// client would not send one, since the relay compares it with its own
// Host.
type laneProxy struct {
	tb     testing.TB
	addr   string
	target string // the relay's host:port
	srv    *http.Server
	tr     *http.Transport
	rp     *httputil.ReverseProxy
	ctx    context.Context // ends what the proxy forwards when it closes
	cancel context.CancelFunc

	mu        sync.Mutex
	closed    bool
	handlers  sync.WaitGroup // the handlers running (hijacked ones included)
	noLane    bool
	inputRule func(b attachwire.ViewerBatch) proxyAction
	posts     []proxyPost
	applied   map[string]bool // batchIds the relay answered 200
	controls  map[string]int  // controls the relay got, by type ("resize" for a viewport)
	tickets   int             // ticket requests seen
	notFound  int             // lane requests answered 404 by noLane
	sseCuts   []context.CancelCauseFunc
	wsHold    chan struct{}      // non-nil: handshakes wait until it closes...
	wsWaiting chan chan struct{} // ...or until the test closes the channel each one sends here
}

// proxyAction is what an input rule decides for one POST: answer Status
// (with RetryAfter) in the relay's place, or forward Body instead of the
// page's (nil: forward it as it is).
type proxyAction struct {
	Status     int
	RetryAfter string
	Body       []byte
}

// proxyPost is one POST …/input as the proxy saw it.
type proxyPost struct {
	Batch  attachwire.ViewerBatch
	Status int       // the status the page got
	At     time.Time // when the proxy received it
	Ack    uint64    // the ackInputSeq of a 200 or 409
}

var errSSECut = errors.New("laneproxy: the relay's half of the SSE leg was cut")

func startLaneProxy(tb testing.TB, r *testRelay) *laneProxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &laneProxy{tb: tb, addr: ln.Addr().String(), target: r.addr, ctx: ctx, cancel: cancel,
		tr: &http.Transport{}, applied: make(map[string]bool), controls: make(map[string]int)}
	target := &url.URL{Scheme: "http", Host: r.addr}
	p.rp = &httputil.ReverseProxy{
		Transport: p.tr,
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Header.Del("Origin")
		},
	}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan struct{})
	go func() {
		defer close(served)
		p.srv.Serve(ln)
	}()
	tb.Cleanup(func() {
		p.mu.Lock()
		p.closed = true
		p.mu.Unlock()
		cancel()
		p.srv.Close()
		<-served
		p.handlers.Wait()
		p.tr.CloseIdleConnections()
	})
	return p
}

// pageURL is the browser viewer's address for room with tok, through the
// proxy.
func (p *laneProxy) pageURL(room, tok string) string {
	return "http://" + p.addr + "/v1/rooms/" + room + "/view#token=" + tok
}

func (p *laneProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		http.Error(w, "proxy closed", http.StatusServiceUnavailable)
		return
	}
	p.handlers.Add(1)
	noLane := p.noLane
	p.mu.Unlock()
	defer p.handlers.Done()
	lanePath := strings.HasSuffix(r.URL.Path, "/sse-ticket") || strings.HasSuffix(r.URL.Path, "/sse") ||
		strings.HasSuffix(r.URL.Path, "/input")
	if strings.HasSuffix(r.URL.Path, "/sse-ticket") {
		p.mu.Lock()
		p.tickets++
		p.mu.Unlock()
	}
	switch {
	case lanePath && noLane:
		p.mu.Lock()
		p.notFound++
		p.mu.Unlock()
		http.NotFound(w, r)
	case strings.EqualFold(r.Header.Get("Upgrade"), "websocket"):
		p.serveWebSocket(w, r)
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/sse"):
		p.serveSSE(w, r)
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/input"):
		p.serveInput(w, r)
	default:
		p.rp.ServeHTTP(w, r)
	}
}

// setNoLane makes the lane's paths (ticket, SSE, POST) answer 404, as a
// relay without the lane does.
func (p *laneProxy) setNoLane(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.noLane = on
}

// setInputRule has rule decide every POST …/input from now on.
func (p *laneProxy) setInputRule(rule func(b attachwire.ViewerBatch) proxyAction) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.inputRule = rule
}

// serveInput forwards a POST …/input (or answers it as the rule says) and
// records the exchange; the controls of a batch the relay answers 200 for
// the first time are counted as received.
func (p *laneProxy) serveInput(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	if err != nil {
		http.Error(w, "proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	rec := proxyPost{At: time.Now()}
	json.Unmarshal(body, &rec.Batch) // a malformed batch is the relay's to refuse
	p.mu.Lock()
	rule := p.inputRule
	p.mu.Unlock()
	var act proxyAction
	if rule != nil {
		act = rule(rec.Batch)
	}
	if act.Status != 0 {
		if act.RetryAfter != "" {
			w.Header().Set("Retry-After", act.RetryAfter)
		}
		http.Error(w, "proxy: "+http.StatusText(act.Status), act.Status)
		rec.Status = act.Status
		p.record(rec)
		return
	}
	if act.Body != nil {
		body = act.Body
	}
	req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, "http://"+p.target+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, "proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	req.Header.Set("Authorization", r.Header.Get("Authorization"))
	req.Header.Set("Content-Type", r.Header.Get("Content-Type"))
	resp, err := p.tr.RoundTrip(req)
	if err != nil {
		http.Error(w, "proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		http.Error(w, "proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	rec.Status = resp.StatusCode
	var a attachwire.ViewerBatchAnswer
	if json.Unmarshal(answer, &a) == nil {
		rec.Ack = a.AckInputSeq
	}
	for _, k := range []string{"Content-Type", "Retry-After", "Cache-Control"} {
		if v := resp.Header.Get(k); v != "" {
			w.Header().Set(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	w.Write(answer)
	p.record(rec)
}

func (p *laneProxy) record(rec proxyPost) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.posts = append(p.posts, rec)
	if rec.Status != http.StatusOK || p.applied[rec.Batch.BatchID] {
		return
	}
	p.applied[rec.Batch.BatchID] = true
	for _, c := range rec.Batch.Controls {
		if b, err := base64.StdEncoding.DecodeString(c); err == nil {
			p.countLocked(b)
		}
	}
}

// countLocked counts one message the relay received from the page if it
// is a control or a viewport (Resize).
func (p *laneProxy) countLocked(msg []byte) {
	f, err := attachwire.DecodeFrame(msg)
	if err != nil {
		return
	}
	switch f.Type {
	case attachwire.TypeResize:
		p.controls["resize"]++
	case attachwire.TypeControl:
		if c, err := attachwire.DecodeControl(f.Payload); err == nil {
			p.controls[c.ControlType()]++
		}
	}
}

// postLog returns the POSTs seen so far.
func (p *laneProxy) postLog() []proxyPost {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]proxyPost(nil), p.posts...)
}

// statuses counts the POSTs seen so far by the status the page got.
func (p *laneProxy) statuses() map[int]int {
	n := make(map[int]int)
	for _, rec := range p.postLog() {
		n[rec.Status]++
	}
	return n
}

// received returns how many controls of type name the relay received.
func (p *laneProxy) received(name string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.controls[name]
}

func (p *laneProxy) counts() (tickets, notFound int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tickets, p.notFound
}

// serveSSE copies an SSE leg from the relay, flushing every read. Once
// cutSSE has cut the relay's half, the page's half stays open, silent, as
// behind a proxy that lost its upstream: the page learns of it only from
// its next POST.
func (p *laneProxy) serveSSE(w http.ResponseWriter, r *http.Request) {
	ctx, cut := context.WithCancelCause(p.ctx)
	defer cut(nil)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+p.target+r.URL.RequestURI(), nil)
	if err != nil {
		http.Error(w, "proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := p.tr.RoundTrip(req)
	if err != nil {
		http.Error(w, "proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	rc := http.NewResponseController(w)
	rc.Flush()
	if resp.StatusCode != http.StatusOK {
		io.Copy(w, resp.Body)
		return
	}
	p.mu.Lock()
	p.sseCuts = append(p.sseCuts, cut)
	p.mu.Unlock()
	stop := context.AfterFunc(r.Context(), func() { cut(nil) }) // the page left
	defer stop()
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			rc.Flush()
		}
		if err != nil {
			break
		}
	}
	if errors.Is(context.Cause(ctx), errSSECut) {
		select {
		case <-r.Context().Done():
		case <-p.ctx.Done():
		}
	}
}

// cutSSE cuts the relay's half of every SSE leg open now.
func (p *laneProxy) cutSSE() {
	p.mu.Lock()
	cuts := p.sseCuts
	p.sseCuts = nil
	p.mu.Unlock()
	for _, cut := range cuts {
		cut(errSSECut)
	}
}

// holdWebSockets holds every WebSocket handshake from now on: each one
// waiting sends a channel on waiting, and goes on when the test closes
// that channel or calls release, which lets all through from then on.
// (A browser has one handshake to a host in progress at a time, so while
// one is held the next waits in the browser.)
func (p *laneProxy) holdWebSockets() (waiting <-chan chan struct{}, release func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	hold, w := make(chan struct{}), make(chan chan struct{}, 64)
	p.wsHold, p.wsWaiting = hold, w
	var once sync.Once
	return w, func() { once.Do(func() { close(hold) }) }
}

// gate returns the channels a handshake must wait for, one closing, if
// any.
func (p *laneProxy) gate() (one, all <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.wsHold == nil {
		return nil, nil
	}
	select {
	case <-p.wsHold:
		return nil, nil
	default:
	}
	ch := make(chan struct{})
	select {
	case p.wsWaiting <- ch:
	default:
		return nil, nil // nobody is watching this many: let it through
	}
	return ch, p.wsHold
}

// serveWebSocket dials the relay with the subprotocols the page offered
// (its bearer token among them), accepts the page with the one the relay
// chose, and forwards messages both ways until either side closes, with
// the same close code; a dial the relay refuses gets its status.
func (p *laneProxy) serveWebSocket(w http.ResponseWriter, r *http.Request) {
	if one, all := p.gate(); one != nil {
		select {
		case <-one:
		case <-all:
		case <-r.Context().Done():
			return
		case <-p.ctx.Done():
			return
		}
	}
	var protos []string
	for _, h := range r.Header.Values("Sec-WebSocket-Protocol") {
		for _, s := range strings.Split(h, ",") {
			protos = append(protos, strings.TrimSpace(s))
		}
	}
	dctx, dcancel := context.WithTimeout(p.ctx, 10*time.Second)
	up, resp, err := websocket.Dial(dctx, "ws://"+p.target+r.URL.RequestURI(),
		&websocket.DialOptions{Subprotocols: protos, HTTPClient: &http.Client{Transport: p.tr}})
	dcancel()
	if err != nil {
		status := http.StatusBadGateway
		if resp != nil {
			status = resp.StatusCode
		}
		http.Error(w, "proxy: "+err.Error(), status)
		return
	}
	down, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{up.Subprotocol()},
		InsecureSkipVerify: true})
	if err != nil {
		up.CloseNow()
		return
	}
	up.SetReadLimit(64 << 20)
	down.SetReadLimit(64 << 20)
	ctx, cancel := context.WithCancel(p.ctx)
	defer cancel()
	done := make(chan struct{})
	go func() { // relay → page, joined below
		defer close(done)
		defer cancel()
		pumpWebSocket(ctx, up, down, nil)
	}()
	pumpWebSocket(ctx, down, up, func(msg []byte) {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.countLocked(msg)
	})
	cancel()
	<-done
	up.CloseNow()
	down.CloseNow()
}

// pumpWebSocket copies messages from one side to the other, each seen by
// seen first (if set), until from ends; it then closes to with from's
// close code.
func pumpWebSocket(ctx context.Context, from, to *websocket.Conn, seen func([]byte)) {
	for {
		typ, msg, err := from.Read(ctx)
		if err != nil {
			var ce websocket.CloseError
			if errors.As(err, &ce) && ce.Code != websocket.StatusNoStatusRcvd && ce.Code != websocket.StatusAbnormalClosure {
				to.Close(ce.Code, ce.Reason)
				return
			}
			to.CloseNow()
			return
		}
		if seen != nil {
			seen(msg)
		}
		if to.Write(ctx, typ, msg) != nil {
			from.CloseNow()
			return
		}
	}
}

// relayLegs reads the relay's legs gauge for role from its /metrics.
func relayLegs(tb testing.TB, r *testRelay, role attachwire.Role) int {
	tb.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://"+r.addr+"/metrics", nil)
	if err != nil {
		tb.Fatal(err)
	}
	req.Close = true // no idle connection left behind for goleak
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	want := `ptyhost_relay_legs{role="` + string(role) + `"} `
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), want); ok {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				tb.Fatalf("metrics line %q: %v", sc.Text(), err)
			}
			return int(n)
		}
	}
	return 0
}

// shiftInputs renumbers a batch's inputs one past where they are, so the
// relay sees a gap before them and answers 409.
func shiftInputs(tb testing.TB, b attachwire.ViewerBatch) []byte {
	tb.Helper()
	for i, s := range b.Inputs {
		raw, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			tb.Error(err)
			return nil
		}
		f, err := attachwire.DecodeFrame(raw)
		if err != nil {
			tb.Error(err)
			return nil
		}
		in, err := attachwire.DecodeInput(f.Payload)
		if err != nil {
			tb.Error(err)
			return nil
		}
		in.InputSeq++
		out, err := in.Frame(f.Seq, f.RelTime).MarshalBinary()
		if err != nil {
			tb.Error(err)
			return nil
		}
		b.Inputs[i] = base64.StdEncoding.EncodeToString(out)
	}
	first, last := *b.FirstInputSeq+1, *b.LastInputSeq+1
	b.FirstInputSeq, b.LastInputSeq = &first, &last
	body, err := json.Marshal(b)
	if err != nil {
		tb.Error(err)
		return nil
	}
	return body
}
