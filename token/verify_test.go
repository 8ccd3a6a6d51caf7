package token

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/ptyhost/ptyhost/attachwire"
)

func TestMintVerifyRoundTrip(t *testing.T) {
	pub, priv := newKey(t)
	v := newVerifier(t, pub)
	for _, c := range []Claims{hostClaims(), viewerClaims(attachwire.RoleDriver), viewerClaims(attachwire.RoleViewer)} {
		t.Run(string(c.Role), func(t *testing.T) {
			got, err := v.Verify(mint(t, priv, c))
			if err != nil {
				t.Fatal(err)
			}
			if got.Role != c.Role || got.SessionID != c.SessionID || got.UserID != c.UserID ||
				got.OrgID != c.OrgID || got.JTI != c.JTI || got.IssuedAt != c.IssuedAt ||
				got.ExpiresAt != c.ExpiresAt || got.Audience != c.Audience ||
				(got.Epoch == nil) != (c.Epoch == nil) || (c.Epoch != nil && *got.Epoch != *c.Epoch) {
				t.Errorf("Verify = %+v, want %+v", got, c)
			}
		})
	}
}

func TestMintWritesNumericClaimsAsJSONNumbers(t *testing.T) {
	_, priv := newKey(t)
	raw := mint(t, priv, hostClaims())
	payload, err := base64.RawURLEncoding.DecodeString(strings.Split(raw, ".")[1])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"epoch":7`, `"iat":1800000000`, `"exp":1800000300`, `"aud":"relay"`} {
		if !strings.Contains(string(payload), want) {
			t.Errorf("payload %s lacks %s", payload, want)
		}
	}
	if strings.Contains(string(payload), "userId") {
		t.Errorf("host payload %s carries userId", payload)
	}
}

func TestVerifyRejectsAlgNone(t *testing.T) {
	pub, _ := newKey(t)
	raw := signRaw(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, claimMap(hostClaims()))
	refused(t, newVerifier(t, pub), raw, "alg is not EdDSA")
}

func TestVerifyRejectsHS256(t *testing.T) {
	pub, _ := newKey(t)
	v := newVerifier(t, pub)
	refused(t, v, signRaw(t, jwt.SigningMethodHS256, []byte("a shared secret"), claimMap(hostClaims())), "alg is not EdDSA")
}

// The classic key confusion: an attacker who knows the relay's public key
// uses its bytes (raw, DER, or the PEM file) as an HMAC secret.
func TestVerifyRejectsHS256KeyConfusion(t *testing.T) {
	pub, _ := newKey(t)
	v := newVerifier(t, pub)
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	pemBytes, err := MarshalPublicKeyPEM(pub)
	if err != nil {
		t.Fatal(err)
	}
	for name, secret := range map[string][]byte{"raw": pub, "der": der, "pem": pemBytes} {
		for _, m := range []jwt.SigningMethod{jwt.SigningMethodHS256, jwt.SigningMethodHS384, jwt.SigningMethodHS512} {
			t.Run(name+"/"+m.Alg(), func(t *testing.T) {
				refused(t, v, signRaw(t, m, secret, claimMap(hostClaims())), "alg is not EdDSA")
			})
		}
	}
}

func TestVerifyRejectsRS256(t *testing.T) {
	pub, _ := newKey(t)
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	v := newVerifier(t, pub)
	refused(t, v, signRaw(t, jwt.SigningMethodRS256, rk, claimMap(hostClaims())), "alg is not EdDSA")
	refused(t, v, signRaw(t, jwt.SigningMethodPS256, rk, claimMap(hostClaims())), "alg is not EdDSA")
}

func TestVerifyRejectsES256(t *testing.T) {
	pub, _ := newKey(t)
	ek, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	refused(t, newVerifier(t, pub), signRaw(t, jwt.SigningMethodES256, ek, claimMap(hostClaims())), "alg is not EdDSA")
}

// An EdDSA signature under a header naming an alg the library does not
// know, or naming none at all, is refused too.
func TestVerifyRejectsUnknownAlg(t *testing.T) {
	pub, priv := newKey(t)
	v := newVerifier(t, pub)
	for _, hdr := range []string{`{"alg":"Ed25519"}`, `{"alg":"eddsa"}`, `{"typ":"JWT"}`, `{"alg":null}`} {
		refused(t, v, resign(t, priv, hdr, payloadOf(t, mint(t, priv, hostClaims()))), "alg")
	}
}

func TestVerifyRejectsWrongAudience(t *testing.T) {
	pub, priv := newKey(t)
	v := newVerifier(t, pub)
	for _, tc := range []struct {
		name string
		aud  any
		want string
	}{
		{"other", "relay-sse-ticket", `aud is not "relay"`},
		{"empty", "", `aud is not "relay"`},
		{"case", "Relay", `aud is not "relay"`},
		{"array", []string{"relay"}, "aud is not a string"},
		{"array-other", []string{"relay", "other"}, "aud is not a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := claimMap(hostClaims())
			m["aud"] = tc.aud
			refused(t, v, signRaw(t, jwt.SigningMethodEdDSA, priv, m), tc.want)
		})
	}
	m := claimMap(hostClaims())
	delete(m, "aud")
	refused(t, v, signRaw(t, jwt.SigningMethodEdDSA, priv, m), `aud is not "relay"`)
}

func TestVerifyRejectsExpiredBeyondLeeway(t *testing.T) {
	pub, priv := newKey(t)
	v := newVerifier(t, pub)
	for _, past := range []time.Duration{MaxLeeway, MaxLeeway + time.Second, time.Hour} {
		c := hostClaims()
		c.IssuedAt = testNow.Add(-past - time.Minute).Unix()
		c.ExpiresAt = testNow.Add(-past).Unix()
		ve := refused(t, v, mint(t, priv, c), "expired")
		if !errors.Is(ve, ErrExpired) {
			t.Errorf("exp %v ago: %v does not wrap ErrExpired", past, ve)
		}
	}
}

func TestVerifyAcceptsExpiredWithinLeeway(t *testing.T) {
	pub, priv := newKey(t)
	v := newVerifier(t, pub)
	for _, past := range []time.Duration{0, time.Second, MaxLeeway - time.Second} {
		c := hostClaims()
		c.IssuedAt = testNow.Add(-time.Minute).Unix()
		c.ExpiresAt = testNow.Add(-past).Unix()
		if _, err := v.Verify(mint(t, priv, c)); err != nil {
			t.Errorf("exp %v ago: %v", past, err)
		}
	}
}

func TestVerifierLeewayOption(t *testing.T) {
	pub, priv := newKey(t)
	c := hostClaims()
	c.IssuedAt = testNow.Add(-time.Minute).Unix()
	c.ExpiresAt = testNow.Add(-3 * time.Second).Unix()
	raw := mint(t, priv, c)
	for _, tc := range []struct {
		leeway time.Duration
		ok     bool
	}{
		{0, true},                // MaxLeeway
		{time.Second, false},     // tighter than the default
		{10 * time.Minute, true}, // clamped to MaxLeeway, so 3 s passes...
	} {
		v, err := NewVerifier([]ed25519PublicKey{pub}, VerifierOptions{Leeway: tc.leeway, Now: fixedNow})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := v.Verify(raw); (err == nil) != tc.ok {
			t.Errorf("leeway %v: Verify = %v, want ok %v", tc.leeway, err, tc.ok)
		}
	}
	// ...and 6 s does not.
	c.ExpiresAt = testNow.Add(-6 * time.Second).Unix()
	v, _ := NewVerifier([]ed25519PublicKey{pub}, VerifierOptions{Leeway: 10 * time.Minute, Now: fixedNow})
	refused(t, v, mint(t, priv, c), "expired")
}

func TestVerifyRejectsFutureIatBeyondLeeway(t *testing.T) {
	pub, priv := newKey(t)
	v := newVerifier(t, pub)
	c := hostClaims()
	c.IssuedAt = testNow.Add(MaxLeeway).Unix()
	c.ExpiresAt = testNow.Add(5 * time.Minute).Unix()
	if _, err := v.Verify(mint(t, priv, c)); err != nil {
		t.Errorf("iat at the leeway's edge: %v", err)
	}
	c.IssuedAt = testNow.Add(MaxLeeway + time.Second).Unix()
	refused(t, v, mint(t, priv, c), "iat in the future")
}

func TestVerifyRejectsNbf(t *testing.T) {
	pub, priv := newKey(t)
	m := claimMap(hostClaims())
	m["nbf"] = testNow.Add(-time.Minute).Unix()
	refused(t, newVerifier(t, pub), signRaw(t, jwt.SigningMethodEdDSA, priv, m), "nbf present")
}

func TestVerifyRejectsUnknownMember(t *testing.T) {
	pub, priv := newKey(t)
	v := newVerifier(t, pub)
	for _, name := range []string{"tid", "iss", "sub", "sessionid"} {
		m := claimMap(hostClaims())
		m[name] = "x"
		refused(t, v, signRaw(t, jwt.SigningMethodEdDSA, priv, m), "unknown member")
	}
}

func TestVerifyRejectsHostTokenWithUserID(t *testing.T) {
	pub, priv := newKey(t)
	m := claimMap(hostClaims())
	m["userId"] = "mallory"
	refused(t, newVerifier(t, pub), signRaw(t, jwt.SigningMethodEdDSA, priv, m), "host token with userId")
}

func TestVerifyRejectsViewerTokenWithEpoch(t *testing.T) {
	pub, priv := newKey(t)
	v := newVerifier(t, pub)
	for _, role := range []attachwire.Role{attachwire.RoleViewer, attachwire.RoleDriver} {
		m := claimMap(viewerClaims(role))
		m["epoch"] = 9
		refused(t, v, signRaw(t, jwt.SigningMethodEdDSA, priv, m), string(role)+" token with epoch")
	}
}

func TestVerifyRejectsViewerTokenWithoutUserID(t *testing.T) {
	pub, priv := newKey(t)
	m := claimMap(viewerClaims(attachwire.RoleViewer))
	delete(m, "userId")
	refused(t, newVerifier(t, pub), signRaw(t, jwt.SigningMethodEdDSA, priv, m), "userId missing")
}

func TestVerifyRejectsHostWithoutEpoch(t *testing.T) {
	pub, priv := newKey(t)
	m := claimMap(hostClaims())
	delete(m, "epoch")
	refused(t, newVerifier(t, pub), signRaw(t, jwt.SigningMethodEdDSA, priv, m), "host token without epoch")
}

// §15's example quotes epoch, iat and exp; attachclient and this package
// want JSON numbers, and whole ones.
func TestVerifyRejectsQuotedEpoch(t *testing.T) {
	pub, priv := newKey(t)
	v := newVerifier(t, pub)
	for _, tc := range []struct {
		name string
		val  any
	}{
		{"epoch", "7"}, {"iat", "1800000000"}, {"exp", "1800000300"},
		{"epoch", 7.5}, {"exp", json.Number("1.8000003e9")}, {"exp", json.Number("1800000300.0")},
		{"epoch", true}, {"epoch", nil}, {"epoch", []int{7}},
	} {
		m := claimMap(hostClaims())
		m[tc.name] = tc.val
		refused(t, v, signRaw(t, jwt.SigningMethodEdDSA, priv, m), tc.name)
	}
	m := claimMap(hostClaims())
	m["epoch"] = -1
	refused(t, v, signRaw(t, jwt.SigningMethodEdDSA, priv, m), "out of range")
}

func TestVerifyRejectsStringClaimOfWrongType(t *testing.T) {
	pub, priv := newKey(t)
	v := newVerifier(t, pub)
	for _, name := range []string{"sessionId", "roomId", "role", "orgId", "jti", "userId"} {
		m := claimMap(viewerClaims(attachwire.RoleDriver))
		m[name] = 12
		refused(t, v, signRaw(t, jwt.SigningMethodEdDSA, priv, m), name+" is not a string")
	}
}

func TestVerifyRejectsRoomIDNotSessionID(t *testing.T) {
	pub, priv := newKey(t)
	c := hostClaims()
	c.RoomID = "another-room"
	m := claimMap(c)
	refused(t, newVerifier(t, pub), signRaw(t, jwt.SigningMethodEdDSA, priv, m), "roomId differs from sessionId")
}

func TestVerifyRejectsUnknownRole(t *testing.T) {
	pub, priv := newKey(t)
	v := newVerifier(t, pub)
	for _, role := range []string{"admin", "Host", "", "owner"} {
		m := claimMap(viewerClaims(attachwire.RoleViewer))
		m["role"] = role
		refused(t, v, signRaw(t, jwt.SigningMethodEdDSA, priv, m), "unknown role")
	}
}

func TestVerifyRejectsMissingJTI(t *testing.T) {
	pub, priv := newKey(t)
	v := newVerifier(t, pub)
	m := claimMap(hostClaims())
	delete(m, "jti")
	refused(t, v, signRaw(t, jwt.SigningMethodEdDSA, priv, m), "jti missing")
	m["jti"] = ""
	refused(t, v, signRaw(t, jwt.SigningMethodEdDSA, priv, m), "jti missing")
}

func TestVerifyRejectsMissingOrgID(t *testing.T) {
	pub, priv := newKey(t)
	m := claimMap(hostClaims())
	delete(m, "orgId")
	refused(t, newVerifier(t, pub), signRaw(t, jwt.SigningMethodEdDSA, priv, m), "orgId missing")
}

func TestVerifyRejectsMissingExp(t *testing.T) {
	pub, priv := newKey(t)
	m := claimMap(hostClaims())
	delete(m, "exp")
	refused(t, newVerifier(t, pub), signRaw(t, jwt.SigningMethodEdDSA, priv, m), "exp missing")
}

func TestVerifyRejectsControlCharacterInID(t *testing.T) {
	pub, priv := newKey(t)
	m := claimMap(viewerClaims(attachwire.RoleViewer))
	m["userId"] = "alice\x1b]0;owned\a"
	refused(t, newVerifier(t, pub), signRaw(t, jwt.SigningMethodEdDSA, priv, m), "userId holds a control character")
}

func TestVerifyKeyRotation(t *testing.T) {
	oldPub, oldPriv := newKey(t)
	newPub, newPriv := newKey(t)
	v := newVerifier(t, oldPub, newPub)
	for name, priv := range map[string]ed25519PrivateKey{"first key": oldPriv, "second key": newPriv} {
		if _, err := v.Verify(mint(t, priv, hostClaims())); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestVerifyRejectsWrongKey(t *testing.T) {
	pub, _ := newKey(t)
	_, other := newKey(t)
	refused(t, newVerifier(t, pub), mint(t, other, hostClaims()), "signature does not verify")
}

func TestVerifyRejectsTamperedPayload(t *testing.T) {
	pub, priv := newKey(t)
	v := newVerifier(t, pub)
	raw := mint(t, priv, viewerClaims(attachwire.RoleViewer))
	parts := strings.Split(raw, ".")
	payload := payloadOf(t, raw)
	forged := strings.Replace(payload, `"role":"viewer"`, `"role":"driver"`, 1)
	if forged == payload {
		t.Fatalf("payload %s has no viewer role to forge", payload)
	}
	parts[1] = base64.RawURLEncoding.EncodeToString([]byte(forged))
	refused(t, v, strings.Join(parts, "."), "signature does not verify")

	sig := []byte(parts[2])
	parts = strings.Split(raw, ".")
	sig[3] ^= 1
	refused(t, v, parts[0]+"."+parts[1]+"."+string(sig), "")
	refused(t, v, parts[0]+"."+parts[1]+".", "")
}

func TestVerifyRejectsCritHeader(t *testing.T) {
	pub, priv := newKey(t)
	raw := resign(t, priv, `{"alg":"EdDSA","crit":["exp"],"exp":1}`, payloadOf(t, mint(t, priv, hostClaims())))
	refused(t, newVerifier(t, pub), raw, "header has crit")
}

func TestVerifyRejectsMalformed(t *testing.T) {
	pub, priv := newKey(t)
	v := newVerifier(t, pub)
	good := mint(t, priv, hostClaims())
	parts := strings.Split(good, ".")
	for name, raw := range map[string]string{
		"empty":          "",
		"two segments":   parts[0] + "." + parts[1],
		"four segments":  good + ".e30",
		"padded":         parts[0] + "=." + parts[1] + "." + parts[2],
		"not base64":     "!!!." + parts[1] + "." + parts[2],
		"payload array":  resign(t, priv, `{"alg":"EdDSA"}`, `[1,2]`),
		"payload string": resign(t, priv, `{"alg":"EdDSA"}`, `"relay"`),
		"trailing bytes": resign(t, priv, `{"alg":"EdDSA"}`, payloadOf(t, good)+` {}`),
		"header array":   resign(t, priv, `["EdDSA"]`, payloadOf(t, good)),
	} {
		t.Run(name, func(t *testing.T) { refused(t, v, raw, "") })
	}
}

func TestVerifyRejectsOversizedToken(t *testing.T) {
	pub, priv := newKey(t)
	c := viewerClaims(attachwire.RoleViewer)
	m := claimMap(c)
	m["userId"] = strings.Repeat("u", MaxTokenBytes)
	refused(t, newVerifier(t, pub), signRaw(t, jwt.SigningMethodEdDSA, priv, m), "longer than 8 KiB")
}

// Every refusal above goes through refused, which checks the message holds
// no token segment; this one checks the claims' values stay out too.
func TestVerifyErrorsNeverHoldClaimValues(t *testing.T) {
	pub, priv := newKey(t)
	v := newVerifier(t, pub)
	m := claimMap(viewerClaims(attachwire.RoleViewer))
	m["role"] = "secret-role-value"
	m["epoch"] = 1
	_, err := v.Verify(signRaw(t, jwt.SigningMethodEdDSA, priv, m))
	if err == nil || strings.Contains(err.Error(), "secret-role-value") || strings.Contains(err.Error(), "alice") {
		t.Errorf("error %v", err)
	}
}

func TestNewVerifierRejectsBadKeys(t *testing.T) {
	pub, _ := newKey(t)
	for name, keys := range map[string][]ed25519PublicKey{
		"none":  nil,
		"short": {pub[:31]},
		"mixed": {pub, nil},
	} {
		if _, err := NewVerifier(keys, VerifierOptions{}); err == nil {
			t.Errorf("%s: NewVerifier accepted the keys", name)
		}
	}
	if _, err := NewVerifier([]ed25519PublicKey{pub}, VerifierOptions{Leeway: -time.Second}); err == nil {
		t.Error("NewVerifier accepted a negative leeway")
	}
}

// The verifier copies its keys: a caller reusing its slice cannot swap
// the trusted key afterwards.
func TestNewVerifierCopiesKeys(t *testing.T) {
	pub, priv := newKey(t)
	keys := []ed25519PublicKey{append(ed25519PublicKey(nil), pub...)}
	v := newVerifier(t, keys...)
	clear(keys[0])
	if _, err := v.Verify(mint(t, priv, hostClaims())); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyConcurrent(t *testing.T) {
	pub, priv := newKey(t)
	v := newVerifier(t, pub)
	good, bad := mint(t, priv, hostClaims()), mint(t, priv, hostClaims())+"x"
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if _, err := v.Verify(good); err != nil {
					t.Error(err)
					return
				}
				if _, err := v.Verify(bad); err == nil {
					t.Error("tampered token accepted")
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestVerifyUsesTheClock(t *testing.T) {
	pub, priv := newKey(t)
	now := testNow
	v, err := NewVerifier([]ed25519PublicKey{pub}, VerifierOptions{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	raw := mint(t, priv, hostClaims())
	if _, err := v.Verify(raw); err != nil {
		t.Fatal(err)
	}
	now = testNow.Add(5*time.Minute + MaxLeeway)
	if _, err := v.Verify(raw); !errors.Is(err, ErrExpired) {
		t.Errorf("after exp+leeway: %v, want ErrExpired", err)
	}
}

// payloadOf returns the decoded claim JSON of a compact token.
func payloadOf(t testing.TB, raw string) string {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(strings.Split(raw, ".")[1])
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// resign builds a compact JWS from a literal header and payload, signed
// with priv: the way to test headers and payload bytes the library would
// never write.
func resign(t testing.TB, priv ed25519PrivateKey, header, payload string) string {
	t.Helper()
	enc := base64.RawURLEncoding
	signing := enc.EncodeToString([]byte(header)) + "." + enc.EncodeToString([]byte(payload))
	return signing + "." + enc.EncodeToString(ed25519Sign(priv, []byte(signing)))
}

// A base64 decoder skips newlines, so without an alphabet check "tok\n"
// or a line-wrapped signature would verify as the same token.
func TestVerifyRejectsBytesOutsideBase64URL(t *testing.T) {
	pub, priv := newKey(t)
	v := newVerifier(t, pub)
	good := mint(t, priv, hostClaims())
	n := len(good) - 10
	for name, raw := range map[string]string{
		"trailing newline": good + "\n",
		"CRLF in sig":      good[:n] + "\r\n" + good[n:],
		"space":            " " + good,
		"padding":          good + "==",
		"std alphabet":     strings.ReplaceAll(strings.ReplaceAll(good, "-", "+"), "_", "/") + "+/",
		"NUL":              good + "\x00",
	} {
		t.Run(name, func(t *testing.T) { refused(t, v, raw, "outside base64url") })
	}
}

// The library applies its leeway to exp, nbf and (with WithIssuedAt) iat;
// wireClaims reports only exp to it, so the leeway reaches exp alone.
func TestLibraryLeewayReachesExpOnly(t *testing.T) {
	w := wireClaims(hostClaims())
	w.IssuedAt = testNow.Add(time.Hour).Unix()
	if nbf, _ := w.GetNotBefore(); nbf != nil {
		t.Errorf("nbf %v reported to the library", nbf)
	}
	if iat, _ := w.GetIssuedAt(); iat != nil {
		t.Errorf("iat %v reported to the library", iat)
	}
	if exp, _ := w.GetExpirationTime(); exp == nil || exp.Unix() != w.ExpiresAt {
		t.Errorf("exp %v, want %d", exp, w.ExpiresAt)
	}
	// So even the library's iat check, were it switched on, passes: the
	// future iat is Verify's own rule (TestVerifyRejectsFutureIatBeyondLeeway).
	val := jwt.NewValidator(jwt.WithIssuedAt(), jwt.WithTimeFunc(fixedNow), jwt.WithAudience(Audience))
	if err := val.Validate(&w); err != nil {
		t.Errorf("library validator: %v", err)
	}
}

func BenchmarkVerify(b *testing.B) {
	pub, priv := newKey(b)
	v := newVerifier(b, pub)
	raw := mint(b, priv, viewerClaims(attachwire.RoleDriver))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.Verify(raw); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/verify")
}

func BenchmarkMint(b *testing.B) {
	_, priv := newKey(b)
	c := viewerClaims(attachwire.RoleDriver)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Mint(priv, c); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/mint")
}

func TestVerifierMaxLifetime(t *testing.T) {
	pub, priv := newKey(t)
	v, err := NewVerifier([]ed25519.PublicKey{pub}, VerifierOptions{Now: fixedNow, MaxLifetime: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		life time.Duration
		ok   bool
	}{{time.Minute, true}, {time.Hour, true}, {time.Hour + time.Second, false}, {30 * 24 * time.Hour, false}} {
		c := hostClaims()
		c.IssuedAt = testNow.Add(-time.Second).Unix()
		c.ExpiresAt = c.IssuedAt + int64(tc.life/time.Second)
		raw := mint(t, priv, c)
		if tc.ok {
			if _, err := v.Verify(raw); err != nil {
				t.Errorf("lifetime %v: %v", tc.life, err)
			}
			continue
		}
		refused(t, v, raw, "lifetime")
	}
	if _, err := NewVerifier([]ed25519.PublicKey{pub}, VerifierOptions{MaxLifetime: -time.Second}); err == nil {
		t.Error("NewVerifier took a negative max lifetime")
	}
}

func TestNameAndInviteClaimsRoundTrip(t *testing.T) {
	pub, priv := newKey(t)
	c := viewerClaims(attachwire.RoleViewer)
	c.Name, c.Invite = "Zoë the reviewer", "inv-7"
	got, err := newVerifier(t, pub).Verify(mint(t, priv, c))
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != c.Name || got.Invite != c.Invite {
		t.Fatalf("name %q inv %q, want %q %q", got.Name, got.Invite, c.Name, c.Invite)
	}
}

func TestVerifyRejectsBadNameOrInvite(t *testing.T) {
	pub, priv := newKey(t)
	v := newVerifier(t, pub)
	for _, tc := range []struct {
		member string
		value  any
		host   bool
		want   string
	}{
		{"name", strings.Repeat("é", 33), false, "name longer than 64 bytes"},
		{"name", "bell\a", false, "name holds a control character"},
		{"name", "", false, "name is empty"},
		{"name", 7, false, "name is not a string"},
		{"inv", strings.Repeat("i", 257), false, "inv longer than 256 bytes"},
		{"name", "host", true, "host token with name, inv or prop"},
		{"inv", "i1", true, "host token with name, inv or prop"},
		{"prop", true, true, "host token with name, inv or prop"},
		{"prop", false, false, "prop is not true"},
		{"prop", "yes", false, "prop is not true"},
	} {
		m := claimMap(viewerClaims(attachwire.RoleDriver))
		if tc.host {
			m = claimMap(hostClaims())
		}
		m[tc.member] = tc.value
		refused(t, v, signRaw(t, jwt.SigningMethodEdDSA, priv, m), tc.want)
	}
}

// prop marks a driver whose input needs approval; a viewer's is refused.
func TestProposeClaim(t *testing.T) {
	pub, priv := newKey(t)
	c := viewerClaims(attachwire.RoleDriver)
	c.Propose = true
	got, err := newVerifier(t, pub).Verify(mint(t, priv, c))
	if err != nil || !got.Propose {
		t.Fatalf("driver with prop: %+v %v", got, err)
	}
	c = viewerClaims(attachwire.RoleViewer)
	c.Propose = true
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "prop on a token that is not a driver's") {
		t.Fatalf("viewer with prop: %v", err)
	}
}

// A member given twice is refused, whichever value a reader would keep:
// a reader keeping the first and one keeping the last would read two
// different tokens.
func TestVerifyRejectsDuplicateMember(t *testing.T) {
	pub, priv := newKey(t)
	v := newVerifier(t, pub)
	body, err := json.Marshal(claimMap(viewerClaims(attachwire.RoleViewer)))
	if err != nil {
		t.Fatal(err)
	}
	dup := append(bytes.TrimSuffix(body, []byte("}")), []byte(`,"role":"driver"}`)...)
	enc := base64.RawURLEncoding
	input := enc.EncodeToString([]byte(`{"alg":"EdDSA","typ":"JWT"}`)) + "." + enc.EncodeToString(dup)
	raw := input + "." + enc.EncodeToString(ed25519.Sign(priv, []byte(input)))
	refused(t, v, raw, "role given twice")
	// The same bytes without the second role verify: the refusal is the
	// duplicate's.
	input = enc.EncodeToString([]byte(`{"alg":"EdDSA","typ":"JWT"}`)) + "." + enc.EncodeToString(body)
	if _, err := v.Verify(input + "." + enc.EncodeToString(ed25519.Sign(priv, []byte(input)))); err != nil {
		t.Fatalf("the token without the duplicate: %v", err)
	}
}
