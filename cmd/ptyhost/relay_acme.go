package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"

	"github.com/ptyhost/ptyhost/internal/autotls"
	"github.com/ptyhost/ptyhost/relay"
)

// acmeFlags are relay's --acme-* flags: a certificate by ACME instead of
// --tls-cert and --tls-key.
type acmeFlags struct {
	domains                         stringsFlag
	cache, email, directory, httpAt string
}

func (a *acmeFlags) register(fs *flag.FlagSet) {
	fs.Var(&a.domains, "acme-domain", "")
	fs.StringVar(&a.cache, "acme-cache", "", "")
	fs.StringVar(&a.email, "acme-email", "", "")
	fs.StringVar(&a.directory, "acme-directory", "", "")
	fs.StringVar(&a.httpAt, "acme-http", "", "")
}

// check refuses --acme-* options that would do nothing or contradict the
// others.
func (a *acmeFlags) check(opts relay.ServeOptions) error {
	if len(a.domains) == 0 {
		if a.cache != "" || a.email != "" || a.directory != "" || a.httpAt != "" {
			return usagef("relay", "--acme-cache, --acme-email, --acme-directory and --acme-http need --acme-domain")
		}
		return nil
	}
	if opts.TLSCertFile != "" {
		return usagef("relay", "--acme-domain gets the certificate itself: give it or --tls-cert, not both")
	}
	if _, err := autotls.ParseDomains(a.domains); err != nil {
		return usagef("relay", "--acme-domain: %v", err)
	}
	return nil
}

// setup makes the certificate manager and, with --acme-http, starts its
// plain-HTTP listener; stop ends that listener. With no --acme-domain it
// does nothing. listenGiven says whether --listen was typed: a relay left
// on loopback cannot be reached by the CA, which the operator is told.
func (a *acmeFlags) setup(ctx context.Context, opts *relay.ServeOptions, log *slog.Logger, stdout io.Writer, listenGiven bool) (stop func(), err error) {
	if len(a.domains) == 0 {
		return func() {}, nil
	}
	m, err := autotls.New(autotls.Config{Domains: a.domains, CacheDir: a.cache, Email: a.email,
		DirectoryURL: a.directory, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("relay: %w", err)
	}
	opts.TLSConfig = m.TLSConfig()
	opts.Ready = func(addr net.Addr, _ bool) {
		if tcp, ok := addr.(*net.TCPAddr); ok {
			m.SetHTTPSPort(tcp.Port)
		}
		writeACMEListening(stdout, addr, m.RoomURLs(addr))
		if !listenGiven {
			fmt.Fprintf(stdout, "ptyhost relay: listening on loopback only, where no ACME CA reaches it; a public relay gives --listen :443\n")
		}
	}
	stop = func() {}
	if a.httpAt != "" {
		var lc net.ListenConfig
		ln, err := lc.Listen(ctx, "tcp", a.httpAt)
		if err != nil {
			return nil, fmt.Errorf("relay: --acme-http: %w", err)
		}
		httpCtx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			if err := m.ServeHTTP(httpCtx, ln); err != nil {
				log.Error("relay: --acme-http stopped", "err", err)
			}
		}()
		fmt.Fprintf(stdout, "ptyhost relay: HTTP-01 challenges and redirects to https on %s\n", ln.Addr())
		stop = func() { cancel(); <-done }
	}
	return stop, nil
}

// writeACMEListening prints the startup line of a relay with ACME
// certificates: the address it listens on and the URLs its certificate is
// for.
func writeACMEListening(w io.Writer, addr net.Addr, urls []relay.DialURL) {
	list := make([]string, len(urls))
	for i, u := range urls {
		list[i] = u.URL
	}
	fmt.Fprintf(w, "ptyhost relay listening on %s as %s\n", addr, strings.Join(list, " "))
}
