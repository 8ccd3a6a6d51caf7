package relay

import "net"

// viewerReadBuffer is the read buffer a driver's or viewer's connection
// gets in place of net/http's 4 KiB: what such a leg sends is keystrokes,
// resizes and acks, and a larger message (a paste) bypasses a buffer it
// does not fit. Idle viewers are most of a busy relay's connections, and
// this buffer was an eighth of what each cost.
const viewerReadBuffer = 512

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
