package token

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// MaxLeeway is the clock skew allowed on exp only.
const MaxLeeway = 5 * time.Second

// MaxTokenBytes bounds the compact form Verify accepts. An attach token is
// about 400 bytes; the cap stops a client from making the relay base64-
// and JSON-decode megabytes before the signature check fails.
const MaxTokenBytes = 8 << 10

// VerifierOptions configures a Verifier.
type VerifierOptions struct {
	// Leeway is the clock skew allowed past exp, and the most a token's
	// iat may lie in the future. Zero means MaxLeeway; values above
	// MaxLeeway are clamped to it; a negative value is an error.
	Leeway time.Duration
	// Now returns the current time. Zero means time.Now.
	Now func() time.Time
	// MaxLifetime refuses a token whose exp lies more than this after its
	// iat: the verifier's own bound on what an issuer may mint, so that a
	// leaked long-lived token is worth less. Zero: no bound; negative is
	// an error.
	MaxLifetime time.Duration
}

// Verifier checks attach tokens against a set of public keys. It is safe
// for concurrent use.
type Verifier struct {
	keys   jwt.VerificationKeySet
	parser *jwt.Parser
	// ticketParser is parser with the ticket's audience (VerifySSETicket).
	ticketParser *jwt.Parser
	leeway       time.Duration
	now          func() time.Time
	maxLifetime  time.Duration
}

// NewVerifier returns a Verifier accepting a token signed by any of keys,
// so that a key can be rotated by listing the old and the new one. It
// fails on no keys or a key of the wrong size. keys are copied.
func NewVerifier(keys []ed25519.PublicKey, opts VerifierOptions) (*Verifier, error) {
	if len(keys) == 0 {
		return nil, errors.New("token: new verifier: no public keys")
	}
	if opts.Leeway < 0 {
		return nil, fmt.Errorf("token: new verifier: negative leeway %v", opts.Leeway)
	}
	if opts.MaxLifetime < 0 {
		return nil, fmt.Errorf("token: new verifier: negative max lifetime %v", opts.MaxLifetime)
	}
	v := &Verifier{leeway: min(opts.Leeway, MaxLeeway), now: opts.Now, maxLifetime: opts.MaxLifetime}
	if v.leeway == 0 {
		v.leeway = MaxLeeway
	}
	if v.now == nil {
		v.now = time.Now
	}
	for i, k := range keys {
		if len(k) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("token: new verifier: key %d is %d bytes, want %d", i, len(k), ed25519.PublicKeySize)
		}
		v.keys.Keys = append(v.keys.Keys, slices.Clone(k))
	}
	parser := func(aud string) *jwt.Parser {
		return jwt.NewParser(
			jwt.WithValidMethods([]string{jwt.SigningMethodEdDSA.Alg()}),
			jwt.WithAudience(aud),
			jwt.WithExpirationRequired(),
			jwt.WithLeeway(v.leeway),
			jwt.WithTimeFunc(v.now),
			jwt.WithStrictDecoding(),
		)
	}
	v.parser, v.ticketParser = parser(Audience), parser(TicketAudience)
	return v, nil
}

// Verify checks raw and returns its claims. It accepts only: a compact JWS
// of at most MaxTokenBytes whose header alg is exactly "EdDSA" (none, HS*,
// RS*, PS*, ES* and every other value are refused before any key is
// tried) and has no crit member, with a valid Ed25519 signature by one of
// the Verifier's keys, a claim set holding exactly the §15 members with
// numeric claims as JSON integers and no nbf, aud exactly Audience (a
// string, not an array), exp not passed by more than the leeway, iat not
// more than the leeway in the future, exp - iat within MaxLifetime when
// one is set, and the shape Claims.Validate
// checks. Every refusal is a *VerifyError wrapping ErrInvalid; an expired
// token also wraps ErrExpired.
func (v *Verifier) Verify(raw string) (Claims, error) {
	if len(raw) > MaxTokenBytes {
		return Claims{}, invalid("longer than 8 KiB")
	}
	if !compactAlphabet(raw) {
		return Claims{}, invalid("byte outside base64url and '.'")
	}
	var w wireClaims
	tok, err := v.parser.ParseWithClaims(raw, &w, v.keyFor)
	if err != nil {
		return Claims{}, refusal(tok, &w, err)
	}
	if _, ok := tok.Header["crit"]; ok {
		// RFC 7515 §4.1.11: extensions we do not implement must not be
		// ignored, and we implement none.
		return Claims{}, invalid("header has crit")
	}
	c := Claims(w)
	if err := c.Validate(); err != nil {
		var ce *claimsError
		errors.As(err, &ce)
		return Claims{}, &VerifyError{Reason: "claims: " + ce.reason, cause: err}
	}
	if time.Unix(c.IssuedAt, 0).After(v.now().Add(v.leeway)) {
		return Claims{}, invalid("iat in the future")
	}
	if v.maxLifetime > 0 && time.Duration(c.ExpiresAt-c.IssuedAt)*time.Second > v.maxLifetime {
		return Claims{}, invalid(fmt.Sprintf("lifetime %v is longer than the %v this verifier accepts",
			time.Duration(c.ExpiresAt-c.IssuedAt)*time.Second, v.maxLifetime))
	}
	return c, nil
}

// compactAlphabet reports whether raw holds only base64url characters and
// dots. Go's base64 decoders skip \r and \n even in strict mode, so without
// this a newline inside the signature segment would still verify: one
// token, many spellings.
func compactAlphabet(raw string) bool {
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-', c == '_', c == '.':
		default:
			return false
		}
	}
	return true
}

// keyFor hands the parser the key set, refusing again any method but
// EdDSA so that a key is never offered to another algorithm.
func (v *Verifier) keyFor(t *jwt.Token) (any, error) {
	if t.Method != jwt.SigningMethodEdDSA {
		return nil, errors.New("token: alg is not EdDSA")
	}
	return v.keys, nil
}

// refusal turns a jwt library error into a *VerifyError whose reason is
// fixed text: the library's messages are dropped, since some quote the
// token's bytes.
func refusal(tok *jwt.Token, w *wireClaims, err error) error {
	var de *decodeError
	switch {
	case tok != nil && tok.Method != nil && tok.Method != jwt.SigningMethodEdDSA:
		return invalid("alg is not EdDSA")
	case errors.As(err, &de):
		return invalid("claims: " + de.reason)
	case errors.Is(err, jwt.ErrTokenMalformed):
		return invalid("malformed")
	case errors.Is(err, jwt.ErrTokenUnverifiable):
		return invalid("alg missing or unsupported")
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return invalid("signature does not verify")
	case errors.Is(err, jwt.ErrTokenExpired):
		return &VerifyError{Reason: "expired", expired: true}
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		return invalid(`aud is not "relay"`)
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing) && w.ExpiresAt == 0:
		return invalid("exp missing")
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		// The library reports an empty aud as missing.
		return invalid(`aud is not "relay"`)
	default:
		return invalid("rejected")
	}
}
