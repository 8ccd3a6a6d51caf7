package relay

import (
	"net"
	"sync"
	"sync/atomic"
)

// CountingListener accepts connections that count the Write calls made
// on them: tests see how many writes the relay makes on a leg's socket.
type CountingListener struct {
	net.Listener

	mu    sync.Mutex
	conns []*CountingConn
}

// Accept wraps the next connection.
func (l *CountingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	cc := &CountingConn{Conn: c}
	l.mu.Lock()
	l.conns = append(l.conns, cc)
	l.mu.Unlock()
	return cc, nil
}

// Last returns the connection accepted last, nil if none.
func (l *CountingListener) Last() *CountingConn {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.conns) == 0 {
		return nil
	}
	return l.conns[len(l.conns)-1]
}

// CountingConn counts its Write calls. A vectored write through it is
// one Write per part: it does not pass net.Buffers on to the socket.
type CountingConn struct {
	net.Conn
	writes atomic.Int64
}

func (c *CountingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// Writes returns the Write calls so far.
func (c *CountingConn) Writes() int64 { return c.writes.Load() }
