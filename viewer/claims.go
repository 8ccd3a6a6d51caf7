package viewer

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ptyhost/ptyhost/attachwire"
)

// maxTokenBytes bounds the token peekClaims decodes; an attach token is a
// few hundred bytes.
const maxTokenBytes = 8 << 10

// tokenClaims are the claims a viewer reads from its own token, without
// verifying it (only the relay can): its connection id, to recognise
// itself in pen and presence messages, its role and session.
type tokenClaims struct {
	SessionID string          `json:"sessionId"`
	UserID    string          `json:"userId"`
	Role      attachwire.Role `json:"role"`
	JTI       string          `json:"jti"`
	Exp       int64           `json:"exp"`
	// Propose: a driver whose input needs approval (Client.Propose).
	Propose bool `json:"prop"`
}

// peekClaims decodes the payload of a compact JWS. It checks the shape
// only; a token it accepts may still be refused by the relay.
func peekClaims(tok string) (tokenClaims, error) {
	if len(tok) > maxTokenBytes {
		return tokenClaims{}, fmt.Errorf("%w: token is %d bytes, more than %d", ErrConfig, len(tok), maxTokenBytes)
	}
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return tokenClaims{}, fmt.Errorf("%w: token is not a compact JWS (want 3 dot-separated parts, got %d)", ErrConfig, len(parts))
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return tokenClaims{}, fmt.Errorf("%w: token payload: %v", ErrConfig, err)
	}
	var c tokenClaims
	if err := json.Unmarshal(payload, &c); err != nil {
		return tokenClaims{}, fmt.Errorf("%w: token claims: %v", ErrConfig, err)
	}
	return c, nil
}
