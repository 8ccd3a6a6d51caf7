package token

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/golang-jwt/jwt/v5"
	"github.com/ptyhost/ptyhost/attachwire"
)

// Audience is the only accepted aud of an attach token.
const Audience = "relay"

// MaxNameBytes bounds the name claim: a display name, shown on status
// lines and in presence lists, not a paragraph.
const MaxNameBytes = 64

// MaxIDBytes bounds every string claim but name. A session id is a UUID and a user
// id an account name; the cap keeps a signed but careless token from
// pushing kilobytes of id into every presence list and Input stamp.
const MaxIDBytes = 256

// Claims is an attach token's claim set (attach-v1 §15), exactly these
// members: a token carrying any other member (nbf included) is refused.
// A Claims is a plain value.
type Claims struct {
	// SessionID names the session; the room is keyed by (OrgID, SessionID).
	SessionID string `json:"sessionId"`
	// RoomID must equal SessionID (and the room in the URL path).
	RoomID string `json:"roomId"`
	// UserID is the principal a driver or viewer leg acts as; the relay
	// stamps it on Input. Empty for a host token.
	UserID string `json:"userId,omitempty"`
	// Role is the ceiling of what the leg may do.
	Role attachwire.Role `json:"role"`
	// Epoch is the host stream's epoch: required for a host token, absent
	// otherwise. A pointer because 0 is a valid epoch.
	Epoch *uint64 `json:"epoch,omitempty"`
	// OrgID scopes the room: two orgs never share one.
	OrgID string `json:"orgId"`
	// IssuedAt is the minting time in unix seconds.
	IssuedAt int64 `json:"iat"`
	// ExpiresAt is the end of validity in unix seconds.
	ExpiresAt int64 `json:"exp"`
	// Audience must be the constant Audience.
	Audience string `json:"aud"`
	// JTI is the per-connection nonce (see NewJTI).
	JTI string `json:"jti"`
	// Name is the display name the holder gave when it redeemed an invite
	// (a guest's self-chosen name, not an authenticated identity): the
	// relay shows it in presence marked as a guest. Optional, driver and
	// viewer tokens only; at most MaxNameBytes of UTF-8 without control
	// characters.
	Name string `json:"name,omitempty"`
	// Invite is the id of the invite the token was redeemed from, so
	// that revoking the invite can close the legs it admitted. Optional,
	// driver and viewer tokens only.
	Invite string `json:"inv,omitempty"`
	// Propose marks a driver whose input needs approval: it never holds
	// the pen, and what it would type it proposes instead, for the pen
	// holder or the host to approve (docs/protocol.md §6, "Input
	// proposals"). Optional, driver tokens only.
	Propose bool `json:"prop,omitempty"`
}

// ErrClaims is wrapped by every error of Claims.Validate.
var ErrClaims = errors.New("token: bad claim set")

// claimsError is a Validate refusal: reason names the rule, not a value.
type claimsError struct{ reason string }

func (e *claimsError) Error() string        { return ErrClaims.Error() + ": " + e.reason }
func (e *claimsError) Is(target error) bool { return target == ErrClaims }

func claimsErr(reason string) error { return &claimsError{reason} }

