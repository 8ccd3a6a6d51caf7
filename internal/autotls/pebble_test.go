package autotls_test

import (
	"context"
	"crypto/ed25519"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/autotls"
	"github.com/ptyhost/ptyhost/internal/autotls/pebbletest"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/token"
)

// testDomain is the relay's name in these tests: under .test (RFC 2606),
// which no public resolver answers, and which pebbletest's DNS says is
// 127.0.0.1.
const testDomain = "relay.ptyhost.test"

// acmeRelay is a relay serving TLS from an autotls.Manager.
type acmeRelay struct {
	addr string
	key  ed25519.PrivateKey
	stop func()
}

// startACMERelay runs a relay on addr whose certificate comes from pb, kept
// in cache.
func startACMERelay(t *testing.T, pb *pebbletest.Server, addr, cache string) *acmeRelay {
	t.Helper()
	return startRelayWith(t, newManager(t, pb, cache), addr)
}

// newManager makes a Manager for testDomain that orders from pb.
func newManager(t *testing.T, pb *pebbletest.Server, cache string) *autotls.Manager {
	t.Helper()
	m, err := autotls.New(autotls.Config{
		Domains:      []string{testDomain},
		CacheDir:     cache,
		DirectoryURL: pb.DirectoryURL,
		HTTPClient:   pb.Client,
		Logger:       quiet(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// startRelayWith runs a relay on addr serving TLS from m.
func startRelayWith(t *testing.T, m *autotls.Manager, addr string) *acmeRelay {
	t.Helper()
	pub, key, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- relay.ListenAndServe(ctx, relay.Config{PublicKeys: []ed25519.PublicKey{pub}, Logger: quiet()}, relay.ServeOptions{
			Addr:         addr,
			TLSConfig:    m.TLSConfig(),
			DrainTimeout: time.Second,
			Ready:        func(net.Addr, bool) { close(ready) },
		})
	}()
	select {
	case <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("relay on %s: %v", addr, err)
	}
	r := &acmeRelay{addr: addr, key: key}
	r.stop = func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("relay: %v", err)
		}
	}
	t.Cleanup(func() {
		if r.stop != nil {
			r.stop()
		}
	})
	return r
}

// halt stops the relay now.
func (r *acmeRelay) halt() {
	r.stop()
	r.stop = nil
}

// viewerToken mints a viewer token for room with the relay's key.
func (r *acmeRelay) viewerToken(t *testing.T, room string) string {
	t.Helper()
	jti, err := token.NewJTI()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().Unix()
	tok, err := token.Mint(r.key, token.Claims{SessionID: room, RoomID: room, UserID: "ann",
		Role: attachwire.RoleViewer, OrgID: relaytest.DefaultOrg, Audience: token.Audience,
		JTI: jti, IssuedAt: now, ExpiresAt: now + 60})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// tlsClient dials testDomain's port on 127.0.0.1 (as DNS would say) and
// trusts only roots.
func tlsClient(r *acmeRelay, roots *x509.CertPool) *http.Client {
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: roots},
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, r.addr)
		},
	}}
}

// roomURL is the wss URL of room on r under testDomain.
func (r *acmeRelay) roomURL(room string) string {
	_, port, _ := net.SplitHostPort(r.addr)
	return "wss://" + net.JoinHostPort(testDomain, port) + "/v1/rooms/" + room
}

// watch opens a viewer leg to room over TLS (trusting roots only) and
// returns the certificate chain the relay showed, checked to the root.
func (r *acmeRelay) watch(t *testing.T, roots *x509.CertPool, room string) [][]*x509.Certificate {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h := http.Header{"Authorization": {"Bearer " + r.viewerToken(t, room)}}
	ws, resp, err := websocket.Dial(ctx, r.roomURL(room), &websocket.DialOptions{
		HTTPClient: tlsClient(r, roots), HTTPHeader: h, Subprotocols: []string{relay.Subprotocol}})
	if err != nil {
		t.Fatalf("wss dial of %s: %v", r.roomURL(room), err)
	}
	c := &relaytest.Conn{WS: ws}
	defer c.Close()
	if err := c.SendControl(ctx, attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer}); err != nil {
		t.Fatal(err)
	}
	if st := relaytest.ExpectControl[attachwire.RoomState](t, c); st.State != attachwire.RoomHostReconnecting {
		t.Fatalf("room_state %q", st.State)
	}
	if resp.TLS == nil || len(resp.TLS.VerifiedChains) == 0 {
		t.Fatal("the handshake has no verified chain")
	}
	return resp.TLS.VerifiedChains
}

