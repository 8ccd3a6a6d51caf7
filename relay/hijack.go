package relay

import (
	"bufio"
	"net"
	"net/http"
)

// viewerReadBuffer is the read buffer a driver's or viewer's connection
// gets in place of net/http's 4 KiB: what such a leg sends is keystrokes,
// resizes and acks, and a larger message (a paste) bypasses a buffer it
// does not fit. Idle viewers are most of a busy relay's connections, and
// this buffer was an eighth of what each cost.
const viewerReadBuffer = 512

// smallReads is the ResponseWriter a driver's or viewer's upgrade is
// accepted through: its Hijack hands the WebSocket library a read buffer
// of viewerReadBuffer bytes. net/http's own buffer may already hold the
// first bytes the client sent after its request (a pipelined subscribe);
// they are copied out and read first, and the large buffer is left to
// the garbage collector with the rest of the finished request.
type smallReads struct {
	http.ResponseWriter
}

// Hijack implements http.Hijacker.
func (w smallReads) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	if n := brw.Reader.Buffered(); n > 0 {
		early, _ := brw.Reader.Peek(n)
		conn = &prefixConn{Conn: conn, early: append([]byte(nil), early...)}
	}
	return conn, bufio.NewReadWriter(bufio.NewReaderSize(conn, viewerReadBuffer), brw.Writer), nil
}

// prefixConn reads early before its connection.
type prefixConn struct {
	net.Conn
	early []byte
}

func (c *prefixConn) Read(p []byte) (int, error) {
	if len(c.early) > 0 {
		n := copy(p, c.early)
		c.early = c.early[n:]
		if len(c.early) == 0 {
			c.early = nil
		}
		return n, nil
	}
	return c.Conn.Read(p)
}
