package relay

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"
)

// ServeOptions says where and how ListenAndServe listens.
type ServeOptions struct {
	// Addr is the TCP address to listen on. Empty: "127.0.0.1:8722"
	// (loopback: listening on every interface is a choice to type).
	Addr string
	// TLSCertFile and TLSKeyFile, both set, serve wss:// (TLS); both empty
	// serve ws://, for a relay behind a TLS-terminating proxy or for tests.
	TLSCertFile, TLSKeyFile string
	// TLSConfig, if not nil, serves wss:// with it instead of files: its
	// GetCertificate finds the certificates (an ACME client's, say, which
	// also answers TLS-ALPN-01 challenges on this listener).
	TLSConfig *tls.Config
	// DrainTimeout bounds the planned restart on ctx's end: how long legs
	// get to take their announcement before they are cut. Zero: 10 s.
	DrainTimeout time.Duration
	// Ready, if not nil, is called with the bound address once the relay
	// listens (the CLI prints its startup line there).
	Ready func(addr net.Addr, tls bool)
	// IdleTimeout closes a keep-alive connection that has no request in
	// flight for this long. Zero: 60 s.
	IdleTimeout time.Duration
	// RequestTimeout bounds reading and answering one plain request
	// (health, metrics, the page's assets, a lane POST). Streams (a
	// WebSocket leg, an SSE lane) are exempt: they set a deadline on each
	// write and close silent peers by the relay's silence rule. Zero: 60 s.
	RequestTimeout time.Duration
	// MaxConns caps the connections open at once; the ones past it are
	// reset on accept and counted in ptyhost_relay_refusals_total. Zero:
	// the process's open-file limit less 64 kept for everything else;
	// negative: no cap.
	MaxConns int
	// MaxConnsPerAddr caps the connections open at once from one client IP
	// address (a browser on the lane holds two or three). Zero: 256;
	// negative: no cap. Loopback load tests raise it.
	MaxConnsPerAddr int
}

// DefaultAddr is the address ListenAndServe uses when none is given.
const DefaultAddr = "127.0.0.1:8722"

// ListenAndServe runs a Relay configured by cfg on opts.Addr until ctx is
// done, then performs the planned restart (Shutdown, bounded by
// DrainTimeout), stops the listener and closes the relay. It returns nil
// after a drain ctx asked for, or the error that stopped it.
func ListenAndServe(ctx context.Context, cfg Config, opts ServeOptions) error {
	if (opts.TLSCertFile == "") != (opts.TLSKeyFile == "") {
		return errors.New("relay: a TLS certificate needs its key, and the key its certificate")
	}
	if opts.TLSConfig != nil && opts.TLSCertFile != "" {
		return errors.New("relay: TLS from certificate files or from a TLS configuration, not both")
	}
	if opts.Addr == "" {
		opts.Addr = DefaultAddr
	}
	if opts.DrainTimeout <= 0 {
		opts.DrainTimeout = 10 * time.Second
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = 60 * time.Second
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = 60 * time.Second
	}
	rl, err := New(cfg)
	if err != nil {
		return err
	}
	defer rl.Close()
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", opts.Addr)
	if err != nil {
		return fmt.Errorf("relay: %w", err)
	}
	limits := connLimits{total: opts.MaxConns, perAddr: opts.MaxConnsPerAddr}
	if limits.total == 0 {
		limits.total = defaultMaxConns()
	}
	if limits.perAddr == 0 {
		limits.perAddr = 256
	}
	ln = newLimitListener(ln, limits,
		func(reason string) { rl.metrics.refusals.WithLabelValues(reason).Inc() },
		func(err error) { rl.log.Warn("relay: accept failed, retrying", "err", err) })
	srv := &http.Server{
		Handler:           requestDeadlines(rl, opts.RequestTimeout),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       opts.IdleTimeout,
		// net/http's own complaints (TLS handshakes, a handler's panic)
		// go to the relay's logger, not to standard error.
		ErrorLog: slog.NewLogLogger(rl.log.Handler(), slog.LevelWarn),
	}
	srv.TLSConfig = opts.TLSConfig
	tls := opts.TLSCertFile != "" || opts.TLSConfig != nil
	if opts.Ready != nil {
		opts.Ready(ln.Addr(), tls)
	}
	served := make(chan error, 1)
	go func() {
		if tls {
			served <- srv.ServeTLS(ln, opts.TLSCertFile, opts.TLSKeyFile)
		} else {
			served <- srv.Serve(ln)
		}
	}()
	select {
	case err := <-served:
		return fmt.Errorf("relay: %w", err)
	case <-ctx.Done():
	}
	drain, cancel := context.WithTimeout(context.Background(), opts.DrainTimeout)
	defer cancel()
	rl.Shutdown(drain)
	srv.Shutdown(drain)
	rl.Close()
	srv.Close()
	<-served
	return nil
}

// requestDeadlines bounds each plain request's reading and answering, so
// that a client who sends half a body or stops reading an answer gives
// its connection back. A server-wide ReadTimeout or WriteTimeout would cut
// streams, and a read deadline left on a connection a handler is still
// using cancels its request, so streams get none: they have their own
// per-write deadlines and silence rule.
func requestDeadlines(h http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A keep-alive connection carries the last request's deadlines
		// into the next one: a stream clears them.
		var deadline time.Time
		if !isStream(r) {
			deadline = time.Now().Add(d)
		}
		rc := http.NewResponseController(w)
		rc.SetReadDeadline(deadline)
		rc.SetWriteDeadline(deadline)
		h.ServeHTTP(w, r)
	})
}

// isStream reports whether r opens a long-lived stream: a WebSocket
// upgrade or a lane's server-sent events.
func isStream(r *http.Request) bool {
	if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		return true
	}
	return r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/sse")
}
