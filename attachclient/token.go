package attachclient

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// hostClaims are the claims of a host token the carrier needs. The token
// is read, not verified: the relay verifies it; the host only learns what
// to subscribe with.
type hostClaims struct {
	SessionID string  `json:"sessionId"`
	Epoch     *uint64 `json:"epoch"`
}

// readHostClaims reads the sessionId and epoch of a compact JWS.
func readHostClaims(tok string) (hostClaims, error) {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return hostClaims{}, fmt.Errorf("%w: not a compact JWS", ErrBadToken)
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return hostClaims{}, fmt.Errorf("%w: claims are not base64url", ErrBadToken)
	}
	var c hostClaims
	if err := json.Unmarshal(raw, &c); err != nil {
		return hostClaims{}, fmt.Errorf("%w: claims: %v", ErrBadToken, err)
	}
	switch {
	case c.SessionID == "":
		return hostClaims{}, fmt.Errorf("%w: no sessionId", ErrBadToken)
	case c.Epoch == nil:
		return hostClaims{}, fmt.Errorf("%w: no epoch (not a host token)", ErrBadToken)
	}
	return c, nil
}
