package pebbletest_test

import (
	"context"
	"fmt"
	"net"

	"github.com/ptyhost/ptyhost/internal/autotls/pebbletest"
)

// The DNS server a Pebble validation authority is pointed at says every
// name is 127.0.0.1.
func Example() {
	d, err := pebbletest.StartDNS()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer d.Close()
	r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var dl net.Dialer
		return dl.DialContext(ctx, network, d.Addr())
	}}
	addrs, err := r.LookupHost(context.Background(), "relay.ptyhost.test")
	fmt.Println(addrs, err)
	// Output:
	// [127.0.0.1] <nil>
}
