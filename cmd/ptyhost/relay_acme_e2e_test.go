package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/autotls/pebbletest"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/token"
)

// acmeTestDomain is the relay's name: under .test (RFC 2606), which only
// pebbletest's DNS answers (with 127.0.0.1).
const acmeTestDomain = "relay.ptyhost.test"

// TestRelayBinaryACME runs the built ptyhost binary as a public relay
// would run, --acme-domain and all, against Pebble's own binary, and
// watches a room through the certificate it got.
//
// The CA is Pebble's command (github.com/letsencrypt/pebble/v2/cmd/pebble,
// built into a temporary directory): its ACME directory is
// https://127.0.0.1:PORT/dir, served with a certificate this test makes,
// which the relay process trusts through SSL_CERT_FILE and nothing else
// does. Pebble issues from a test root it makes at start, fetched from its
// management endpoint (/roots/0); the WebSocket client trusts that root
// alone. The challenge reaches the relay on loopback: Pebble's validation
// authority resolves relay.ptyhost.test through pebbletest's DNS server
// (-dnsserver, on 127.0.0.1), which answers 127.0.0.1 for every name, and
// dials its tlsPort, set to the relay's --listen port, where the relay's
// TLS listener answers the TLS-ALPN-01 handshake itself.
func TestRelayBinaryACME(t *testing.T) {
	gotool := requireTool(t, "go")
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	pebble := filepath.Join(dir, "pebble")
	if out, err := exec.CommandContext(ctx, gotool, "build", "-o", pebble, "github.com/letsencrypt/pebble/v2/cmd/pebble").CombinedOutput(); err != nil {
		t.Fatalf("building pebble: %v\n%s", err, out)
	}
	dns, err := pebbletest.StartDNS()
	if err != nil {
		t.Fatal(err)
	}
	defer dns.Close()

	relayAddr, acmeAddr, mgmtAddr := testkit.FreeAddr(t), testkit.FreeAddr(t), testkit.FreeAddr(t)
	certPEM := writeServerCert(t, dir)
	_, relayPort, _ := net.SplitHostPort(relayAddr)
	tlsPort, _ := strconv.Atoi(relayPort)
	cfg := map[string]any{"pebble": map[string]any{
		"listenAddress": acmeAddr, "managementListenAddress": mgmtAddr,
		"certificate": filepath.Join(dir, "acme.pem"), "privateKey": filepath.Join(dir, "acme.key"),
		"httpPort": 1, "tlsPort": tlsPort,
	}}
	cfgFile := filepath.Join(dir, "pebble.json")
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(cfgFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	pebbleLog := new(lockedBuffer)
	pc := exec.Command(pebble, "-config", cfgFile, "-dnsserver", dns.Addr())
	pc.Env = append(os.Environ(), "PEBBLE_VA_NOSLEEP=1", "PEBBLE_WFE_NONCEREJECT=0")
	pc.Stdout, pc.Stderr = pebbleLog, pebbleLog
	if err := pc.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		pc.Process.Kill()
		pc.Wait()
		if t.Failed() {
			t.Logf("pebble logged:\n%s", pebbleLog)
		}
	}()
	trustACME := x509.NewCertPool()
	trustACME.AppendCertsFromPEM(certPEM)
	acmeClient := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: trustACME}}}
	var rootPEM []byte
	testkit.Eventually(t, "pebble's directory and root", func() bool {
		resp, err := acmeClient.Get("https://" + acmeAddr + "/dir")
		if err != nil {
			return false
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return false
		}
		resp, err = acmeClient.Get("https://" + mgmtAddr + "/roots/0")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		rootPEM, _ = io.ReadAll(resp.Body)
		return resp.StatusCode == 200
	})
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(rootPEM) {
		t.Fatalf("pebble's root is no PEM certificate: %q", rootPEM)
	}

	pub, keyFile, err := token.WriteKeyFiles(filepath.Join(dir, "relay"))
	if err != nil {
		t.Fatal(err)
	}
	key, err := token.ReadPrivateKeyFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	out := new(lockedBuffer)
	rc := exec.Command(ptyhostBin, "relay", "--listen", relayAddr, "--public-key", pub,
		"--acme-domain", acmeTestDomain, "--acme-cache", filepath.Join(dir, "acme"),
		"--acme-directory", "https://"+acmeAddr+"/dir", "--acme-email", "ops@ptyhost.test")
	rc.Env = append(os.Environ(), "SSL_CERT_FILE="+filepath.Join(dir, "acme.pem"))
	rc.Stdout, rc.Stderr = out, out
	if err := rc.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- rc.Wait() }()
	defer func() {
		rc.Process.Kill()
		<-exited
	}()
	want := regexp.QuoteMeta("ptyhost relay listening on "+relayAddr+" as wss://"+net.JoinHostPort(acmeTestDomain, relayPort)) + `/v1/rooms/`
	testkit.Eventually(t, "the relay's startup line", func() bool { return regexp.MustCompile(want).MatchString(out.String()) })

	// A viewer over wss:// with the relay's name, dialled on 127.0.0.1 as
	// DNS would say, trusting Pebble's root only.
	jti, _ := token.NewJTI()
	now := time.Now().Unix()
	tok, err := token.Mint(key, token.Claims{SessionID: "r1", RoomID: "r1", UserID: "ann", Role: attachwire.RoleViewer,
		OrgID: relaytest.DefaultOrg, Audience: token.Audience, JTI: jti, IssuedAt: now, ExpiresAt: now + 60})
	if err != nil {
		t.Fatal(err)
	}
	httpc := &http.Client{Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: roots},
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, relayAddr)
		},
	}}
	dialCtx, dialCancel := context.WithTimeout(ctx, time.Minute)
	defer dialCancel()
	ws, resp, err := websocket.Dial(dialCtx, "wss://"+net.JoinHostPort(acmeTestDomain, relayPort)+"/v1/rooms/r1", &websocket.DialOptions{
		HTTPClient: httpc, HTTPHeader: http.Header{"Authorization": {"Bearer " + tok}}, Subprotocols: []string{relay.Subprotocol}})
	if err != nil {
		t.Fatalf("wss dial: %v\nrelay said %s", err, out)
	}
	c := &relaytest.Conn{WS: ws}
	defer c.Close()
	if err := c.SendControl(dialCtx, attachwire.Subscribe{SessionID: "r1", AsRole: attachwire.RoleViewer}); err != nil {
		t.Fatal(err)
	}
	if st := relaytest.ExpectControl[attachwire.RoomState](t, c); st.State != attachwire.RoomHostReconnecting {
		t.Fatalf("room_state %q", st.State)
	}
	if leaf := resp.TLS.PeerCertificates[0]; len(leaf.DNSNames) != 1 || leaf.DNSNames[0] != acmeTestDomain {
		t.Fatalf("the relay's certificate is for %v", leaf.DNSNames)
	}
	c.Close()

	// SIGTERM drains and exits 0, as under systemd or docker stop.
	rc.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		exited <- err
		if err != nil {
			t.Fatalf("relay after SIGTERM: %v\n%s", err, out)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the relay did not stop on SIGTERM\n%s", out)
	}
}

// writeServerCert writes a self-signed certificate for 127.0.0.1 and its
// key (acme.pem, acme.key in dir), for Pebble's own HTTPS listeners, and
// returns the certificate's PEM.
func writeServerCert(t *testing.T, dir string) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "test ACME server"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "acme.pem"), certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "acme.key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	return bytes.Clone(certPEM)
}
