package share

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/token"
)

// Probe tells a relay that admits the key from one that refuses it, a
// port where nothing listens and a server that is no relay.
func TestProbe(t *testing.T) {
	srv := relaytest.NewServer(t, relay.Config{})
	_, other, err := token.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	notRelay := httptest.NewServer(http.NotFoundHandler())
	defer notRelay.Close()
	for _, tc := range []struct {
		name string
		cfg  Config
		want error
	}{
		{"admitted", Config{RelayURL: srv.URL, Key: srv.Key}, nil},
		{"another key", Config{RelayURL: srv.URL, Key: other}, ErrRefused},
		{"nothing listens", Config{RelayURL: "ws://" + testkit.FreeAddr(t), Key: srv.Key}, ErrUnreachable},
		{"not a relay", Config{RelayURL: notRelay.URL, Key: srv.Key}, ErrUnreachable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Start(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if err := s.Probe(context.Background()); !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("Probe = %v, want %v", err, tc.want)
			}
		})
	}
	// The embedded relay is not probed.
	s, err := Start(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Probe(context.Background()); err != nil {
		t.Fatalf("Probe of the embedded relay = %v", err)
	}
}
