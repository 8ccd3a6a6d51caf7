package token

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"fmt"

	"github.com/golang-jwt/jwt/v5"
)

// GenerateKey returns a fresh Ed25519 key pair from crypto/rand.
func GenerateKey() (ed25519.PublicKey, ed25519.PrivateKey, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("token: generate key: %w", err)
	}
	return pub, priv, nil
}

// Mint signs c as an EdDSA compact JWS (header {"alg":"EdDSA","typ":"JWT"})
// after checking it with Claims.Validate. It does not fill in anything:
// iat, exp and jti are the caller's (see NewJTI).
func Mint(key ed25519.PrivateKey, c Claims) (string, error) {
	if len(key) != ed25519.PrivateKeySize {
		return "", fmt.Errorf("token: mint: private key is %d bytes, want %d", len(key), ed25519.PrivateKeySize)
	}
	if err := c.Validate(); err != nil {
		return "", fmt.Errorf("token: mint: %w", err)
	}
	w := wireClaims(c)
	s, err := jwt.NewWithClaims(jwt.SigningMethodEdDSA, &w).SignedString(key)
	if err != nil {
		return "", fmt.Errorf("token: mint: %w", err)
	}
	return s, nil
}

// jtiBytes is the entropy of a jti: 128 bits make a collision between two
// live tokens of one relay negligible.
const jtiBytes = 16

// NewJTI returns a fresh random jti: 16 bytes from crypto/rand, base64url
// without padding (22 characters).
func NewJTI() (string, error) {
	var b [jtiBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("token: new jti: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}
