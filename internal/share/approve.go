package share

import (
	"context"
	"log/slog"

	"github.com/ptyhost/ptyhost/agent"
	"github.com/ptyhost/ptyhost/approval"
	"github.com/ptyhost/ptyhost/attachwire"
)

// sharerUser is who the sharer's own decisions are by.
const sharerUser = "host"

// newGate makes the session's approval gate: proposals are announced in
// the room (and to OnProposal), the approved input written to the
// session, and every outcome a marker in its stream.
func (s *Share) newGate(sess agent.InteractiveSession, logger *slog.Logger) *approval.Gate {
	g := approval.New(approval.Config{
		Write: func(_ context.Context, text string) error {
			_, err := sess.WriteInput([]byte(text))
			return err
		},
		Announce: func(ctx context.Context, p attachwire.Proposal) error {
			if s.cfg.OnProposal != nil {
				s.cfg.OnProposal(p)
			}
			return s.controls.Send(ctx, p)
		},
		Record:  func(label string) { sess.EmitMarker(label) }, //nolint:errcheck // after exit nothing is written either
		Timeout: s.cfg.ApprovalTimeout,
	})
	s.mu.Lock()
	s.gate = g
	s.mu.Unlock()
	return g
}

// gated wraps the Room and Link hooks: a proposer's propose becomes a
// proposal, the pen holder's decide decides one, and the waiting
// proposals are announced again whenever the leg comes back up (a relay
// forgets them when a host binds).
func (s *Share) gated(ctx context.Context, g *approval.Gate, logger *slog.Logger) (func(attachwire.Control), func(bool)) {
	room := func(c attachwire.Control) {
		switch c := c.(type) {
		case attachwire.Propose:
			go func() {
				_, err := g.Propose(ctx, approval.Request{Text: c.Text, From: approval.Person{UserID: c.FromUserID, Name: c.FromName}})
				if err != nil && logger != nil {
					logger.Info("share: a proposal was not taken", "from", c.FromUserID, "err", err)
				}
			}()
		case attachwire.Decision:
			g.Decide(c)
		}
		if s.cfg.OnRoom != nil {
			s.cfg.OnRoom(c)
		}
	}
	link := func(up bool) {
		if up {
			go g.Reannounce(ctx)
		}
		if s.cfg.OnLink != nil {
			s.cfg.OnLink(up)
		}
	}
	return room, link
}

// Decide decides the proposal id as the sharer: approve or reject (with
// an optional reason). It reports false when the share takes no
// proposals or id is not waiting.
func (s *Share) Decide(id string, approve bool, reason string) bool {
	s.mu.Lock()
	g := s.gate
	s.mu.Unlock()
	if g == nil {
		return false
	}
	waiting := false
	for _, p := range g.Pending() {
		waiting = waiting || p.ID == id
	}
	if !waiting {
		return false
	}
	v := attachwire.VerdictApprove
	if !approve {
		v = attachwire.VerdictReject
	}
	g.Decide(attachwire.Decision{ID: id, Verdict: v, Reason: reason, ByUserID: sharerUser, ByName: "the sharer"})
	return true
}
