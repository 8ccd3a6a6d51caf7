package token

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/ptyhost/ptyhost/attachwire"
)

// TicketAudience is the only accepted aud of a degraded-lane SSE ticket.
// It differs from Audience so that a ticket is never an attach token and
// an attach token never a ticket.
const TicketAudience = "relay-sse-ticket"

// MaxTicketTTL is the longest a ticket may live (exp − iat), enforced when
// it is verified: a ticket travels in a URL, where it may be seen.
const MaxTicketTTL = 60 * time.Second

// Ticket is the claim set of a degraded-lane SSE ticket (attach-v1 §15
// d5): what a browser, which cannot set headers on an EventSource, puts in
// the SSE GET's ?ticket= instead of its attach token. JTI is the paired
// attach token's (the SSE leg and its POSTs are one connection); TID is
// the ticket's own id, consumed on first presentation. A Ticket is a
// plain value.
type Ticket struct {
	// SessionID names the session; RoomID must equal it.
	SessionID string `json:"sessionId"`
	// RoomID must equal SessionID (and the room in the URL path).
	RoomID string `json:"roomId"`
	// UserID is the principal of the leg; always present.
	UserID string `json:"userId"`
	// Role is "driver" or "viewer": hosts never use tickets.
	Role attachwire.Role `json:"role"`
	// OrgID scopes the room.
	OrgID string `json:"orgId"`
	// IssuedAt is the minting time in unix seconds.
	IssuedAt int64 `json:"iat"`
	// ExpiresAt is the end of validity in unix seconds, at most
	// MaxTicketTTL after IssuedAt.
	ExpiresAt int64 `json:"exp"`
	// Audience must be the constant TicketAudience.
	Audience string `json:"aud"`
	// JTI is the jti of the attach token the ticket pairs with.
	JTI string `json:"jti"`
	// TID is the ticket's single-use id (see NewJTI for a fresh one).
	TID string `json:"tid"`
	// Name and Invite are the attach token's name and inv claims, so a
	// leg admitted by the ticket shows in presence as the token's would.
	Name   string `json:"name,omitempty"`
	Invite string `json:"inv,omitempty"`
	// Propose is the attach token's prop claim.
	Propose bool `json:"prop,omitempty"`
}

// Claims returns the attach-token view of t, for the admission checks a
// ticket shares with attach tokens (room binding, jti). Audience stays
// TicketAudience: the result is not a token and is never minted.
func (t Ticket) Claims() Claims {
	return Claims{SessionID: t.SessionID, RoomID: t.RoomID, UserID: t.UserID, Role: t.Role, OrgID: t.OrgID,
		IssuedAt: t.IssuedAt, ExpiresAt: t.ExpiresAt, Audience: t.Audience, JTI: t.JTI, Name: t.Name, Invite: t.Invite,
		Propose: t.Propose}
}

// Validate checks the ticket's shape: every id present and sane, roomId ==
// sessionId, aud == TicketAudience, role driver or viewer, a tid,
// 0 < exp − iat ≤ MaxTicketTTL, and name and inv as an attach token's.
// Every refusal wraps ErrClaims.
func (t Ticket) Validate() error {
	for _, id := range []struct{ name, v string }{
		{"sessionId", t.SessionID}, {"roomId", t.RoomID}, {"orgId", t.OrgID}, {"jti", t.JTI},
		{"userId", t.UserID}, {"tid", t.TID},
	} {
		if err := checkID(id.name, id.v); err != nil {
			return err
		}
	}
	switch {
	case t.RoomID != t.SessionID:
		return claimsErr("roomId differs from sessionId")
	case t.Audience != TicketAudience:
		return claimsErr(`aud is not "relay-sse-ticket"`)
	case t.Role != attachwire.RoleDriver && t.Role != attachwire.RoleViewer:
		return claimsErr("ticket role is not driver or viewer")
	case t.IssuedAt <= 0:
		return claimsErr("iat missing or not positive")
	case t.ExpiresAt <= t.IssuedAt:
		return claimsErr("exp not after iat")
	case time.Duration(t.ExpiresAt-t.IssuedAt)*time.Second > MaxTicketTTL:
		return claimsErr("ticket lives longer than 60 s")
	}
	return checkOptional(t.Claims())
}

// MintSSETicket signs t as an EdDSA compact JWS after Validate.
func MintSSETicket(key ed25519.PrivateKey, t Ticket) (string, error) {
	if len(key) != ed25519.PrivateKeySize {
		return "", fmt.Errorf("token: mint ticket: private key is %d bytes, want %d", len(key), ed25519.PrivateKeySize)
	}
	if err := t.Validate(); err != nil {
		return "", fmt.Errorf("token: mint ticket: %w", err)
	}
	w := wireTicket(t)
	s, err := jwt.NewWithClaims(jwt.SigningMethodEdDSA, &w).SignedString(key)
	if err != nil {
		return "", fmt.Errorf("token: mint ticket: %w", err)
	}
	return s, nil
}

