package relay_test

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/ptyhost/ptyhost/relaytest"
)

// forge signs claims with any method and key, bypassing token.Mint, to
// present the relay with tokens the platform would never mint.
func forge(t *testing.T, m jwt.SigningMethod, key any, claims jwt.MapClaims) string {
	t.Helper()
	raw, err := jwt.NewWithClaims(m, claims).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func viewerClaims() jwt.MapClaims {
	now := time.Now().Unix()
	return jwt.MapClaims{"sessionId": room, "roomId": room, "userId": "ann", "role": "viewer", "orgId": relaytest.DefaultOrg,
		"iat": now, "exp": now + 60, "aud": "relay", "jti": "jti-forged"}
}

// Every token the relay must refuse gets 401 before the upgrade: other
// algorithms, another audience, and claim sets of the wrong shape for
// their role, even when correctly signed with the relay's own key.
func TestAdmissionJWTNegatives(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	with := func(k string, v any) jwt.MapClaims {
		c := viewerClaims()
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
		return c
	}
	host := with("role", "host")
	delete(host, "userId")
	host["epoch"] = 1
	hostWithUser := with("role", "host")
	hostWithUser["epoch"] = 1
	for _, tc := range []struct {
		name string
		tok  string
	}{
		{"alg none", forge(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, viewerClaims())},
		{"alg HS256 keyed with the public key", forge(t, jwt.SigningMethodHS256, []byte(s.Key.Public().(ed25519.PublicKey)), viewerClaims())},
		{"alg RS256", forge(t, jwt.SigningMethodRS256, rsaKey, viewerClaims())},
		{"alg ES256", forge(t, jwt.SigningMethodES256, ecKey, viewerClaims())},
		{"wrong aud", forge(t, jwt.SigningMethodEdDSA, s.Key, with("aud", "relay-sse-ticket"))},
		{"expired beyond leeway", forge(t, jwt.SigningMethodEdDSA, s.Key, with("exp", time.Now().Unix()-10))},
		{"no exp", forge(t, jwt.SigningMethodEdDSA, s.Key, with("exp", nil))},
		{"host token with userId", forge(t, jwt.SigningMethodEdDSA, s.Key, hostWithUser)},
		{"viewer token with epoch", forge(t, jwt.SigningMethodEdDSA, s.Key, with("epoch", 3))},
		{"viewer token without userId", forge(t, jwt.SigningMethodEdDSA, s.Key, with("userId", nil))},
		{"roomId differs from sessionId", forge(t, jwt.SigningMethodEdDSA, s.Key, with("roomId", "other"))},
		{"epoch as a string", forge(t, jwt.SigningMethodEdDSA, s.Key, func() jwt.MapClaims {
			h := jwt.MapClaims{}
			for k, v := range host {
				h[k] = v
			}
			h["epoch"] = "1"
			return h
		}())},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if resp := dialStatus(t, s.RoomURL(room), tc.tok, nil); resp.StatusCode != 401 {
				t.Fatalf("status %d, want 401", resp.StatusCode)
			}
		})
	}
	// The same claim set, correctly signed, is admitted: the refusals above
	// are the rules, not the forging.
	if resp := dialStatus(t, s.RoomURL(room), forge(t, jwt.SigningMethodEdDSA, s.Key, viewerClaims()), nil); resp.StatusCode != 101 {
		t.Fatalf("a well-formed forged-path token: %d", resp.StatusCode)
	}
}
