package relay

import (
	"bufio"
	"net"
	"net/http"
	"sync"
	"time"
)

// corkFlushBytes is how much a corked connection holds before it writes:
// past it, a backlog goes out in writes of about this size.
const corkFlushBytes = 64 << 10

// closeFlushTimeout bounds how long Close waits for the peer to take
// what is held.
const closeFlushTimeout = 250 * time.Millisecond

// corkConn is the connection under a leg's WebSocket. The WebSocket
// library flushes every message on its own, so a viewer with a backlog
// would cost a write system call (two, for a 4 KiB frame, which overruns
// the library's 4 KiB buffer) per frame. While the leg's writer has it
// corked, what is written is held in a buffer and goes out in one write
// when the writer uncorks (it has nothing more queued, or is about to
// wait) or the buffer reaches corkFlushBytes; uncorked, writes go
// straight through. Writes from the library's other goroutines (pongs,
// pings, the close handshake) take the same path in the same order,
// held at most until the writer's next uncork or the connection's Close.
//
// corkConn is safe for concurrent use. Close does not wait for a write
// under way: closing is how a leg's write deadline unblocks one.
type corkConn struct {
	net.Conn
	// raw is the connection the flushes write to: Conn itself, or the
	// TCP connection under a prefixConn, whose vectored write a wrapper
	// would hide.
	raw  net.Conn
	pool *sync.Pool // of *[]byte with cap corkFlushBytes, the Relay's

	mu     sync.Mutex
	corked bool
	buf    *[]byte     // from pool while bytes are held; nil otherwise
	pair   [2][]byte   // a flush's two parts, for vec without an allocation
	vec    net.Buffers // consumed by its WriteTo
	err    error       // the first write error: the connection is done
}

// newCorkPool returns the pool of cork buffers a Relay shares among its
// legs: a leg holds one only between a cork and the uncork after it.
func newCorkPool() *sync.Pool {
	return &sync.Pool{New: func() any {
		b := make([]byte, 0, corkFlushBytes)
		return &b
	}}
}

// Write holds p while corked, else writes it (after anything held).
func (c *corkConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, c.err
	}
	if !c.corked {
		if err := c.flushLocked(p); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	if c.buf == nil {
		c.buf = c.pool.Get().(*[]byte)
	}
	if len(*c.buf)+len(p) < corkFlushBytes {
		*c.buf = append(*c.buf, p...)
		return len(p), nil
	}
	if err := c.flushLocked(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// flushLocked writes what is held, then tail, in one call: a vectored
// write when both are there, so a large message is not copied.
func (c *corkConn) flushLocked(tail []byte) error {
	var held []byte
	if c.buf != nil {
		held = *c.buf
		*c.buf = held[:0]
	}
	var err error
	switch {
	case len(held) == 0 && len(tail) == 0:
		return nil
	case len(held) == 0:
		_, err = c.raw.Write(tail)
	case len(tail) == 0:
		_, err = c.raw.Write(held)
	default:
		c.pair = [2][]byte{held, tail}
		c.vec = c.pair[:]
		_, err = c.vec.WriteTo(c.raw)
		c.pair = [2][]byte{} // keep no reference to tail
	}
	c.err = err
	return err
}

// Close writes what is held, if no write is under way and the peer takes
// it within closeFlushTimeout, then closes the connection. The library
// answers a peer's close frame and closes at once, from its reader: the
// answer, held if the leg's writer had the connection corked, still goes
// out. A write under way is not waited for: closing is what ends one
// that the peer does not take.
func (c *corkConn) Close() error {
	if c.mu.TryLock() {
		if c.err == nil && c.buf != nil && len(*c.buf) > 0 {
			c.Conn.SetWriteDeadline(time.Now().Add(closeFlushTimeout))
			c.flushLocked(nil)
		}
		c.err = net.ErrClosed
		c.mu.Unlock()
	}
	return c.Conn.Close()
}

// cork holds what is written from now on until uncork.
func (c *corkConn) cork() {
	c.mu.Lock()
	c.corked = true
	c.mu.Unlock()
}

// uncork writes what is held and lets later writes through; the buffer
// goes back to the pool.
func (c *corkConn) uncork() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.corked = false
	if c.err != nil {
		return c.err
	}
	err := c.flushLocked(nil)
	if c.buf != nil {
		c.pool.Put(c.buf)
		c.buf = nil
	}
	return err
}

// corkHijacker is the http.ResponseWriter websocket.Accept is given: its
// Hijack returns the connection as a corkConn, and the library's write
// buffer writes to it. cc is set once Hijack has run.
type corkHijacker struct {
	http.ResponseWriter
	pool *sync.Pool
	// readBuffer, when not zero, replaces net/http's 4 KiB read buffer
	// (see viewerReadBuffer).
	readBuffer int
	cc         *corkConn
}

// Hijack hijacks the wrapped writer's connection (through any Unwrap, as
// http.ResponseController does) and wraps it.
func (h *corkHijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, brw, err := http.NewResponseController(h.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	raw := conn
	if h.readBuffer > 0 {
		// net/http's buffer may already hold the first bytes the client
		// sent after its request (a pipelined subscribe): they are copied
		// out and read first, and the large buffer is left to the
		// garbage collector with the rest of the finished request.
		if n := brw.Reader.Buffered(); n > 0 {
			early, _ := brw.Reader.Peek(n)
			conn = &prefixConn{Conn: conn, early: append([]byte(nil), early...)}
		}
	}
	h.cc = &corkConn{Conn: conn, raw: raw, pool: h.pool}
	// net/http flushed the 101 response before handing the connection
	// over: its writer holds nothing, and keeps its buffer for the
	// corkConn.
	brw.Writer.Reset(h.cc)
	if h.readBuffer > 0 {
		brw = bufio.NewReadWriter(bufio.NewReaderSize(h.cc, h.readBuffer), brw.Writer)
	}
	return h.cc, brw, nil
}

// Unwrap lets http.ResponseController reach the wrapped writer.
func (h *corkHijacker) Unwrap() http.ResponseWriter { return h.ResponseWriter }
