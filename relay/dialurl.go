package relay

import (
	"net"
	"net/url"
	"strconv"
)

// DialURL is an address viewers and hosts can dial a relay at: the rooms'
// base URL (ws[s]://HOST:PORT/v1/rooms/) and who it works for.
type DialURL struct {
	URL string
	// For says from where the URL reaches the relay: "" when it is the
	// address the relay listens on, "this machine" or "other machines".
	For string
}

// DialURLs turns the address a relay listens on into URLs a person can
// dial. An address of every interface (0.0.0.0, ::) is no address to
// dial: it becomes "localhost", which reaches the relay over whichever
// loopback family it listens on, for this machine, and hostname (this
// machine's name, as os.Hostname gives it), for other machines, when it
// is a name other than localhost.
func DialURLs(addr net.Addr, tls bool, hostname string) []DialURL {
	scheme := "ws"
	if tls {
		scheme = "wss"
	}
	base := func(host, port string) string {
		u := url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port), Path: "/v1/rooms/"}
		return u.String()
	}
	tcp, ok := addr.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		host, port, err := net.SplitHostPort(addr.String())
		if err != nil {
			return []DialURL{{URL: scheme + "://" + addr.String() + "/v1/rooms/"}}
		}
		return []DialURL{{URL: base(host, port)}}
	}
	port := strconv.Itoa(tcp.Port)
	out := []DialURL{{URL: base("localhost", port), For: "this machine"}}
	if hostname != "" && hostname != "localhost" {
		out = append(out, DialURL{URL: base(hostname, port), For: "other machines"})
	}
	return out
}
