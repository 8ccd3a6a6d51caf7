package faultproxy

import (
	"errors"
	"io"
	"net"
	"sync"
	"time"
)

// conn is one forwarded connection. Its cut plans and trackers are guarded
// by the Proxy's lock, so a fault armed by a test applies from an exact
// byte on: each chunk is split under that lock before it is written.
type conn struct {
	p      *Proxy
	client *net.TCPConn
	server *net.TCPConn
	dead   chan struct{} // closed by close

	cutLeft [2]int64 // bytes left before a cut; 0: none armed
	cutMid  [2]bool
	track   [2]wsTracker

	closeOnce sync.Once
}

func newConn(p *Proxy, client, server *net.TCPConn) *conn {
	return &conn{
		p:      p,
		client: client,
		server: server,
		dead:   make(chan struct{}),
		track:  [2]wsTracker{newTracker(false), newTracker(true)},
	}
}

// close closes both sockets and wakes a pump waiting on a stall or delay.
// It is idempotent.
func (c *conn) close() {
	c.closeOnce.Do(func() {
		close(c.dead)
		c.client.Close()
		c.server.Close()
	})
}

// cut ends the connection after the bytes already forwarded in direction
// d: the receiver gets a FIN behind them, then both sockets close.
// p.mu must be held.
func (c *conn) cut(d Direction) {
	c.cutLeft[d], c.cutMid[d] = 0, false
	select {
	case <-c.dead:
		return // already closed: nothing left to cut
	default:
	}
	c.dst(d).CloseWrite()
	c.close()
	c.p.updateLocked(func(s *Stats) { s.Cuts++ })
}

func (c *conn) dst(d Direction) *net.TCPConn {
	if d == Upstream {
		return c.server
	}
	return c.client
}

// pump forwards direction d from src to dst until either side ends. An
// orderly end (EOF) is passed on as a half-close so the other direction
// can finish; anything else closes the connection.
func (c *conn) pump(d Direction, src, dst *net.TCPConn) {
	buf := make([]byte, chunkSize)
	for {
		n, err := src.Read(buf)
		if n > 0 && !c.forward(d, dst, buf[:n]) {
			return
		}
		if errors.Is(err, io.EOF) {
			dst.CloseWrite()
			return
		}
		if err != nil {
			c.close()
			return
		}
	}
}

// forward writes p to dst after any stall or delay in effect, splitting it
// where an armed cut falls. It reports whether the connection is still up.
func (c *conn) forward(d Direction, dst *net.TCPConn, p []byte) bool {
	if !c.hold(d) {
		return false
	}
	for len(p) > 0 {
		c.p.mu.Lock()
		n, cut := c.planLocked(d, p)
		c.p.mu.Unlock()
		if n > 0 {
			if _, err := dst.Write(p[:n]); err != nil {
				c.close()
				return false
			}
			c.p.update(func(s *Stats) {
				if d == Upstream {
					s.BytesUp += int64(n)
				} else {
					s.BytesDown += int64(n)
				}
			})
		}
		if cut {
			c.p.mu.Lock()
			c.cut(d)
			c.p.mu.Unlock()
			return false
		}
		p = p[n:]
	}
	return true
}

// planLocked returns how many bytes of p may be written now and whether
// the connection is to be cut right after them, and moves the direction's
// tracker and cut budget past those bytes. p.mu must be held.
func (c *conn) planLocked(d Direction, p []byte) (n int, cut bool) {
	n = len(p)
	if left := c.cutLeft[d]; left > 0 && int64(n) >= left {
		n, cut = int(left), true
	}
	if k, mid := c.track[d].advance(p[:n], c.cutMid[d]); mid {
		n, cut = k, true
	}
	if c.cutLeft[d] > 0 {
		c.cutLeft[d] -= int64(n)
	}
	return n, cut
}

// hold waits out a stall and the delay of direction d. It reports false
// when the connection closed meanwhile.
func (c *conn) hold(d Direction) bool {
	for {
		c.p.mu.Lock()
		stall, delay := c.p.stall[d], c.p.delay[d]
		c.p.mu.Unlock()
		if stall == nil {
			if delay > 0 {
				t := time.NewTimer(delay)
				defer t.Stop()
				select {
				case <-t.C:
				case <-c.dead:
					return false
				}
			}
			return true
		}
		select {
		case <-stall:
		case <-c.dead:
			return false
		}
	}
}
