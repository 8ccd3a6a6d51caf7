package share

import (
	"context"
	"errors"
	"fmt"

	"github.com/ptyhost/ptyhost/attachclient"
	"github.com/ptyhost/ptyhost/attachwire"
)

// ErrUnknownLink is returned by Revoke for an id that names no link.
var ErrUnknownLink = errors.New("share: no such link")

// RevocableLink is one link the sharer handed out that Revoke can end.
type RevocableLink struct {
	// ID is what Revoke takes.
	ID string
	// Label names the link for the sharer ("watch in a terminal").
	Label string
	// Role is what the link admits to.
	Role attachwire.Role
}

// Revoker ends links: once revoked, a link admits nobody, and whoever
// holds it is closed. Sharing through a relay's issuer, the issuer
// revokes invites; with tokens this process minted (the embedded relay,
// or --key), the host asks the relay to refuse the link's token.
type Revoker interface {
	// Links lists the links that can still be revoked.
	Links(ctx context.Context) ([]RevocableLink, error)
	// Revoke ends the link id.
	Revoke(ctx context.Context, id string) error
}

// tokenRevoker revokes the links whose tokens this process minted: a
// kick of the token's jti closes the leg holding it (there is at most one
// per jti) and makes the relay refuse the token until it expires.
type tokenRevoker struct {
	links []RevocableLink
	jtis  map[string]string // link id → its token's jti
	hc    *attachclient.HostControls
	done  map[string]bool
}

// Links returns the links not yet revoked.
func (r *tokenRevoker) Links(context.Context) ([]RevocableLink, error) {
	var out []RevocableLink
	for _, l := range r.links {
		if !r.done[l.ID] {
			out = append(out, l)
		}
	}
	return out, nil
}

// Revoke asks the relay, on the host's leg, to refuse the link's token.
func (r *tokenRevoker) Revoke(ctx context.Context, id string) error {
	jti, ok := r.jtis[id]
	if !ok {
		return fmt.Errorf("%w: %q", ErrUnknownLink, id)
	}
	if err := r.hc.Kick(ctx, jti, "link revoked"); err != nil {
		return fmt.Errorf("share: revoke: %w", err)
	}
	r.done[id] = true
	return nil
}
