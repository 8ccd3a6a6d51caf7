package issuer

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/token"
)

// MaxBodyBytes bounds every request body the issuer reads: its requests
// are a few hundred bytes, an RSA signature the largest part.
const MaxBodyBytes = 16 << 10

// Limits of what an invite may ask for.
const (
	// MaxInviteTTL is the longest an invite may live.
	MaxInviteTTL = 7 * 24 * time.Hour
	// MaxHoldersCap bounds an invite's maxHolders.
	MaxHoldersCap = 100000
)

// ChallengeResponse answers POST /v1/issuer/challenge.
type ChallengeResponse struct {
	Challenge string `json:"challenge"`
	ExpiresAt int64  `json:"expiresAt"`
}

// Signature is an SSH signature as the login request carries it.
type Signature struct {
	// Format is the SSH signature format ("ssh-ed25519", "rsa-sha2-256", …).
	Format string `json:"format"`
	// Blob is the signature, standard base64.
	Blob string `json:"blob"`
}

// LoginRequest is the body of POST /v1/issuer/login.
type LoginRequest struct {
	Challenge string `json:"challenge"`
	// PublicKey is the signing key as an authorized_keys line's first two
	// fields: "ssh-ed25519 AAAA…".
	PublicKey string    `json:"publicKey"`
	Signature Signature `json:"signature"`
}

// LoginResponse answers a login.
type LoginResponse struct {
	Session   string `json:"session"`
	User      string `json:"user"`
	ExpiresAt int64  `json:"expiresAt"`
}

// RoomResponse answers POST /v1/issuer/rooms.
type RoomResponse struct {
	Room string `json:"room"`
}

// HostTokenRequest is the body of POST /v1/issuer/rooms/{room}/host-token.
type HostTokenRequest struct {
	Epoch *uint64 `json:"epoch"`
}

// TokenResponse answers a host-token request.
type TokenResponse struct {
	Token     string `json:"token"`
	ExpiresAt int64  `json:"expiresAt"`
}

// InviteRequest is the body of POST /v1/issuer/rooms/{room}/invites.
type InviteRequest struct {
	Role       attachwire.Role `json:"role"`
	TTLSeconds int64           `json:"ttlSeconds"`
	// MaxHolders bounds the live legs holding the invite at once; 0: no cap.
	MaxHolders int `json:"maxHolders"`
	// Propose makes the redeemed tokens proposers (token.Claims.Propose):
	// their input waits for approval. Driver invites only.
	Propose bool `json:"propose,omitempty"`
}

// InviteResponse answers an invite's creation. Secret is shown this once:
// the relay keeps only its hash.
type InviteResponse struct {
	ID        string          `json:"id"`
	Secret    string          `json:"secret"`
	Role      attachwire.Role `json:"role"`
	ExpiresAt int64           `json:"expiresAt"`
}

// InviteInfo is one invite as its room's owner lists it.
type InviteInfo struct {
	ID         string          `json:"id"`
	Role       attachwire.Role `json:"role"`
	ExpiresAt  int64           `json:"expiresAt"`
	MaxHolders int             `json:"maxHolders"`
	Holders    int             `json:"holders"`
	Revoked    bool            `json:"revoked"`
}

// InviteList answers GET /v1/issuer/rooms/{room}/invites.
type InviteList struct {
	Invites []InviteInfo `json:"invites"`
}

// RedeemRequest is the body of POST /v1/issuer/redeem.
type RedeemRequest struct {
	Room   string `json:"room"`
	Secret string `json:"secret"`
	Name   string `json:"name"`
}

// RedeemResponse answers a redemption: an attach token for one leg.
type RedeemResponse struct {
	Token     string          `json:"token"`
	Role      attachwire.Role `json:"role"`
	UserID    string          `json:"userId"`
	ExpiresAt int64           `json:"expiresAt"`
}

// errorBody is every refusal's body.
type errorBody struct {
	Error   Code   `json:"error"`
	Message string `json:"message"`
}

// decodeStrict decodes one JSON object from b into v: no unknown member,
// nothing after it, at most MaxBodyBytes.
func decodeStrict(b []byte, v any) error {
	if len(b) > MaxBodyBytes {
		return refusal(CodeBadRequest, "body larger than 16 KiB")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return refusal(CodeBadRequest, "body is not the expected JSON object: "+jsonReason(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return refusal(CodeBadRequest, "data after the JSON object")
	}
	return nil
}

// jsonReason names what was wrong without echoing the body.
func jsonReason(err error) string {
	var ute *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &ute):
		return "member " + ute.Field + " has the wrong type"
	case errors.As(err, &se):
		return "malformed JSON"
	case strings.HasPrefix(err.Error(), "json: unknown field"):
		return "unknown member"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "empty or truncated"
	}
	return "malformed JSON"
}

// challengeBytes is a challenge's entropy.
const challengeBytes = 32

// secretBytes is an invite secret's entropy: 128 bits.
const secretBytes = 16