// Validate checks the claim-set shape by role (host: epoch present, no
// userId; driver/viewer: userId present, no epoch), roomId == sessionId,
// aud == Audience, non-empty ids of at most MaxIDBytes without control
// characters, a known role, and iat and exp positive with exp after iat.
// It does not look at the clock: that is Verifier's job. Its messages
// name the rule, never a claim's value.
func (c Claims) Validate() error {
	for _, id := range []struct{ name, v string }{
		{"sessionId", c.SessionID}, {"roomId", c.RoomID}, {"orgId", c.OrgID}, {"jti", c.JTI},
	} {
		if err := checkID(id.name, id.v); err != nil {
			return err
		}
	}
	if c.RoomID != c.SessionID {
		return claimsErr("roomId differs from sessionId")
	}
	if c.Audience != Audience {
		return claimsErr(`aud is not "relay"`)
	}
	switch c.Role {
	case attachwire.RoleHost:
		if c.Epoch == nil {
			return claimsErr("host token without epoch")
		}
		if c.UserID != "" {
			return claimsErr("host token with userId")
		}
		if c.Name != "" || c.Invite != "" || c.Propose {
			return claimsErr("host token with name, inv or prop")
		}
	case attachwire.RoleDriver, attachwire.RoleViewer:
		if c.Epoch != nil {
			return claimsErr(string(c.Role) + " token with epoch")
		}
		if err := checkID("userId", c.UserID); err != nil {
			return err
		}
		if err := checkOptional(c); err != nil {
			return err
		}
	default:
		return claimsErr("unknown role")
	}
	switch {
	case c.IssuedAt <= 0:
		return claimsErr("iat missing or not positive")
	case c.ExpiresAt <= 0:
		return claimsErr("exp missing or not positive")
	case c.ExpiresAt <= c.IssuedAt:
		return claimsErr("exp not after iat")
	}
	return nil
}

// checkOptional checks the optional members of a driver or viewer token:
// absent, or shaped as their comments say.
func checkOptional(c Claims) error {
	if c.Propose && c.Role != attachwire.RoleDriver {
		return claimsErr("prop on a token that is not a driver's")
	}
	if c.Name != "" {
		if err := checkID("name", c.Name); err != nil {
			return err
		}
		if len(c.Name) > MaxNameBytes {
			return claimsErr("name longer than 64 bytes")
		}
	}
	if c.Invite != "" {
		return checkID("inv", c.Invite)
	}
	return nil
}

// checkID rejects an empty, oversized, non-UTF-8 or control-bearing id:
// ids reach logs, presence lists and viewers' status lines.
func checkID(name, v string) error {
	switch {
	case v == "":
		return claimsErr(name + " missing")
	case len(v) > MaxIDBytes:
		return claimsErr(name + " longer than 256 bytes")
	case !utf8.ValidString(v):
		return claimsErr(name + " not UTF-8")
	}
	for _, r := range v {
		if unicode.IsControl(r) {
			return claimsErr(name + " holds a control character")
		}
	}
	return nil
}

// wireClaims is Claims as the jwt library sees it: strict decoding, and
// only exp reported to the library's validator, so that its leeway applies
// to exp alone (iat is checked by Verifier, nbf is refused at decoding).
type wireClaims Claims

var _ jwt.Claims = (*wireClaims)(nil)

// stringClaims are the members of the claim set whose values are
// strings, each with the field it fills; epoch, iat and exp are integers
// and prop a flag (claimKind).
var stringClaims = map[string]func(*Claims) *string{
	"sessionId": func(c *Claims) *string { return &c.SessionID },
	"roomId":    func(c *Claims) *string { return &c.RoomID },
	"userId":    func(c *Claims) *string { return &c.UserID },
	"role":      func(c *Claims) *string { return (*string)(&c.Role) },
	"orgId":     func(c *Claims) *string { return &c.OrgID },
	"aud":       func(c *Claims) *string { return &c.Audience },
	"jti":       func(c *Claims) *string { return &c.JTI },
	"name":      func(c *Claims) *string { return &c.Name },
	"inv":       func(c *Claims) *string { return &c.Invite },
}

// claimKind returns the JSON kind of member name's value: '"' for a
// string, '0' for an integer number, 't' for the one value an optional
// flag may have, true; ok is false for a name outside the claim set.
func claimKind(name string) (kind byte, ok bool) {
	switch name {
	case "epoch", "iat", "exp":
		return '0', true
	case "prop":
		return 't', true
	}
	_, ok = stringClaims[name]
	return '"', ok
}

// decodeError is a claim-set decoding failure; its reason names the rule,
// never the token's bytes.
type decodeError struct{ reason string }

func (e *decodeError) Error() string { return "token: claims: " + e.reason }