// VerifySSETicket checks raw as a ticket, with the same rules as Verify
// (EdDSA only, one of the Verifier's keys, exp with the leeway, iat not in
// the future, strict claim decoding) but aud exactly TicketAudience, a tid
// required and exp − iat at most MaxTicketTTL. It does not consume the tid:
// that is the caller's store, kept apart from its jti store. Refusals are
// *VerifyError, as from Verify.
func (v *Verifier) VerifySSETicket(raw string) (Ticket, error) {
	if len(raw) > MaxTokenBytes {
		return Ticket{}, invalid("longer than 8 KiB")
	}
	if !compactAlphabet(raw) {
		return Ticket{}, invalid("byte outside base64url and '.'")
	}
	var w wireTicket
	tok, err := v.ticketParser.ParseWithClaims(raw, &w, v.keyFor)
	if err != nil {
		if errors.Is(err, jwt.ErrTokenInvalidAudience) {
			return Ticket{}, invalid(`aud is not "relay-sse-ticket"`)
		}
		var de *decodeError
		if errors.As(err, &de) {
			return Ticket{}, invalid("claims: " + de.reason)
		}
		return Ticket{}, refusal(tok, &wireClaims{ExpiresAt: w.ExpiresAt}, err)
	}
	if _, ok := tok.Header["crit"]; ok {
		return Ticket{}, invalid("header has crit")
	}
	t := Ticket(w)
	if err := t.Validate(); err != nil {
		var ce *claimsError
		errors.As(err, &ce)
		return Ticket{}, &VerifyError{Reason: "claims: " + ce.reason, cause: err}
	}
	if time.Unix(t.IssuedAt, 0).After(v.now().Add(v.leeway)) {
		return Ticket{}, invalid("iat in the future")
	}
	return t, nil
}

// wireTicket is Ticket as the jwt library sees it (see wireClaims).
type wireTicket Ticket

var _ jwt.Claims = (*wireTicket)(nil)

var ticketKinds = map[string]bool{
	"sessionId": true, "roomId": true, "userId": true, "role": true, "orgId": true,
	"aud": true, "jti": true, "tid": true, "iat": false, "exp": false,
	"name": true, "inv": true,
}

// UnmarshalJSON decodes strictly: only the ticket's members (an epoch or
// nbf is refused), none null, strings as strings, iat and exp integers.
func (w *wireTicket) UnmarshalJSON(b []byte) error {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return &decodeError{"not a JSON object"}
	}
	for name, raw := range members {
		isString, ok := ticketKinds[name]
		switch {
		case name == "prop":
			if string(raw) != "true" {
				return &decodeError{name + " is not true"}
			}
		case !ok:
			return &decodeError{"unknown member"}
		case bytes.Equal(raw, []byte("null")):
			return &decodeError{name + " is null"}
		case isString && raw[0] != '"':
			return &decodeError{name + " is not a string"}
		case !isString && !isJSONInteger(raw):
			return &decodeError{name + " is not a JSON integer"}
		}
	}
	var t Ticket
	if err := json.Unmarshal(b, &t); err != nil {
		return &decodeError{"numeric claim out of range"}
	}
	*w = wireTicket(t)
	return nil
}

// GetExpirationTime gives the library exp.
func (w *wireTicket) GetExpirationTime() (*jwt.NumericDate, error) {
	if w.ExpiresAt == 0 {
		return nil, nil
	}
	return jwt.NewNumericDate(time.Unix(w.ExpiresAt, 0)), nil
}

// GetIssuedAt returns nil: VerifySSETicket checks iat itself.
func (w *wireTicket) GetIssuedAt() (*jwt.NumericDate, error) { return nil, nil }

// GetNotBefore returns nil: a ticket has no nbf.
func (w *wireTicket) GetNotBefore() (*jwt.NumericDate, error) { return nil, nil }

// GetIssuer returns "": tickets have no iss.
func (w *wireTicket) GetIssuer() (string, error) { return "", nil }

// GetSubject returns "": tickets have no sub.
func (w *wireTicket) GetSubject() (string, error) { return "", nil }

// GetAudience returns aud as the library's one-element list.
func (w *wireTicket) GetAudience() (jwt.ClaimStrings, error) {
	return jwt.ClaimStrings{w.Audience}, nil
}
