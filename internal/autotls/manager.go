package autotls

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/ptyhost/ptyhost/relay"
	"golang.org/x/crypto/acme"
	"golang.org/x/crypto/acme/autocert"
)

// LetsEncryptURL is the ACME directory used when Config names none: Let's
// Encrypt's production CA, whose certificates browsers trust.
const LetsEncryptURL = autocert.DefaultACMEDirectory

// Config says which names to get certificates for, from where, and where
// to keep them.
type Config struct {
	// Domains are the names the certificate is for (ParseDomains checks
	// them). Handshakes for any other name are refused, so that a scan of
	// the address cannot make the relay order certificates.
	Domains []string
	// CacheDir keeps the account key, the certificates and their keys
	// (mode 0700, created if missing). Empty: DefaultCacheDir.
	CacheDir string
	// Email, if set, is given to the CA as the account's contact: it
	// warns of certificates about to expire unrenewed.
	Email string
	// DirectoryURL is the CA's ACME directory (https). Empty:
	// LetsEncryptURL.
	DirectoryURL string
	// HTTPClient, if not nil, talks to the CA (a test CA's own trust
	// roots, say). Nil: the system's roots.
	HTTPClient *http.Client
	// Logger receives what the operator should hear of (a certificate
	// that could not be had). Nil: slog.Default.
	Logger *slog.Logger
}

// Manager gets, caches and renews the certificates of Config.Domains. It
// is safe for concurrent use: every handshake of the listener calls it.
type Manager struct {
	m       *autocert.Manager
	domains []string
	log     *slog.Logger
	// httpsPort is where ServeHTTP redirects to (443 is left out of the
	// URL).
	httpsPort atomic.Int32
}

// DefaultCacheDir is the cache directory used when Config names none:
// ptyhost/acme under the user's cache directory ($XDG_CACHE_HOME or
// ~/.cache on Linux).
func DefaultCacheDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("autotls: no cache directory for the certificates (give one): %w", err)
	}
	return filepath.Join(dir, "ptyhost", "acme"), nil
}

// New checks cfg and makes its cache directory. No request reaches the CA
// until the first TLS handshake for one of the names.
func New(cfg Config) (*Manager, error) {
	domains, err := ParseDomains(cfg.Domains)
	if err != nil {
		return nil, fmt.Errorf("autotls: %w", err)
	}
	if cfg.DirectoryURL == "" {
		cfg.DirectoryURL = LetsEncryptURL
	}
	if err := checkDirectoryURL(cfg.DirectoryURL); err != nil {
		return nil, err
	}
	if cfg.CacheDir == "" {
		if cfg.CacheDir, err = DefaultCacheDir(); err != nil {
			return nil, err
		}
	}
	// The cache holds private keys: only the relay's user may read it.
	if err := os.MkdirAll(cfg.CacheDir, 0o700); err != nil {
		return nil, fmt.Errorf("autotls: cache directory: %w", err)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	am := &autocert.Manager{
		// Naming the domains is the operator's acceptance of the CA's
		// subscriber agreement, as docs/deploy.md says.
		Prompt:     autocert.AcceptTOS,
		Cache:      autocert.DirCache(cfg.CacheDir),
		HostPolicy: autocert.HostWhitelist(domains...),
		Email:      cfg.Email,
		Client:     &acme.Client{DirectoryURL: cfg.DirectoryURL, HTTPClient: cfg.HTTPClient},
	}
	m := &Manager{m: am, domains: domains, log: cfg.Logger}
	m.httpsPort.Store(443)
	return m, nil
}

// checkDirectoryURL refuses a directory URL that is not https: ACME
// requires TLS to the CA, and an http URL is a typo that would only fail
// at the first handshake.
func checkDirectoryURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("autotls: ACME directory %q is no https URL (Let's Encrypt's is %s)", s, LetsEncryptURL)
	}
	return nil
}

// Domains returns the names certificates are had for.
func (m *Manager) Domains() []string { return append([]string(nil), m.domains...) }

