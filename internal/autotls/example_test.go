package autotls_test

import (
	"fmt"
	"net"
	"os"

	"github.com/ptyhost/ptyhost/internal/autotls"
)

// A relay's TLS listener gets its certificates from the Manager; no request
// reaches the CA until a handshake asks for one of the names.
func Example() {
	dir, _ := os.MkdirTemp("", "acme-example-")
	defer os.RemoveAll(dir)
	m, err := autotls.New(autotls.Config{Domains: []string{"relay.example.com"}, CacheDir: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	tlsConfig := m.TLSConfig() // relay.ServeOptions.TLSConfig
	fmt.Println(tlsConfig.NextProtos)
	for _, u := range m.RoomURLs(&net.TCPAddr{Port: 443}) {
		fmt.Println(u.URL)
	}
	// Output:
	// [h2 http/1.1 acme-tls/1]
	// wss://relay.example.com/v1/rooms/
}
