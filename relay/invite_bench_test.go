package relay_test

import (
	"context"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/relaytest"
)

// BenchmarkIssuerRedeem measures one redemption of a watch link over
// loopback HTTP (keep-alive): the request, the constant-time search of
// the room's invites, and minting the guest's token.
func BenchmarkIssuerRedeem(b *testing.B) {
	cfg := issuerConfig(b, quiet())
	cfg.Issuer.RedeemsPerMinute = 1e9
	s := relaytest.NewServer(b, cfg)
	alice := loggedIn(b, s, "alice")
	room, err := alice.CreateRoom(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	for range 9 { // a room with ten links: the search reads them all
		invite(b, alice, room, attachwire.RoleDriver, 3600, 0)
	}
	inv := invite(b, alice, room, attachwire.RoleViewer, 3600, 0)
	c := issuerClient(b, s)
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.Redeem(context.Background(), room, inv.Secret, "bench"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIssuerLogin measures a whole login with an ed25519 key: the
// challenge, the signature, its check and the session's minting.
func BenchmarkIssuerLogin(b *testing.B) {
	cfg := issuerConfig(b, quiet())
	cfg.Issuer.LoginsPerMinute = 1e9
	s := relaytest.NewServer(b, cfg)
	c := issuerClient(b, s)
	signer := sshKeys()["alice"]
	for b.Loop() {
		if _, err := c.Login(context.Background(), signer); err != nil {
			b.Fatal(err)
		}
	}
}