// TLSConfig is the configuration of the relay's TLS listener: its
// GetCertificate serves the names' certificates (ordering one at the first
// handshake that needs it) and answers TLS-ALPN-01 challenges.
func (m *Manager) TLSConfig() *tls.Config {
	c := m.m.TLSConfig()
	get := c.GetCertificate
	c.GetCertificate = func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
		cert, err := get(hello)
		if err != nil && hello.ServerName != "" && m.allowed(hello.ServerName) {
			// A name of ours whose certificate could not be had is the
			// operator's business (DNS, a firewall, the CA's rate
			// limits); a scan's unknown names are not.
			m.log.Warn("autotls: no certificate", "domain", hello.ServerName, "err", err)
		}
		return cert, err
	}
	return c
}

// allowed reports whether name is one of the Manager's domains.
func (m *Manager) allowed(name string) bool {
	for _, d := range m.domains {
		if d == name {
			return true
		}
	}
	return false
}

// SetHTTPSPort sets the port ServeHTTP redirects to: the TLS listener's,
// once it is bound. 443 is the default and is left out of the URL.
func (m *Manager) SetHTTPSPort(port int) { m.httpsPort.Store(int32(port)) }

// HTTPHandler answers HTTP-01 challenges and redirects every other GET or
// HEAD to the same path over https (other methods get 400: a body sent in
// clear must not look accepted). Giving the CA a plain-HTTP listener also
// lets it pick HTTP-01, for networks where port 443 of the relay is not
// reachable directly.
func (m *Manager) HTTPHandler() http.Handler {
	h := m.m.HTTPHandler(http.HandlerFunc(m.redirect))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// autocert checks the Host header, port and all, against the
		// names: a CA asks on port 80 and sends none, but a listener
		// on another port (behind a port mapping, or a test CA's) gets
		// one, which is no part of the name.
		if host, _, err := net.SplitHostPort(r.Host); err == nil {
			r = r.Clone(r.Context())
			r.Host = host
		}
		h.ServeHTTP(w, r)
	})
}

// redirect sends a plain-HTTP request to its https URL on the TLS port.
func (m *Manager) redirect(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "use https", http.StatusBadRequest)
		return
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if !m.allowed(host) {
		// Redirecting any Host there is would make the relay an open
		// redirector.
		host = m.domains[0]
	}
	if p := m.httpsPort.Load(); p != 443 {
		host = net.JoinHostPort(host, strconv.Itoa(int(p)))
	}
	http.Redirect(w, r, "https://"+host+r.URL.RequestURI(), http.StatusMovedPermanently)
}

// ServeHTTP serves HTTPHandler on ln until ctx is done, then closes it.
// It returns nil after ctx's end, or the error that stopped it.
func (m *Manager) ServeHTTP(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           m.HTTPHandler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       60 * time.Second,
		ErrorLog:          slog.NewLogLogger(m.log.Handler(), slog.LevelWarn),
	}
	stop := context.AfterFunc(ctx, func() { srv.Close() })
	defer stop()
	err := srv.Serve(ln)
	if ctx.Err() != nil && errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return fmt.Errorf("autotls: http: %w", err)
}

// RoomURLs are the rooms' base URLs of a relay listening on addr with the
// Manager's certificates: wss:// and each domain (a certificate is for its
// names, not for the address), with the port unless it is 443.
func (m *Manager) RoomURLs(addr net.Addr) []relay.DialURL {
	port := ""
	if tcp, ok := addr.(*net.TCPAddr); ok && tcp.Port != 443 {
		port = strconv.Itoa(tcp.Port)
	}
	var out []relay.DialURL
	for _, d := range m.domains {
		host := d
		if port != "" {
			host = net.JoinHostPort(d, port)
		}
		u := url.URL{Scheme: "wss", Host: host, Path: "/v1/rooms/"}
		out = append(out, relay.DialURL{URL: u.String()})
	}
	return out
}
