package share

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/ptyhost/ptyhost/attachclient"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/issuer"
	"golang.org/x/crypto/ssh"
)

// Sharing through a relay in issuer mode (Config with a RelayURL and no
// Key) fails before anything runs as Probe does: ErrUnreachable when no
// relay answers at RelayURL or what answers is not one in issuer mode,
// ErrRefused when it refuses the SSH key (not listed, bad signature) or a
// request made with its session.

// issuedTimeout bounds each request to the issuer.
const issuedTimeout = 30 * time.Second

// issued is a Share's side of issuer mode: the client logged in with the
// user's key, which asks for each dial's host token.
type issued struct {
	client *issuer.Client
	signer ssh.Signer
	room   string
	epoch  uint64

	mu sync.Mutex // one login at a time
}

// startIssued shares through a relay in issuer mode: it logs in with the
// user's SSH key, makes a room the key owns and a watch and a drive
// invite, whose short links go in Links.
func startIssued(cfg Config) (*Share, error) {
	switch {
	case cfg.Port != 0:
		return nil, fmt.Errorf("%w: a port is for the embedded relay, not a relay URL", ErrConfig)
	case cfg.Room != "":
		return nil, fmt.Errorf("%w: a relay in issuer mode names the room itself", ErrConfig)
	case cfg.Org != "":
		return nil, fmt.Errorf("%w: a relay in issuer mode sets the organization itself", ErrConfig)
	case cfg.LinkTTL < 0 || cfg.LinkTTL > MaxLinkTTL:
		return nil, fmt.Errorf("%w: link TTL %v is not in 0..%v", ErrConfig, cfg.LinkTTL, MaxLinkTTL)
	case cfg.FinalScreenWindow < 0:
		return nil, fmt.Errorf("%w: negative final-screen window", ErrConfig)
	}
	if cfg.LinkTTL == 0 {
		cfg.LinkTTL = DefaultLinkTTL
	}
	base, err := relayBase(cfg.RelayURL)
	if err != nil {
		return nil, err
	}
	signer := cfg.Signer
	if signer == nil {
		if signer, err = issuer.FindSigner(cfg.Identity); err != nil {
			return nil, fmt.Errorf("%w: a relay without --key logs in with an SSH key: %s", ErrConfig, strings.TrimPrefix(err.Error(), "issuer: "))
		}
	}
	web := *base
	web.Scheme = map[string]string{"ws": "http", "wss": "https"}[base.Scheme]
	c, err := issuer.NewClient(web.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	iss := &issued{client: c, signer: signer, epoch: cfg.Epoch}
	ctx, cancel := context.WithTimeout(context.Background(), issuedTimeout)
	defer cancel()
	if _, err := c.Login(ctx, signer); err != nil {
		return nil, issuedErr(err, web.String())
	}
	if iss.room, err = c.CreateRoom(ctx); err != nil {
		return nil, issuedErr(err, web.String())
	}
	cfg.Room, cfg.Org = iss.room, issuer.OrgID
	s := &Share{cfg: cfg, attachURL: base.JoinPath("v1", "rooms", iss.room).String(), issued: iss,
		controls: &attachclient.HostControls{}}
	s.revoker = inviteRevoker{client: c, room: iss.room}
	l := Links{Room: iss.room, AttachURL: s.attachURL, PageURL: web.JoinPath("v1", "rooms", iss.room, "view").String()}
	for _, inv := range []struct {
		role       attachwire.Role
		link, id   *string
		expiresOut *time.Time
	}{
		{attachwire.RoleViewer, &l.WatchLink, &l.WatchInvite, &l.Expires},
		{attachwire.RoleDriver, &l.DriveLink, &l.DriveInvite, nil},
	} {
		r, err := c.CreateInvite(ctx, iss.room, issuer.InviteRequest{Role: inv.role, TTLSeconds: int64(cfg.LinkTTL / time.Second),
			Propose: cfg.Approve && inv.role == attachwire.RoleDriver})
		if err != nil {
			return nil, issuedErr(err, web.String())
		}
		*inv.link, *inv.id = c.Link(iss.room, r.Secret), r.ID
		if inv.expiresOut != nil {
			*inv.expiresOut = time.Unix(r.ExpiresAt, 0)
		}
	}
	if err := l.sealLinks(cfg); err != nil {
		return nil, err
	}
	s.Links = l
	s.initRekey()
	return s, nil
}

// issuedErr sorts an issuer client's error into ErrRefused (the relay
// said no) or ErrUnreachable (nothing, or no issuer, answered).
func issuedErr(err error, relay string) error {
	var ie *issuer.Error
	switch {
	case errors.As(err, &ie):
		return fmt.Errorf("%w: %s", ErrRefused, ie.Message)
	case errors.Is(err, issuer.ErrNotIssuer):
		return fmt.Errorf("%w: %s is not a relay in issuer mode (give its --key for a relay in platform mode)", ErrUnreachable, relay)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("%w: %s: %v", ErrUnreachable, relay, err)
}

// hostToken asks the issuer for a host token for the next dial, logging
// in again once when the session has expired. What no later dial can
// change ends the sharing (a *attachclient.RelayStopError, which Carry
// returns): a relay that no longer knows the room, because it restarted
// without keeping its issuer's state, so that the links are gone with
// it; or one that no longer accepts the sharer's key. Anything else (no
// answer, a refusal for the moment) is retried as a failed dial is.
func (iss *issued) hostToken(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, issuedTimeout)
	defer cancel()
	iss.mu.Lock()
	defer iss.mu.Unlock()
	r, err := iss.client.HostToken(ctx, iss.room, iss.epoch)
	if errors.Is(err, issuer.ErrUnauthorized) {
		if _, err = iss.client.Login(ctx, iss.signer); err == nil {
			r, err = iss.client.HostToken(ctx, iss.room, iss.epoch)
		}
	}
	switch {
	case err == nil:
		return r.Token, nil
	case errors.Is(err, issuer.ErrNotFound):
		return "", &attachclient.RelayStopError{Control: attachwire.ErrorControl{Code: attachwire.CodeAuth,
			Message: "the relay no longer knows room " + iss.room + " (it restarted without keeping its rooms, --issuer-state): its links are gone; share again for new ones"}}
	case errors.Is(err, issuer.ErrUnknownKey), errors.Is(err, issuer.ErrForbidden):
		return "", &attachclient.RelayStopError{Control: attachwire.ErrorControl{Code: attachwire.CodeAuth,
			Message: "the relay no longer accepts your key: " + issuerMessage(err)}}
	}
	return "", fmt.Errorf("share: host token: %w", err)
}

// issuerMessage is what the issuer said, without the package's prefix.
func issuerMessage(err error) string {
	var ie *issuer.Error
	if errors.As(err, &ie) && ie.Message != "" {
		return ie.Message
	}
	return err.Error()
}

// Issuer returns the issuer client a Share logged in with, and the room
// it made, for revoking its invites; nil when the Share is not through a
// relay in issuer mode.
func (s *Share) Issuer() (*issuer.Client, string) {
	if s.issued == nil {
		return nil, ""
	}
	return s.issued.client, s.issued.room
}

// inviteRevoker revokes a room's invites through the relay's issuer: the
// invite admits nobody after, and the relay closes every leg it admitted,
// on every node.
type inviteRevoker struct {
	client *issuer.Client
	room   string
}

// Links lists the room's invites that are not revoked or expired.
func (r inviteRevoker) Links(ctx context.Context) ([]RevocableLink, error) {
	invs, err := r.client.ListInvites(ctx, r.room)
	if err != nil {
		return nil, err
	}
	var out []RevocableLink
	now := time.Now().Unix()
	for _, inv := range invs {
		if inv.Revoked || inv.ExpiresAt <= now {
			continue
		}
		label := "watch link"
		if inv.Role == attachwire.RoleDriver {
			label = "drive link"
		}
		out = append(out, RevocableLink{ID: inv.ID, Label: fmt.Sprintf("%s (%d holding it)", label, inv.Holders), Role: inv.Role})
	}
	return out, nil
}

// Revoke revokes the invite id.
func (r inviteRevoker) Revoke(ctx context.Context, id string) error {
	return r.client.Revoke(ctx, r.room, id)
}
