package relay

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
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
	// DrainTimeout bounds the planned restart on ctx's end: how long legs
	// get to take their announcement before they are cut. Zero: 10 s.
	DrainTimeout time.Duration
	// Ready, if not nil, is called with the bound address once the relay
	// listens (the CLI prints its startup line there).
	Ready func(addr net.Addr, tls bool)
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
	if opts.Addr == "" {
		opts.Addr = DefaultAddr
	}
	if opts.DrainTimeout <= 0 {
		opts.DrainTimeout = 10 * time.Second
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
	srv := &http.Server{Handler: rl, ReadHeaderTimeout: 10 * time.Second, ErrorLog: nil}
	tls := opts.TLSCertFile != ""
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
