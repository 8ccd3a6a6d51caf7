package faultproxy

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// ErrClosed is returned by Wait once the Proxy is closed.
var ErrClosed = errors.New("faultproxy: proxy closed")

// Direction is one way through a forwarded connection.
type Direction int

// The two directions of a connection.
const (
	Upstream   Direction = iota // from the client to the target
	Downstream                  // from the target to the client
)

// String returns "upstream" or "downstream".
func (d Direction) String() string {
	if d == Upstream {
		return "upstream"
	}
	return "downstream"
}

const (
	chunkSize     = 32 << 10
	maxHead       = 64 << 10
	headTimeout   = 10 * time.Second
	targetTimeout = 10 * time.Second
)

// Stats counts what the Proxy has done since New.
type Stats struct {
	Dials       int // connections accepted
	Refused     int // dials reset at once (RefuseNext)
	Answered503 int // dials answered 503 (Answer503Next)
	// RefusedUpgrades counts dials reset because their first request
	// was a WebSocket upgrade (RefuseUpgrades).
	RefusedUpgrades int
	Forwarded       int   // dials connected to the target
	TargetFailed    int   // dials whose connection to the target failed
	Live            int   // forwarded connections open now
	Cuts            int   // connections closed by CutAfter or CutMidFrame
	BytesUp         int64 // bytes forwarded from clients to the target
	BytesDown       int64 // bytes forwarded from the target to clients
}

// dialFault is what the proxy does with one queued dial.
type dialFault struct {
	refuse     bool
	retryAfter string // for a 503; empty: no Retry-After header
	// upgrades: reset the dial if its first request asks for a
	// WebSocket upgrade, forward it otherwise.
	upgrades bool
}

// Proxy forwards loopback connections to a target and injects faults. Its
// methods are safe for concurrent use.
type Proxy struct {
	ln     net.Listener
	ctx    context.Context // done once Close starts
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	target  string
	faults  []dialFault
	clients map[net.Conn]struct{} // accepted, not yet closed
	conns   map[*conn]struct{}    // forwarded
	stats   Stats
	changed chan struct{}    // closed and replaced when stats change
	stall   [2]chan struct{} // non-nil while a direction is stalled
	delay   [2]time.Duration
	closed  bool
	// refuseUpgrades is RefuseUpgrades' switch.
	refuseUpgrades bool
}

// New starts a proxy on 127.0.0.1 (a free port) forwarding to target, a
// "host:port" address.
func New(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("faultproxy: listen: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Proxy{
		ln:      ln,
		ctx:     ctx,
		cancel:  cancel,
		target:  target,
		clients: make(map[net.Conn]struct{}),
		conns:   make(map[*conn]struct{}),
		changed: make(chan struct{}),
	}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr returns the proxy's "127.0.0.1:port" address.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// SetTarget makes later dials go to target; connections already forwarded
// keep theirs.
func (p *Proxy) SetTarget(target string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.target = target
}

// RefuseNext makes each of the next n dials (after those already queued)
// be reset at once, without reaching the target.
func (p *Proxy) RefuseNext(n int) {
	p.queue(n, dialFault{refuse: true})
}

// Answer503Next makes each of the next n dials (after those already queued)
// be answered "HTTP/1.1 503 Service Unavailable" once its request head has
// arrived, with "Retry-After: retryAfter" unless retryAfter is empty, and
// closed, without reaching the target.
func (p *Proxy) Answer503Next(n int, retryAfter string) {
	p.queue(n, dialFault{retryAfter: retryAfter})
}

// RefuseUpgrades, while on, makes the proxy read the first request head
// of every dial that no queued fault takes and reset the dial when that
// request asks for a WebSocket upgrade; other requests (plain HTTP, such
// as a degraded lane's SSE GET and POSTs) are forwarded untouched. It
// stands for a path that breaks WebSocket only.
func (p *Proxy) RefuseUpgrades(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refuseUpgrades = on
}

func (p *Proxy) queue(n int, f dialFault) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for range n {
		p.faults = append(p.faults, f)
	}
}

