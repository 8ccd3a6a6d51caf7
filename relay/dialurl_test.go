package relay

import (
	"net"
	"reflect"
	"testing"
)

func TestDialURLs(t *testing.T) {
	tcp := func(ip string, port int) net.Addr { return &net.TCPAddr{IP: net.ParseIP(ip), Port: port} }
	for _, tc := range []struct {
		name     string
		addr     net.Addr
		tls      bool
		hostname string
		want     []DialURL
	}{
		{"loopback", tcp("127.0.0.1", 8722), false, "box", []DialURL{{URL: "ws://127.0.0.1:8722/v1/rooms/"}}},
		{"ipv6 loopback", tcp("::1", 8722), true, "box", []DialURL{{URL: "wss://[::1]:8722/v1/rooms/"}}},
		{"one address", tcp("192.0.2.7", 443), true, "box", []DialURL{{URL: "wss://192.0.2.7:443/v1/rooms/"}}},
		{"every interface, v6", tcp("::", 8732), false, "box.example", []DialURL{
			{URL: "ws://localhost:8732/v1/rooms/", For: "this machine"},
			{URL: "ws://box.example:8732/v1/rooms/", For: "other machines"},
		}},
		{"every interface, v4", tcp("0.0.0.0", 8732), false, "box", []DialURL{
			{URL: "ws://localhost:8732/v1/rooms/", For: "this machine"},
			{URL: "ws://box:8732/v1/rooms/", For: "other machines"},
		}},
		{"no name", tcp("::", 8732), false, "", []DialURL{{URL: "ws://localhost:8732/v1/rooms/", For: "this machine"}}},
		{"named localhost", tcp("0.0.0.0", 8732), false, "localhost", []DialURL{{URL: "ws://localhost:8732/v1/rooms/", For: "this machine"}}},
	} {
		if got := DialURLs(tc.addr, tc.tls, tc.hostname); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
