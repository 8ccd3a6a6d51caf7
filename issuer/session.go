package issuer

import (
	"crypto/ed25519"
	"errors"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// SessionAudience is the aud of an issuer session: never "relay", so a
// session is no attach token and an attach token no session.
const SessionAudience = "ptyhost-issuer"

// SessionTTL is how long a login lasts.
const SessionTTL = 12 * time.Hour

// sessionClaims is a session JWT's claim set.
type sessionClaims struct {
	jwt.RegisteredClaims
	// Name is the user's name at login.
	Name string `json:"name"`
}

func mintSession(key ed25519.PrivateKey, fp, name string, now time.Time) (string, time.Time, error) {
	exp := now.Add(SessionTTL)
	c := sessionClaims{
		RegisteredClaims: jwt.RegisteredClaims{
			Subject:   fp,
			Audience:  jwt.ClaimStrings{SessionAudience},
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(exp),
		},
		Name: name,
	}
	s, err := jwt.NewWithClaims(jwt.SigningMethodEdDSA, c).SignedString(key)
	return s, exp, err
}

// verifySession checks a session JWT and returns its subject (the key's
// fingerprint).
func verifySession(pub ed25519.PublicKey, raw string, now func() time.Time) (string, error) {
	if len(raw) > 4096 {
		return "", errors.New("session longer than 4 KiB")
	}
	p := jwt.NewParser(jwt.WithValidMethods([]string{jwt.SigningMethodEdDSA.Alg()}), jwt.WithAudience(SessionAudience),
		jwt.WithExpirationRequired(), jwt.WithIssuedAt(), jwt.WithTimeFunc(now), jwt.WithLeeway(5*time.Second))
	var c sessionClaims
	if _, err := p.ParseWithClaims(raw, &c, func(*jwt.Token) (any, error) { return pub, nil }); err != nil {
		return "", err
	}
	if c.Subject == "" {
		return "", errors.New("session without subject")
	}
	return c.Subject, nil
}