// decodeB64URL decodes s as unpadded base64url of exactly n bytes.
func decodeB64URL(s string, n int) ([]byte, bool) {
	if len(s) != base64.RawURLEncoding.EncodedLen(n) {
		return nil, false
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	return b, err == nil && len(b) == n
}

// ParseLoginRequest decodes and checks a login body: a well-formed
// challenge, a public key in authorized_keys form and a signature of known
// shape. Whether the key is listed and the signature verifies is the
// server's business.
func ParseLoginRequest(b []byte) (LoginRequest, error) {
	var r LoginRequest
	if err := decodeStrict(b, &r); err != nil {
		return r, err
	}
	switch {
	case r.Challenge == "":
		return r, refusal(CodeBadRequest, "challenge missing")
	case !validChallenge(r.Challenge):
		return r, refusal(CodeChallengeInvalid, "challenge is not one this issuer gives")
	case r.PublicKey == "":
		return r, refusal(CodeBadRequest, "publicKey missing")
	case len(r.PublicKey) > 4096:
		return r, refusal(CodeBadRequest, "publicKey longer than 4096 bytes")
	case r.Signature.Format == "" || len(r.Signature.Format) > 64:
		return r, refusal(CodeBadRequest, "signature.format missing or longer than 64 bytes")
	case r.Signature.Blob == "":
		return r, refusal(CodeBadRequest, "signature.blob missing")
	}
	if _, err := base64.StdEncoding.Strict().DecodeString(r.Signature.Blob); err != nil {
		return r, refusal(CodeBadRequest, "signature.blob is not standard base64")
	}
	return r, nil
}

func validChallenge(s string) bool {
	_, ok := decodeB64URL(s, challengeBytes)
	return ok
}

// ParseHostTokenRequest decodes a host-token body: an epoch is required.
func ParseHostTokenRequest(b []byte) (HostTokenRequest, error) {
	var r HostTokenRequest
	if err := decodeStrict(b, &r); err != nil {
		return r, err
	}
	if r.Epoch == nil {
		return r, refusal(CodeBadRequest, "epoch missing")
	}
	return r, nil
}

// ParseInviteRequest decodes and checks an invite body: role viewer or
// driver, ttlSeconds within MaxInviteTTL, maxHolders within MaxHoldersCap.
func ParseInviteRequest(b []byte) (InviteRequest, error) {
	var r InviteRequest
	if err := decodeStrict(b, &r); err != nil {
		return r, err
	}
	switch {
	case r.Role != attachwire.RoleViewer && r.Role != attachwire.RoleDriver:
		return r, refusal(CodeBadRequest, `role must be "viewer" or "driver"`)
	case r.TTLSeconds <= 0 || r.TTLSeconds > int64(MaxInviteTTL/time.Second):
		return r, refusal(CodeBadRequest, fmt.Sprintf("ttlSeconds must be 1 to %d", int64(MaxInviteTTL/time.Second)))
	case r.MaxHolders < 0 || r.MaxHolders > MaxHoldersCap:
		return r, refusal(CodeBadRequest, fmt.Sprintf("maxHolders must be 0 (no cap) to %d", MaxHoldersCap))
	case r.Propose && r.Role != attachwire.RoleDriver:
		return r, refusal(CodeBadRequest, "propose goes with role driver only")
	}
	return r, nil
}

// ParseRedeemRequest decodes and checks a redeem body: a room id of the
// issuer's form, a secret of 16 bytes in base64url, and a name, which it
// returns trimmed (see CleanName).
func ParseRedeemRequest(b []byte) (RedeemRequest, error) {
	var r RedeemRequest
	if err := decodeStrict(b, &r); err != nil {
		return r, err
	}
	if !ValidRoomID(r.Room) {
		return r, refusal(CodeBadRequest, "room is not an issuer room id")
	}
	if _, ok := decodeB64URL(r.Secret, secretBytes); !ok {
		return r, refusal(CodeBadRequest, "secret is not 22 base64url characters")
	}
	name, err := CleanName(r.Name)
	if err != nil {
		return r, err
	}
	r.Name = name
	return r, nil
}

// CleanName trims a guest's display name of surrounding white space and
// checks what is left: 1 to token.MaxNameBytes bytes of UTF-8 without
// control characters (it reaches status lines and presence lists).
func CleanName(s string) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "", refusal(CodeBadRequest, "name missing")
	case len(s) > token.MaxNameBytes:
		return "", refusal(CodeBadRequest, "name longer than 64 bytes")
	case !utf8.ValidString(s):
		return "", refusal(CodeBadRequest, "name is not UTF-8")
	}
	for _, r := range s {
		if unicode.IsControl(r) || unicode.In(r, unicode.Cf) {
			// Format characters too: a bidi override or a zero-width
			// joiner makes one name look like another.
			return "", refusal(CodeBadRequest, "name holds a control or format character")
		}
	}
	return s, nil
}
