package share

import (
	"context"
	"fmt"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
)

// sealer is the sealer of the room's newest key, nil for a share started
// Unsealed. In a sealed room a proposal's text and reason, a decision's
// and a propose's, travel sealed: the relay passes every control as it
// is, and these members hold what a person or an agent would type.
func (s *Share) sealer() *seal.Room {
	s.keyMu.Lock()
	k := s.links.Key
	s.keyMu.Unlock()
	if k == nil {
		return nil
	}
	return seal.NewRoom(k, s.cfg.Room)
}

// Announce sends a proposal, or its outcome, to the room through the
// host's leg (attachclient.ErrNoLeg while none is up): an approval.Gate's
// Config.Announce for this share's session.
func (s *Share) Announce(ctx context.Context, p attachwire.Proposal) error {
	if r := s.sealer(); r != nil {
		p.Text = r.SealText(seal.TextProposal, p.ID, p.Text)
		p.Reason = r.SealText(seal.TextReason, p.ID, p.Reason)
	}
	return s.controls.Send(ctx, p)
}

// OpenControl returns a decide or propose control from the room with its
// sealed members opened (a sealed room), any other control unchanged. An
// error is a member that does not open: the control was made under
// another key or altered on its way, and must be dropped.
func (s *Share) OpenControl(c attachwire.Control) (attachwire.Control, error) {
	r := s.sealer()
	if r == nil {
		return c, nil
	}
	var err, rerr error
	switch v := c.(type) {
	case attachwire.Decision:
		v.Text, err = r.OpenText(seal.TextDecision, v.ID, v.Text)
		v.Reason, rerr = r.OpenText(seal.TextReason, v.ID, v.Reason)
		c = v
	case attachwire.Propose:
		v.Text, err = r.OpenText(seal.TextPropose, "", v.Text)
		c = v
	}
	if err == nil {
		err = rerr
	}
	if err != nil {
		return nil, fmt.Errorf("share: a %s control that does not open: %w", c.ControlType(), err)
	}
	return c, nil
}