// CutAfter arms every live connection to be closed once exactly k more
// bytes have been forwarded in direction d; k = 0 closes them now. It
// returns how many connections it armed.
func (p *Proxy) CutAfter(d Direction, k int64) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	var now []*conn
	for c := range p.conns {
		if k <= 0 {
			now = append(now, c)
			continue
		}
		c.cutLeft[d] = k
	}
	p.cutLocked(now, d)
	return len(p.conns)
}

// CutMidFrame arms every live connection to be closed strictly inside the
// payload of a WebSocket frame in direction d: after the header and at
// least one payload byte of the next frame with two or more payload bytes
// (or at once, if one is being forwarded). A connection that is not a
// WebSocket (no 101 response) is never cut. It returns how many
// connections it armed.
func (p *Proxy) CutMidFrame(d Direction) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	var now []*conn
	for c := range p.conns {
		if c.track[d].midFrame() {
			now = append(now, c)
			continue
		}
		c.cutMid[d] = true
	}
	p.cutLocked(now, d)
	return len(p.conns)
}

// cutLocked cuts conns in direction d. p.mu must be held.
func (p *Proxy) cutLocked(conns []*conn, d Direction) {
	for _, c := range conns {
		c.cut(d)
	}
}

// Stall stops forwarding in direction d, on every connection live now and
// later, until Release: chunks already read wait, and the sender's kernel
// buffers fill.
func (p *Proxy) Stall(d Direction) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stall[d] == nil {
		p.stall[d] = make(chan struct{})
	}
}

// Release resumes forwarding in direction d after Stall.
func (p *Proxy) Release(d Direction) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stall[d] != nil {
		close(p.stall[d])
		p.stall[d] = nil
	}
}

// SetDelay holds every chunk read in direction d for delay before
// forwarding it, on every connection; 0 removes the delay.
func (p *Proxy) SetDelay(d Direction, delay time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.delay[d] = delay
}

// Stats returns the counts so far.
func (p *Proxy) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats
}

// Wait blocks until cond holds for the Stats, ctx is done (its error), or
// the Proxy is closed (ErrClosed). cond is called without locks held, once
// at the start and again after every change.
func (p *Proxy) Wait(ctx context.Context, cond func(Stats) bool) error {
	for {
		p.mu.Lock()
		s, changed := p.stats, p.changed
		p.mu.Unlock()
		if cond(s) {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		case <-p.ctx.Done():
			return ErrClosed
		}
	}
}

// Close stops accepting, closes every connection and waits for the
// proxy's goroutines to exit. It is idempotent and returns nil.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		p.wg.Wait()
		return nil
	}
	p.closed = true
	p.cancel()
	p.ln.Close()
	for c := range p.clients {
		c.Close()
	}
	for c := range p.conns {
		c.close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	return nil
}

// update applies f to the stats and wakes Wait. p.mu must be held.
func (p *Proxy) updateLocked(f func(*Stats)) {
	f(&p.stats)
	close(p.changed)
	p.changed = make(chan struct{})
}

func (p *Proxy) update(f func(*Stats)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.updateLocked(f)
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		nc, err := p.ln.Accept()
		if err != nil {
			return // closed; Accept on loopback fails for nothing else
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			nc.Close()
			return
		}
		p.clients[nc] = struct{}{}
		var f *dialFault
		if len(p.faults) > 0 {
			f = &p.faults[0]
			p.faults = p.faults[1:]
		} else if p.refuseUpgrades {
			f = &dialFault{upgrades: true}
		}
		target := p.target
		p.updateLocked(func(s *Stats) { s.Dials++ })
		p.wg.Add(1)
		p.mu.Unlock()
		go p.handle(nc.(*net.TCPConn), f, target)
	}
}

