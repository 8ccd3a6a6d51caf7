package token

import (
	"crypto/ed25519"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/ptyhost/ptyhost/attachwire"
)

// testNow is the fixed clock of every verifier in these tests.
var testNow = time.Unix(1_800_000_000, 0)

func fixedNow() time.Time { return testNow }

// newKey returns a fresh key pair.
func newKey(t testing.TB) (ed25519.PublicKey, ed25519.PrivateKey) {
	t.Helper()
	pub, priv, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return pub, priv
}

// newVerifier returns a verifier on the fixed clock with the default leeway.
func newVerifier(t testing.TB, keys ...ed25519.PublicKey) *Verifier {
	t.Helper()
	v, err := NewVerifier(keys, VerifierOptions{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func epoch(n uint64) *uint64 { return &n }

// hostClaims and viewerClaims are valid claim sets issued at testNow.
func hostClaims() Claims {
	return Claims{
		SessionID: "5f0c8a9e-2f43-4b7e-9d0e-7f1d4c2a9b10", RoomID: "5f0c8a9e-2f43-4b7e-9d0e-7f1d4c2a9b10",
		Role: attachwire.RoleHost, Epoch: epoch(7), OrgID: "acme",
		IssuedAt: testNow.Unix(), ExpiresAt: testNow.Add(5 * time.Minute).Unix(),
		Audience: Audience, JTI: "host-jti-1",
	}
}

func viewerClaims(role attachwire.Role) Claims {
	c := hostClaims()
	c.Role, c.Epoch, c.UserID, c.JTI = role, nil, "alice@example.com", "viewer-jti-1"
	return c
}

// mint signs c with priv, failing the test on error.
func mint(t testing.TB, priv ed25519.PrivateKey, c Claims) string {
	t.Helper()
	s, err := Mint(priv, c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// claimMap returns c as a generic claim map, for tests that bend a member
// Mint would refuse to write.
func claimMap(c Claims) jwt.MapClaims {
	m := jwt.MapClaims{
		"sessionId": c.SessionID, "roomId": c.RoomID, "role": string(c.Role), "orgId": c.OrgID,
		"iat": c.IssuedAt, "exp": c.ExpiresAt, "aud": c.Audience, "jti": c.JTI,
	}
	if c.UserID != "" {
		m["userId"] = c.UserID
	}
	if c.Epoch != nil {
		m["epoch"] = *c.Epoch
	}
	return m
}

// signRaw signs claims with any method and key, bypassing Mint's checks.
func signRaw(t testing.TB, method jwt.SigningMethod, key any, claims jwt.MapClaims) string {
	t.Helper()
	s, err := jwt.NewWithClaims(method, claims).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// refused asserts that v refuses raw with a *VerifyError wrapping
// ErrInvalid whose reason contains want, and whose message holds none of
// the token's segments.
func refused(t testing.TB, v *Verifier, raw, want string) *VerifyError {
	t.Helper()
	c, err := v.Verify(raw)
	if err == nil {
		t.Fatalf("Verify accepted the token: %+v", c)
	}
	if c != (Claims{}) {
		t.Errorf("Verify returned claims %+v with its error", c)
	}
	var ve *VerifyError
	if !errors.As(err, &ve) || !errors.Is(err, ErrInvalid) {
		t.Fatalf("error %v (%T) is not a *VerifyError wrapping ErrInvalid", err, err)
	}
	if !strings.Contains(ve.Reason, want) {
		t.Errorf("reason %q, want it to contain %q", ve.Reason, want)
	}
	assertNoTokenText(t, err.Error(), raw)
	return ve
}

// assertNoTokenText fails if msg holds any segment of raw longer than a
// dozen characters (no word of a fixed reason is that long).
func assertNoTokenText(t testing.TB, msg, raw string) {
	t.Helper()
	for seg := range strings.SplitSeq(raw, ".") {
		if len(seg) >= 12 && strings.Contains(msg, seg) {
			t.Errorf("error %q contains a token segment", msg)
		}
	}
}

type (
	ed25519PublicKey  = ed25519.PublicKey
	ed25519PrivateKey = ed25519.PrivateKey
)

var ed25519Sign = ed25519.Sign