// TestCertificateFromPebble gets a relay's certificate from a real ACME CA
// and watches a room through it; a restarted relay reuses the cached
// certificate without a second order.
//
// The CA is Pebble, in this process (pebbletest): its ACME directory is
// https://127.0.0.1:PORT/dir, served with a certificate of its own that
// only the relay's ACME client trusts (Config.HTTPClient). It issues from
// a test root it makes at start (pebbletest.Server.Root), which the
// WebSocket client here trusts and nothing else. The challenge reaches the
// relay on loopback: Pebble's validation authority asks pebbletest's DNS
// server (UDP on 127.0.0.1) for relay.ptyhost.test, which answers
// 127.0.0.1 for every name, and it dials the TLS-ALPN-01 port it was
// started with: the relay's own listener, reserved before either starts.
// The relay's TLS configuration answers that acme-tls/1 handshake itself.
func TestCertificateFromPebble(t *testing.T) {
	addr := testkit.FreeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	tlsPort, _ := strconv.Atoi(port)
	pb, err := pebbletest.Start(pebbletest.Options{TLSPort: tlsPort, HTTPPort: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer pb.Close()
	defer func() {
		if t.Failed() {
			t.Logf("%s logged:\n%s", pb, pb.Log())
		}
	}()
	cache := t.TempDir()

	r := startACMERelay(t, pb, addr, cache)
	chains := r.watch(t, pb.Roots(), "r1")
	leaf := chains[0][0]
	if len(leaf.DNSNames) != 1 || leaf.DNSNames[0] != testDomain {
		t.Fatalf("certificate for %v, want [%s]", leaf.DNSNames, testDomain)
	}
	if root := chains[0][len(chains[0])-1]; !root.Equal(pb.Root) {
		t.Fatalf("chain ends at %q, not Pebble's root", root.Subject)
	}
	if n := pb.Orders(); n != 1 {
		t.Fatalf("%d orders for one certificate", n)
	}
	// A second leg is served from memory: no new order.
	r.watch(t, pb.Roots(), "r2")

	// Restarted on the same cache, the relay serves the certificate it
	// kept: the same one, and Pebble sees no second order.
	r.halt()
	r = startACMERelay(t, pb, addr, cache)
	again := r.watch(t, pb.Roots(), "r1")[0][0]
	if !again.Equal(leaf) {
		t.Fatalf("after a restart: certificate serial %s, before %s", again.SerialNumber, leaf.SerialNumber)
	}
	if n := pb.Orders(); n != 1 {
		t.Fatalf("%d orders after a restart on the same cache, want 1", n)
	}
}

// TestCertificateByHTTP01 gets the certificate through the plain-HTTP
// listener: Pebble's validation authority is told a TLS-ALPN-01 port where
// nothing listens, so the first order fails, and autotls orders again with
// HTTP-01, which Pebble fetches from ServeHTTP's listener on 127.0.0.1
// (its HTTP-01 port), found through the same loopback-only DNS.
func TestCertificateByHTTP01(t *testing.T) {
	addr := testkit.FreeAddr(t)
	nothing := testkit.FreeAddr(t)
	httpLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pb, err := pebbletest.Start(pebbletest.Options{TLSPort: port(t, nothing), HTTPPort: port(t, httpLn.Addr().String())})
	if err != nil {
		t.Fatal(err)
	}
	defer pb.Close()
	defer func() {
		if t.Failed() {
			t.Logf("%s logged:\n%s", pb, pb.Log())
		}
	}()
	m := newManager(t, pb, t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- m.ServeHTTP(ctx, httpLn) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("ServeHTTP: %v", err)
		}
	}()
	r := startRelayWith(t, m, addr)
	leaf := r.watch(t, pb.Roots(), "r1")[0][0]
	if len(leaf.DNSNames) != 1 || leaf.DNSNames[0] != testDomain {
		t.Fatalf("certificate for %v", leaf.DNSNames)
	}
	if n := pb.Orders(); n != 2 {
		t.Fatalf("%d orders, want 2 (TLS-ALPN-01 refused, then HTTP-01)", n)
	}
}

// port is addr's port number.
func port(t *testing.T, addr string) int {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
