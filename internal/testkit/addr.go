package testkit

import (
	"net"
	"testing"
)

// FreeAddr returns a loopback address ("127.0.0.1:port") that nothing
// listened on a moment ago, for a server that must be told its address
// before it starts (a NATS cluster's routes, a relay restarted on its
// port). Another process may take it meanwhile; on loopback in a test
// that is rare enough.
func FreeAddr(tb testing.TB) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