// UnmarshalJSON decodes the claim set strictly, in one pass over its
// members: an object holding only the known members, each once, none
// null, strings as strings and numeric claims as JSON integers (not
// quoted, no fraction or exponent). A member given twice is refused:
// readers that keep the first and readers that keep the last would
// read two different tokens.
func (w *wireClaims) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return &decodeError{"not a JSON object"}
	}
	var c Claims
	seen := make(map[string]bool, len(stringClaims)+4)
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return &decodeError{"not a JSON object"}
		}
		name, _ := t.(string)
		kind, known := claimKind(name)
		switch {
		case name == "nbf":
			return &decodeError{"nbf present (attach tokens have none)"}
		case !known:
			return &decodeError{"unknown member"}
		case seen[name]:
			return &decodeError{name + " given twice"}
		}
		seen[name] = true
		v, err := dec.Token()
		if err != nil {
			return &decodeError{"not a JSON object"}
		}
		if err := c.set(name, kind, v); err != nil {
			return err
		}
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return &decodeError{"not a JSON object"}
	}
	if _, err := dec.Token(); err != io.EOF {
		return &decodeError{"not a JSON object"}
	}
	*w = wireClaims(c)
	return nil
}

// set stores the value v (a json.Decoder token) of member name, of kind
// kind, in c.
func (c *Claims) set(name string, kind byte, v any) error {
	if v == nil {
		return &decodeError{name + " is null"}
	}
	switch kind {
	case '"':
		s, ok := v.(string)
		if !ok {
			return &decodeError{name + " is not a string"}
		}
		if s == "" && (name == "name" || name == "inv") {
			// Optional members are absent or meaningful, never empty.
			return &decodeError{name + " is empty"}
		}
		*stringClaims[name](c) = s
	case '0':
		n, ok := v.(json.Number)
		if !ok || !isJSONInteger([]byte(n)) {
			return &decodeError{name + " is not a JSON integer"}
		}
		if name == "epoch" {
			e, err := strconv.ParseUint(string(n), 10, 64)
			if err != nil {
				// An integer out of uint64 range, or a negative epoch.
				return &decodeError{"numeric claim out of range"}
			}
			c.Epoch = &e
			return nil
		}
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil {
			return &decodeError{"numeric claim out of range"}
		}
		if name == "iat" {
			c.IssuedAt = i
		} else {
			c.ExpiresAt = i
		}
	case 't':
		// An optional flag is absent or true, never false.
		if t, ok := v.(bool); !ok || !t {
			return &decodeError{name + " is not true"}
		}
		c.Propose = true
	}
	return nil
}

// isJSONInteger reports whether raw is an optionally negative run of
// digits: the shape json.Unmarshal accepts for an integer field, checked
// first so that 1e9 and 1.0 are refused by name.
func isJSONInteger(raw []byte) bool {
	if len(raw) > 0 && raw[0] == '-' {
		raw = raw[1:]
	}
	if len(raw) == 0 {
		return false
	}
	for _, c := range raw {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// GetExpirationTime gives the library exp, the one claim its leeway
// applies to.
func (w *wireClaims) GetExpirationTime() (*jwt.NumericDate, error) {
	if w.ExpiresAt == 0 {
		return nil, nil
	}
	return jwt.NewNumericDate(time.Unix(w.ExpiresAt, 0)), nil
}

// GetIssuedAt returns nil: Verifier checks iat itself.
func (w *wireClaims) GetIssuedAt() (*jwt.NumericDate, error) { return nil, nil }

// GetNotBefore returns nil: an attach token has no nbf.
func (w *wireClaims) GetNotBefore() (*jwt.NumericDate, error) { return nil, nil }

// GetIssuer returns "": attach tokens have no iss.
func (w *wireClaims) GetIssuer() (string, error) { return "", nil }

// GetSubject returns "": attach tokens have no sub.
func (w *wireClaims) GetSubject() (string, error) { return "", nil }

// GetAudience returns aud as the library's one-element list.
func (w *wireClaims) GetAudience() (jwt.ClaimStrings, error) {
	return jwt.ClaimStrings{w.Audience}, nil
}
