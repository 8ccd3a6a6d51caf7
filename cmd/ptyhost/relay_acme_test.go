package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/token"
)

func TestRelayCommandACMEUsage(t *testing.T) {
	pub, _, err := token.WriteKeyFiles(filepath.Join(t.TempDir(), "k"))
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	for _, tc := range []struct {
		args []string
		say  string
	}{
		{[]string{"--acme-domain", "localhost"}, "single label"},
		{[]string{"--acme-domain", "relay.example.com,"}, "empty domain name"},
		{[]string{"--acme-domain", "*.example.com"}, "wildcards"},
		{[]string{"--acme-domain", "relay.example.com", "--tls-cert", "c.pem", "--tls-key", "k.pem"}, "not both"},
		{[]string{"--acme-cache", cache}, "need --acme-domain"},
		{[]string{"--acme-http", ":80"}, "need --acme-domain"},
		{[]string{"--acme-email", "ops@example.com"}, "need --acme-domain"},
		{[]string{"--acme-domain", "relay.example.com", "--acme-cache", cache, "--acme-directory", "http://ca.example.com/dir"}, "no https URL"},
	} {
		args := append([]string{"--listen", "127.0.0.1:0", "--public-key", pub}, tc.args...)
		err := relayCmd(context.Background(), args, nil, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.say) {
			t.Errorf("%q: %v, want an error saying %q", tc.args, err, tc.say)
		}
	}
}

// With --acme-domain the startup line names the URL the certificate is
// for, and --acme-http says where it answers; no request reaches a CA
// before a handshake asks for the name.
func TestRelayCommandACMEStartupLine(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	httpAt := testkit.FreeAddr(t)
	r := launchRelayCmd(t, ctx, "--acme-domain", "relay.example.com", "--acme-cache", t.TempDir(), "--acme-http", httpAt)
	testkit.Eventually(t, "the startup line", func() bool {
		return strings.Contains(r.out.String(), "as wss://relay.example.com:")
	})
	out := r.out.String()
	if !strings.Contains(out, "HTTP-01 challenges and redirects to https on "+httpAt) {
		t.Errorf("no --acme-http line in %q", out)
	}
	if strings.Contains(out, "loopback only") {
		t.Errorf("a typed --listen got the loopback note: %q", out)
	}
	cancel()
	r.awaitStop(t, 20*time.Second)
}

// A relay with --acme-domain but no --listen stays on loopback (secure by
// default) and says that no CA reaches it there.
func TestRelayCommandACMELoopbackNote(t *testing.T) {
	for _, listenGiven := range []bool{false, true} {
		a := acmeFlags{domains: stringsFlag{"relay.example.com"}, cache: t.TempDir()}
		var opts relay.ServeOptions
		var out bytes.Buffer
		stop, err := a.setup(context.Background(), &opts, slog.New(slog.NewTextHandler(io.Discard, nil)), &out, listenGiven)
		if err != nil {
			t.Fatal(err)
		}
		stop()
		if opts.TLSConfig == nil || opts.TLSConfig.GetCertificate == nil {
			t.Fatal("no TLS configuration from the ACME manager")
		}
		opts.Ready(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8722}, true)
		if !strings.Contains(out.String(), "ptyhost relay listening on 127.0.0.1:8722 as wss://relay.example.com:8722/v1/rooms/\n") {
			t.Errorf("startup line: %q", out.String())
		}
		if note := strings.Contains(out.String(), "a public relay gives --listen :443"); note == listenGiven {
			t.Errorf("--listen typed %v: note %v in %q", listenGiven, note, out.String())
		}
	}
}

// TestPebbleNotLinked: the ACME test CA and its DNS library are the tests'
// alone; the binary links autocert and nothing of Pebble.
func TestPebbleNotLinked(t *testing.T) {
	gotool := requireTool(t, "go")
	deps := listDeps(t, gotool, "", "github.com/ptyhost/ptyhost/cmd/ptyhost")
	autocert := false
	for _, p := range deps {
		if strings.HasPrefix(p, "github.com/letsencrypt/") || strings.HasPrefix(p, "github.com/miekg/dns") || strings.Contains(p, "/pebbletest") {
			t.Errorf("the CLI links %s", p)
		}
		autocert = autocert || p == "golang.org/x/crypto/acme/autocert"
	}
	if !autocert {
		t.Errorf("the CLI does not link autocert: %d packages", len(deps))
	}
}
