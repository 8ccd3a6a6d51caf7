package pebbletest

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"

	"github.com/letsencrypt/pebble/v2/ca"
	"github.com/letsencrypt/pebble/v2/db"
	"github.com/letsencrypt/pebble/v2/va"
	"github.com/letsencrypt/pebble/v2/wfe"
)

// Options says where the validation authority finds the server under
// test: every name resolves to 127.0.0.1 (through the package's DNS), and
// these are the ports it dials there.
type Options struct {
	// TLSPort is where TLS-ALPN-01 challenges are checked (443 for a real
	// CA).
	TLSPort int
	// HTTPPort is where HTTP-01 challenges are fetched (80 for a real
	// CA).
	HTTPPort int
}

// Server is a Pebble ACME CA on loopback. Its methods are safe for
// concurrent use.
type Server struct {
	// DirectoryURL is the ACME directory (https://127.0.0.1:PORT/dir).
	DirectoryURL string
	// Root is the test CA's root certificate, which the certificates it
	// issues chain to (through an intermediate the order's chain
	// carries).
	Root *x509.Certificate
	// Client talks to the ACME server: it trusts the server's own TLS
	// certificate, which is not the test CA's.
	Client *http.Client
	// ServerCertPEM is the ACME server's own TLS certificate in PEM, for a
	// separate process's trust store (SSL_CERT_FILE).
	ServerCertPEM []byte

	orders atomic.Int64
	srv    *httptest.Server
	dns    *DNS
	logMu  sync.Mutex
	log    bytes.Buffer
}

// Start runs a Pebble CA whose validation authority checks challenges on
// 127.0.0.1 at opts' ports. It sets Pebble's environment switches in this
// process for deterministic runs: no random sleep before a validation,
// and no nonce rejected on purpose.
func Start(opts Options) (*Server, error) {
	os.Setenv("PEBBLE_VA_NOSLEEP", "1")
	os.Setenv("PEBBLE_WFE_NONCEREJECT", "0")
	dns, err := StartDNS()
	if err != nil {
		return nil, err
	}
	s := &Server{dns: dns}
	logger := log.New(logWriter{s}, "pebble ", log.Lmicroseconds)
	store := db.NewMemoryStore()
	authority := ca.New(logger, store, "", "ecdsa", 0, 1, map[string]ca.Profile{"default": {Description: "the default profile"}})
	validator := va.New(logger, opts.HTTPPort, opts.TLSPort, false, dns.Addr(), store)
	front := wfe.New(logger, store, validator, authority, []string{"pebble.letsencrypt.org"}, false, false, 0, 0)
	handler := front.Handler()
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/order-plz" {
			s.orders.Add(1)
		}
		handler.ServeHTTP(w, r)
	}))
	s.srv.Config.ErrorLog = logger
	s.srv.StartTLS()
	s.DirectoryURL = s.srv.URL + wfe.DirectoryPath
	s.Root = authority.GetRootCert(0).Cert
	s.Client = s.srv.Client()
	s.ServerCertPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.srv.Certificate().Raw})
	return s, nil
}

// Orders counts the certificate orders placed so far.
func (s *Server) Orders() int { return int(s.orders.Load()) }

// Roots is a pool of the test CA's root alone.
func (s *Server) Roots() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(s.Root)
	return p
}

// Log returns what Pebble has logged (for a failing test's report).
func (s *Server) Log() string {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	return s.log.String()
}

// Close stops the ACME server and the DNS server. Pebble's validation
// authority keeps one idle goroutine until the process exits.
func (s *Server) Close() {
	s.srv.Close()
	s.dns.Close()
}

// logWriter collects Pebble's log lines in the Server.
type logWriter struct{ s *Server }

func (w logWriter) Write(p []byte) (int, error) {
	w.s.logMu.Lock()
	defer w.s.logMu.Unlock()
	return w.s.log.Write(p)
}

// String describes the server for a test's log.
func (s *Server) String() string {
	return fmt.Sprintf("pebble at %s (root %q)", s.DirectoryURL, s.Root.Subject.CommonName)
}
