package token_test

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/token"
)

// The platform mints a short-lived viewer token; the relay, holding only
// the public key, verifies it.
func Example() {
	pub, priv, err := token.GenerateKey()
	if err != nil {
		panic(err)
	}
	jti, err := token.NewJTI()
	if err != nil {
		panic(err)
	}
	now := time.Now()
	raw, err := token.Mint(priv, token.Claims{
		SessionID: "5f0c8a9e-2f43-4b7e-9d0e-7f1d4c2a9b10",
		RoomID:    "5f0c8a9e-2f43-4b7e-9d0e-7f1d4c2a9b10",
		UserID:    "alice",
		Role:      attachwire.RoleViewer,
		OrgID:     "acme",
		IssuedAt:  now.Unix(),
		ExpiresAt: now.Add(5 * time.Minute).Unix(),
		Audience:  token.Audience,
		JTI:       jti,
	})
	if err != nil {
		panic(err)
	}

	v, err := token.NewVerifier([]ed25519.PublicKey{pub}, token.VerifierOptions{})
	if err != nil {
		panic(err)
	}
	c, err := v.Verify(raw)
	fmt.Println(c.Role, c.UserID, c.OrgID, err)

	// Ten minutes later the same token is refused as expired.
	later, _ := token.NewVerifier([]ed25519.PublicKey{pub}, token.VerifierOptions{
		Now: func() time.Time { return now.Add(10 * time.Minute) },
	})
	_, err = later.Verify(raw)
	fmt.Println(err, errors.Is(err, token.ErrExpired))
	// Output:
	// viewer alice acme <nil>
	// token: invalid: expired true
}
