package relay

import (
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/token"
)

// msgKicked is what a participant the host removed is told, then and at
// every dial with the same token.
const msgKicked = "removed by the host"

// kickHorizon is how long a kicked jti whose token's expiry is unknown is
// refused when the relay sets no MaxTokenTTL: a week, the longest a link
// that `ptyhost share` mints may live.
const kickHorizon = 7 * 24 * time.Hour

// kickKey names a token a host removed: the jti within its room, so a
// host reaches no other room's tokens.
type kickKey struct {
	room roomKey
	jti  string
}

// setClaims takes what presence shows of a leg, and its token's expiry,
// from its token.
func (l *leg) setClaims(c token.Claims) {
	l.name, l.guest, l.exp, l.propose = c.Name, c.Invite != "", c.ExpiresAt, c.Propose
}

// refuseKicked records that jti is refused in room k until exp.
func (rl *Relay) refuseKicked(k roomKey, jti string, exp time.Time) {
	now := rl.cfg.Now()
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if rl.kicked == nil {
		rl.kicked = make(map[kickKey]time.Time)
	}
	if len(rl.kicked) > 4096 {
		for key, until := range rl.kicked {
			if now.After(until) {
				delete(rl.kicked, key)
			}
		}
	}
	rl.kicked[kickKey{room: k, jti: jti}] = exp
}

// kickedLocked reports whether a host removed jti from room k and its
// token has not expired (with the verifier's leeway). rl.mu is held.
func (rl *Relay) kickedLocked(k roomKey, jti string, now time.Time) bool {
	key := kickKey{room: k, jti: jti}
	exp, ok := rl.kicked[key]
	if !ok {
		return false
	}
	if now.After(exp.Add(5 * time.Second)) {
		delete(rl.kicked, key)
		return false
	}
	return true
}

// isKicked is kickedLocked for callers that do not hold rl.mu.
func (rl *Relay) isKicked(k roomKey, jti string) bool {
	now := rl.cfg.Now()
	rl.mu.Lock()
	defer rl.mu.Unlock()
	return rl.kickedLocked(k, jti, now)
}

// hostControl applies one of the host's own controls from h; a leg that
// is no longer the room's host has no say.
func (rm *room) hostControl(h *leg, c attachwire.Control) {
	switch c := c.(type) {
	case attachwire.Kick:
		rm.kick(h, c)
	case attachwire.PenTake:
		rm.penTake(h)
	case attachwire.ReadOnly:
		rm.setReadOnly(h, c.On)
	case attachwire.Proposal:
		rm.propose(h, c)
	}
}

// kick removes the participant whose jti is k.ConnID: its token is
// refused from now until it expires (a jti no leg holds too: that is how
// a host revokes a link it minted), its pen is revoked at once rather
// than kept through the grace, and its leg ends with error auth.
func (rm *room) kick(h *leg, k attachwire.Kick) {
	if k.ConnID == "" {
		return
	}
	rm.mu.Lock()
	if rm.host != h {
		rm.mu.Unlock()
		return
	}
	var target *leg
	for v := range rm.viewers {
		if v.jti == k.ConnID {
			target = v
			break
		}
	}
	rm.mu.Unlock()
	// The token's expiry is known for a leg here; a jti no leg holds, or
	// a lane leg's ticket (which expires before its token), is refused
	// for as long as a token may live.
	horizon := rm.relay.cfg.MaxTokenTTL
	if horizon <= 0 {
		horizon = kickHorizon
	}
	exp := rm.relay.cfg.Now().Add(horizon)
	if target != nil && target.exp != 0 && time.Unix(target.exp, 0).After(exp) {
		exp = time.Unix(target.exp, 0)
	}
	rm.relay.refuseKicked(rm.key, k.ConnID, exp)
	h.log.Info("relay: the host removed a participant", "conn", k.ConnID, "found", target != nil,
		"reason", attachwire.CapMessage(k.Reason))
	rm.mu.Lock()
	if rm.pen.holderJTI == k.ConnID {
		rm.revokeLocked()
	}
	rm.mu.Unlock()
	if target != nil {
		target.end(&attachwire.ErrorControl{Code: attachwire.CodeAuth, Message: msgKicked},
			websocket.StatusPolicyViolation, msgKicked)
		rm.removeViewer(target)
	}
}

// penTake gives the pen back to the host: whoever holds it, or waits in
// its grace, loses it.
func (rm *room) penTake(h *leg) {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	if rm.host == h && rm.pen.holderJTI != "" {
		rm.revokeLocked()
	}
}

// setReadOnly turns the room's read-only mode on or off; turning it on
// revokes the holder's pen. Every leg, the host's too, gets the pen's
// state (the host also when nothing changed: its answer).
func (rm *room) setReadOnly(h *leg, on bool) {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	if rm.host != h {
		return
	}
	if rm.pen.readOnly == on {
		h.send(rm.penStateLocked())
		return
	}
	rm.pen.readOnly = on
	if on && rm.pen.holderJTI != "" {
		rm.revokeLocked()
	}
	rm.broadcastLocked(rm.penStateLocked())
}

// sendPeopleLocked tells a host leg who is here and who holds the pen, as
// a joining viewer is told.
func (rm *room) sendPeopleLocked(h *leg) {
	members := make([]attachwire.Member, 0, len(rm.viewers))
	for v := range rm.viewers {
		members = append(members, v.member(rm.pen.holder == v))
	}
	h.send(attachwire.Presence{Op: attachwire.PresenceList, Members: members})
	h.send(rm.penStateLocked())
}
