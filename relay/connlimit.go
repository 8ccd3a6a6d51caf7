package relay

import (
	"errors"
	"net"
	"net/netip"
	"sync"
	"syscall"
	"time"
)

// connLimits is what limitListener enforces. A zero field is no limit.
type connLimits struct {
	total   int // connections open at once
	perAddr int // connections open at once from one client IP address
}

// limitListener admits connections while they stay under the limits and
// closes the rest at once, before a byte is read: a stranger who opens
// sockets without a token cannot hold more than perAddr of the relay's
// file descriptors, nor all of them. Connections are counted until closed,
// so a hijacked WebSocket or a long SSE stream counts for its whole life.
//
// Accept errors that are not the listener's end (too many open files, a
// connection aborted before accept) are reported through onAcceptErr and
// retried after a short pause, as net/http would, but through the relay's
// own logger.
type limitListener struct {
	net.Listener
	limits      connLimits
	onRefuse    func(reason string)
	onAcceptErr func(error)

	mu     sync.Mutex
	open   int
	byAddr map[netip.Addr]int
}

func newLimitListener(ln net.Listener, l connLimits, onRefuse func(string), onAcceptErr func(error)) *limitListener {
	return &limitListener{Listener: ln, limits: l, onRefuse: onRefuse, onAcceptErr: onAcceptErr,
		byAddr: make(map[netip.Addr]int)}
}

// Refusal reasons, as counted in ptyhost_relay_refusals_total.
const (
	refuseConnsTotal   = "connections_total"
	refuseConnsPerAddr = "connections_per_address"
)

// Accept returns the next connection within the limits.
func (ll *limitListener) Accept() (net.Conn, error) {
	pause := 5 * time.Millisecond
	for {
		c, err := ll.Listener.Accept()
		if err != nil {
			if !temporaryAccept(err) {
				return nil, err
			}
			ll.onAcceptErr(err)
			time.Sleep(pause)
			pause = min(2*pause, time.Second)
			continue
		}
		pause = 5 * time.Millisecond
		addr := remoteIP(c)
		if reason := ll.admit(addr); reason != "" {
			// A reset, not a polite close: the peer learns at once and
			// nothing lingers in TIME_WAIT on the relay's side.
			if tc, ok := c.(*net.TCPConn); ok {
				tc.SetLinger(0)
			}
			c.Close()
			ll.onRefuse(reason)
			continue
		}
		return &limitedConn{Conn: c, ll: ll, addr: addr}, nil
	}
}

// admit counts a connection from addr in, or names the limit it would break.
func (ll *limitListener) admit(addr netip.Addr) string {
	ll.mu.Lock()
	defer ll.mu.Unlock()
	if ll.limits.total > 0 && ll.open >= ll.limits.total {
		return refuseConnsTotal
	}
	if ll.limits.perAddr > 0 && ll.byAddr[addr] >= ll.limits.perAddr {
		return refuseConnsPerAddr
	}
	ll.open++
	ll.byAddr[addr]++
	return ""
}

func (ll *limitListener) release(addr netip.Addr) {
	ll.mu.Lock()
	defer ll.mu.Unlock()
	ll.open--
	if n := ll.byAddr[addr] - 1; n > 0 {
		ll.byAddr[addr] = n
	} else {
		delete(ll.byAddr, addr)
	}
}

// limitedConn gives its slot back exactly once, however often it is closed.
type limitedConn struct {
	net.Conn
	ll   *limitListener
	addr netip.Addr
	once sync.Once
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.ll.release(c.addr) })
	return err
}

// remoteIP is the connection's peer address without its port; IPv4 mapped
// into IPv6 counts as the IPv4 address it is.
func remoteIP(c net.Conn) netip.Addr {
	if ap, err := netip.ParseAddrPort(c.RemoteAddr().String()); err == nil {
		return ap.Addr().Unmap()
	}
	return netip.Addr{}
}

// temporaryAccept reports whether an Accept error is worth waiting out:
// out of descriptors or buffers, or a connection the peer gave up on
// before it was accepted. Anything else (the listener closed) ends Serve.
func temporaryAccept(err error) bool {
	for _, e := range []error{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM,
		syscall.ECONNABORTED, syscall.ECONNRESET, syscall.EINTR} {
		if errors.Is(err, e) {
			return true
		}
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