// handle serves one accepted connection until both of its directions end.
func (p *Proxy) handle(client *net.TCPConn, f *dialFault, target string) {
	defer p.wg.Done()
	defer p.forget(client)
	var head []byte // read by RefuseUpgrades, forwarded first
	switch {
	case f != nil && f.refuse:
		client.SetLinger(0) // a reset, not an orderly close
		client.Close()
		p.update(func(s *Stats) { s.Refused++ })
		return
	case f != nil && f.upgrades:
		var refused bool
		if head, refused = readHead(client); refused {
			client.SetLinger(0)
			client.Close()
			p.update(func(s *Stats) { s.RefusedUpgrades++ })
			return
		}
	case f != nil:
		p.answer503(client, f.retryAfter)
		client.Close()
		p.update(func(s *Stats) { s.Answered503++ })
		return
	}
	server, err := p.dialTarget(target)
	if err != nil {
		client.SetLinger(0)
		client.Close()
		p.update(func(s *Stats) { s.TargetFailed++ })
		return
	}
	c := newConn(p, client, server)
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		c.close()
		return
	}
	p.conns[c] = struct{}{}
	p.updateLocked(func(s *Stats) { s.Forwarded++; s.Live++ })
	p.mu.Unlock()

	if len(head) > 0 && !c.forward(Upstream, server, head) {
		c.close()
		p.mu.Lock()
		delete(p.conns, c)
		p.updateLocked(func(s *Stats) { s.Live-- })
		p.mu.Unlock()
		return
	}
	var pumps sync.WaitGroup
	pumps.Add(2)
	go func() { defer pumps.Done(); c.pump(Upstream, client, server) }()
	go func() { defer pumps.Done(); c.pump(Downstream, server, client) }()
	pumps.Wait()
	c.close()
	p.mu.Lock()
	delete(p.conns, c)
	p.updateLocked(func(s *Stats) { s.Live-- })
	p.mu.Unlock()
}

func (p *Proxy) forget(client net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.clients, client)
}

// dialTarget connects to target, giving up when the proxy closes.
func (p *Proxy) dialTarget(target string) (*net.TCPConn, error) {
	ctx, cancel := context.WithTimeout(p.ctx, targetTimeout)
	defer cancel()
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", target)
	if err != nil {
		return nil, err
	}
	return nc.(*net.TCPConn), nil
}

// answer503 reads the request head (bounded in size and time) and answers
// it with a 503.
func (p *Proxy) answer503(client *net.TCPConn, retryAfter string) {
	client.SetDeadline(time.Now().Add(headTimeout))
	req, err := http.ReadRequest(bufio.NewReader(io.LimitReader(client, maxHead)))
	if err == nil && req.Body != nil {
		req.Body.Close()
	}
	resp := "HTTP/1.1 503 Service Unavailable\r\n"
	if retryAfter != "" {
		resp += "Retry-After: " + retryAfter + "\r\n"
	}
	resp += "Content-Length: 0\r\nConnection: close\r\n\r\n"
	io.WriteString(client, resp)
}

// readHead reads a request head from client (bounded in size and time)
// and reports whether it asks for a WebSocket upgrade. It returns the
// bytes read, to be forwarded; a head that does not arrive or is too
// long is forwarded as far as it came.
func readHead(client *net.TCPConn) ([]byte, bool) {
	client.SetReadDeadline(time.Now().Add(headTimeout))
	defer client.SetReadDeadline(time.Time{})
	var head []byte
	buf := make([]byte, 4<<10)
	for !bytes.Contains(head, []byte("\r\n\r\n")) && len(head) < maxHead {
		n, err := client.Read(buf)
		head = append(head, buf[:n]...)
		if err != nil {
			break
		}
	}
	end := bytes.Index(head, []byte("\r\n\r\n"))
	if end < 0 {
		return head, false
	}
	for _, line := range strings.Split(string(head[:end]), "\r\n")[1:] {
		name, value, _ := strings.Cut(line, ":")
		if strings.EqualFold(strings.TrimSpace(name), "Upgrade") &&
			strings.EqualFold(strings.TrimSpace(value), "websocket") {
			return head, true
		}
	}
	return head, false
}
