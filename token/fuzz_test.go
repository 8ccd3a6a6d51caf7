package token

import (
	"crypto/ed25519"
	"testing"
)

// fuzzKey is fixed so that the committed seeds signed with it stay valid:
// Ed25519 signatures are deterministic.
var fuzzKey = ed25519.NewKeyFromSeed([]byte("ptyhost token fuzz key, 32 bytes"))

// FuzzVerify feeds arbitrary strings to Verify: it must never panic, and
// whatever it accepts must be a claim set Mint would write and that the
// clock allows.
func FuzzVerify(f *testing.F) {
	f.Add(mint(f, fuzzKey, hostClaims()))
	v := newVerifier(f, fuzzKey.Public().(ed25519.PublicKey))
	f.Fuzz(func(t *testing.T, raw string) {
		c, err := v.Verify(raw)
		if err != nil {
			if c != (Claims{}) {
				t.Fatalf("claims %+v returned with error %v", c, err)
			}
			assertNoTokenText(t, err.Error(), raw)
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("accepted claims fail Validate: %v", err)
		}
		if c.ExpiresAt+int64(MaxLeeway.Seconds()) <= testNow.Unix() || c.IssuedAt > testNow.Add(MaxLeeway).Unix() {
			t.Fatalf("accepted claims outside the clock: %+v", c)
		}
		again, err := v.Verify(mint(t, fuzzKey, c))
		if err != nil || again.JTI != c.JTI || again.Role != c.Role {
			t.Fatalf("re-minted claims: %+v, %v", again, err)
		}
	})
}

// FuzzVerifyClaims reaches the claim-set decoder and the shape checks,
// which FuzzVerify's mutations rarely get past the signature to: it signs
// whatever header and payload it is given with the verifier's own key.
func FuzzVerifyClaims(f *testing.F) {
	good := mint(f, fuzzKey, hostClaims())
	f.Add(`{"alg":"EdDSA","typ":"JWT"}`, payloadOf(f, good))
	f.Add(`{"alg":"EdDSA"}`, payloadOf(f, mint(f, fuzzKey, viewerClaims("viewer"))))
	f.Add(`{"alg":"EdDSA"}`, `{"sessionId":"s","roomId":"s","role":"host","epoch":"7","orgId":"o","iat":1800000000,"exp":1800000300,"aud":"relay","jti":"j"}`)
	f.Add(`{"alg":"EdDSA"}`, `{"sessionId":"s","roomId":"s","role":"host","epoch":1e3,"orgId":"o","iat":1800000000,"exp":1800000300,"aud":["relay"],"jti":"j","nbf":0}`)
	f.Add(`{"alg":"none"}`, `{}`)
	v := newVerifier(f, fuzzKey.Public().(ed25519.PublicKey))
	f.Fuzz(func(t *testing.T, header, payload string) {
		raw := resign(t, fuzzKey, header, payload)
		c, err := v.Verify(raw)
		if err != nil {
			assertNoTokenText(t, err.Error(), raw)
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("accepted claims fail Validate: %v", err)
		}
	})
}
