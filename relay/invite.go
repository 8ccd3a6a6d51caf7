package relay

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/coder/websocket"
	"github.com/nats-io/nats.go"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/issuer"
	"github.com/ptyhost/ptyhost/token"
)

// IssuerConfig turns on issuer mode (docs/relay.md, "Issuer mode"): the
// relay signs room credentials itself for the holders of listed SSH keys
// and exchanges invites for attach tokens. Platform mode (PublicKeys)
// works beside it.
type IssuerConfig struct {
	// Key signs the issuer's sessions and tokens; its public half is added
	// to the relay's verification keys. Required.
	Key ed25519.PrivateKey
	// Users may log in (issuer.LoadUsers). Reload with Relay.SetIssuerUsers.
	Users *issuer.Users
	// LoginsPerMinute and RedeemsPerMinute are the per-address rates of
	// logins and redemptions. Zero: issuer's defaults (30 and 120).
	LoginsPerMinute, RedeemsPerMinute float64
	// Store keeps the rooms and invites of a relay on its own
	// (issuer.FileStore keeps them across a restart). Nil: memory. A
	// relay in a cluster keeps them in NATS and ignores it.
	Store issuer.Store
}

// RevokedMessage is the error control's message to a leg closed because
// the invite it came from was revoked.
const RevokedMessage = "the link was revoked"

// invites is the relay's side of issuer mode: the API server, and the
// legs of this node each invite admitted, to count them and to close
// them on revocation.
type invites struct {
	rl  *Relay
	srv *issuer.Server
	kv  *inviteKV // nil: a relay on its own
	sub *nats.Subscription

	mu   sync.Mutex
	legs map[string]map[*leg]struct{} // inviteKey → legs of this node
}

func inviteKey(room, id string) string { return room + "." + id }

// issuerPublicKeys returns keys with the issuer's public key added.
func issuerPublicKeys(cfg Config) []ed25519.PublicKey {
	if cfg.Issuer == nil || len(cfg.Issuer.Key) != ed25519.PrivateKeySize {
		return cfg.PublicKeys
	}
	return append(cfg.PublicKeys, cfg.Issuer.Key.Public().(ed25519.PublicKey))
}

// startIssuer sets up issuer mode when the config asks for it: the store
// (the cluster's bucket, or memory), the API under issuer.PathPrefix and
// the short links' page route /s/<room>.
func (rl *Relay) startIssuer() error {
	ic := rl.cfg.Issuer
	if ic == nil {
		return nil
	}
	if len(ic.Key) != ed25519.PrivateKeySize {
		return errors.New("relay: the issuer needs an Ed25519 private key")
	}
	iv := &invites{rl: rl, legs: make(map[string]map[*leg]struct{})}
	cfg := issuer.Config{Key: ic.Key, Users: ic.Users, Legs: iv, ClientAddr: clientAddr,
		LoginsPerMinute: ic.LoginsPerMinute, RedeemsPerMinute: ic.RedeemsPerMinute,
		MaxTokenTTL: rl.cfg.MaxTokenTTL, Now: rl.cfg.Now, Logger: rl.log, Store: ic.Store}
	if rl.cluster != nil {
		kv, err := openInviteKV(rl.cluster)
		if err != nil {
			return err
		}
		iv.kv = kv
		cfg.Store = kv
		if cfg.Challenges, err = openChallengeKV(rl.cluster); err != nil {
			return err
		}
		if iv.sub, err = rl.cluster.nc.Subscribe(subjectPrefix+"revoke", iv.heardRevoke); err != nil {
			return fmt.Errorf("%w: subscribe: %w", ErrClusterUnavailable, err)
		}
	}
	srv, err := issuer.NewServer(cfg)
	if err != nil {
		return fmt.Errorf("relay: %w", err)
	}
	iv.srv = srv
	rl.invites = iv
	rl.mux.Handle(issuer.PathPrefix, srv)
	rl.mux.HandleFunc("GET /s/{room}", shortLink)
	return nil
}

// stopIssuer ends the revocation subscription (Close).
func (rl *Relay) stopIssuer() {
	if rl.invites != nil && rl.invites.sub != nil {
		rl.invites.sub.Unsubscribe()
	}
}

// SetIssuerUsers replaces who may log in to the relay's issuer (a reload
// of the authorized keys). It does nothing without issuer mode.
func (rl *Relay) SetIssuerUsers(u *issuer.Users) {
	if rl.invites != nil {
		rl.invites.srv.SetUsers(u)
	}
}

// shortLink sends a short link's browser to the room's page. The browser
// keeps the link's #fragment (the invite's secret) across the redirect,
// as a redirect without a fragment of its own asks (RFC 9110, 10.2.2), and
// never sends it here.
func shortLink(w http.ResponseWriter, r *http.Request) {
	room := r.PathValue("room")
	if !issuer.ValidRoomID(room) {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, "../v1/rooms/"+room+"/view", http.StatusFound)
}

// holdInvite admits a leg whose token came from an invite of the
// relay's issuer: the invite must still exist and not be revoked, and
// have room for one more holder. The leg is then this node's holder of it
// until release. Tokens of other orgs (a platform issuer's) pass as they are.
func (rl *Relay) holdInvite(c token.Claims, l *leg) (release func(), a *admission) {
	iv := rl.invites
	if iv == nil || c.Invite == "" || c.OrgID != issuer.OrgID {
		return func() {}, nil
	}
	ctx, cancel := context.WithTimeout(rl.ctx, clusterTimeout)
	defer cancel()
	inv, err := iv.srv.CheckInvite(ctx, c.RoomID, c.Invite)
	if a := inviteRefusal(err); a != nil {
		return nil, a
	}
	key := inviteKey(c.RoomID, c.Invite)
	if err := iv.take(ctx, key, inv.MaxHolders, l); err != nil {
		if errors.Is(err, errInviteFull) {
			return nil, legRefusal(attachwire.CodeRateLimited, fmt.Sprintf("the link admits %d at once and all are here", inv.MaxHolders),
				true, websocket.StatusTryAgainLater)
		}
		l.log.Info("relay: invite holder not recorded", "err", err)
		return nil, legRefusal(attachwire.CodeRateLimited, "relay node cannot check the link", true, websocket.StatusTryAgainLater)
	}
	release = func() { iv.drop(key, l) }
	// A revocation that went out between the check and the take found no
	// leg to close: look once more now that the leg is findable.
	if _, err := iv.srv.CheckInvite(ctx, c.RoomID, c.Invite); err != nil {
		if a := inviteRefusal(err); a != nil {
			release()
			return nil, a
		}
	}
	return release, nil
}

// inviteRefusal turns CheckInvite's error into the leg's refusal.
func inviteRefusal(err error) *admission {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, issuer.ErrRevoked):
		return legRefusal(attachwire.CodeAuth, RevokedMessage, false, websocket.StatusPolicyViolation)
	case errors.Is(err, issuer.ErrNotFound):
		return legRefusal(attachwire.CodeAuth, "the link no longer exists", false, websocket.StatusPolicyViolation)
	}
	return legRefusal(attachwire.CodeRateLimited, "relay node cannot check the link", true, websocket.StatusTryAgainLater)
}

var errInviteFull = errors.New("relay: invite at its cap of holders")

// take records l as a holder of the invite key, refusing past max (0: no
// cap) counted over every node.
func (iv *invites) take(ctx context.Context, key string, max int, l *leg) error {
	if iv.kv != nil {
		// The bucket's compare-and-swap decides, outside mu: a revocation
		// need not wait for a node's round trip to NATS.
		if err := iv.kv.addHolder(ctx, key, max, 1); err != nil {
			return err
		}
	}
	iv.mu.Lock()
	defer iv.mu.Unlock()
	set := iv.legs[key]
	if iv.kv == nil && max > 0 && len(set) >= max {
		return errInviteFull
	}
	if set == nil {
		set = make(map[*leg]struct{})
		iv.legs[key] = set
	}
	set[l] = struct{}{}
	return nil
}

// drop forgets l as a holder of key.
func (iv *invites) drop(key string, l *leg) {
	iv.mu.Lock()
	set := iv.legs[key]
	_, held := set[l]
	delete(set, l)
	if len(set) == 0 {
		delete(iv.legs, key)
	}
	iv.mu.Unlock()
	if held && iv.kv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), clusterTimeout)
		defer cancel()
		if err := iv.kv.addHolder(ctx, key, 0, -1); err != nil {
			iv.rl.log.Info("relay: invite holder not released", "err", err)
		}
	}
}

// Holders implements issuer.Legs: the live legs holding the invite, over
// every node.
func (iv *invites) Holders(ctx context.Context, room, id string) int {
	key := inviteKey(room, id)
	if iv.kv != nil {
		n, err := iv.kv.holders(ctx, key)
		if err == nil {
			return n
		}
	}
	iv.mu.Lock()
	defer iv.mu.Unlock()
	return len(iv.legs[key])
}

// Revoked implements issuer.Legs: the invite's legs are closed here, and
// on every other node of a cluster.
func (iv *invites) Revoked(_ context.Context, room, id string) {
	key := inviteKey(room, id)
	iv.closeLegs(key)
	if iv.rl.cluster != nil {
		if err := iv.rl.cluster.nc.Publish(subjectPrefix+"revoke", []byte(key)); err != nil {
			iv.rl.log.Warn("relay: revocation not announced to the cluster", "err", err)
		}
	}
}

// heardRevoke closes this node's legs of an invite another node revoked.
func (iv *invites) heardRevoke(m *nats.Msg) { iv.closeLegs(string(m.Data)) }

// closeLegs ends every leg of this node that holds the invite key.
func (iv *invites) closeLegs(key string) {
	iv.mu.Lock()
	legs := make([]*leg, 0, len(iv.legs[key]))
	for l := range iv.legs[key] {
		legs = append(legs, l)
	}
	iv.mu.Unlock()
	for _, l := range legs {
		l.log.Info("relay: leg closed, its link was revoked")
		l.end(&attachwire.ErrorControl{Code: attachwire.CodeAuth, Message: RevokedMessage}, websocket.StatusPolicyViolation, "revoked")
	}
}
