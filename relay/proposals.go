package relay

import (
	"github.com/ptyhost/ptyhost/attachwire"
)

// maxPendingProposals bounds the proposals a room keeps for the viewers
// that join later; a host announcing more is refused the excess (its gate
// keeps fewer).
const maxPendingProposals = 64

// proposals are a room's pending input proposals, in the order the host
// announced them (docs/protocol.md §6, "Input proposals"). The relay
// only passes them on: the host decides what reaches the program. Guarded
// by room.mu.
type proposals struct {
	order []string
	byID  map[string]attachwire.Proposal
}

// put records p's latest state: pending ones are kept, an outcome forgets
// its proposal. It reports false for a new pending proposal past the
// bound.
func (ps *proposals) put(p attachwire.Proposal) bool {
	if p.State.Done() {
		if _, ok := ps.byID[p.ID]; ok {
			delete(ps.byID, p.ID)
			for i, id := range ps.order {
				if id == p.ID {
					ps.order = append(ps.order[:i], ps.order[i+1:]...)
					break
				}
			}
		}
		return true
	}
	if _, ok := ps.byID[p.ID]; !ok {
		if len(ps.order) >= maxPendingProposals {
			return false
		}
		if ps.byID == nil {
			ps.byID = make(map[string]attachwire.Proposal)
		}
		ps.order = append(ps.order, p.ID)
	}
	ps.byID[p.ID] = p
	return true
}

// pending reports whether id is waiting for a decision.
func (ps *proposals) pending(id string) bool {
	_, ok := ps.byID[id]
	return ok
}

// sendPendingLocked tells a joining leg the proposals waiting, as it is
// told the pen's state.
func (rm *room) sendPendingLocked(l *leg) {
	for _, id := range rm.props.order {
		l.send(rm.props.byID[id])
	}
}

// withdrawProposalsLocked forgets every pending proposal when a host leg
// binds, telling the viewers: the host announces again what its gate still
// holds, and a host that came back without them (a new process) leaves
// none behind that nobody could decide.
func (rm *room) withdrawProposalsLocked() {
	for _, id := range rm.props.order {
		p := rm.props.byID[id]
		rm.broadcastLocked(attachwire.Proposal{ID: p.ID, State: attachwire.ProposalWithdrawn, Text: p.Text,
			FromUserID: p.FromUserID, FromName: p.FromName})
	}
	rm.props = proposals{}
}

// propose takes a proposal (or its outcome) from the host leg h and passes
// it to every driver and viewer. A malformed one is the host's framing
// error.
func (rm *room) propose(h *leg, p attachwire.Proposal) {
	if err := attachwire.ValidateProposal(p); err != nil {
		h.framing(err.Error())
		return
	}
	rm.mu.Lock()
	defer rm.mu.Unlock()
	if rm.host != h {
		return
	}
	if !rm.props.put(p) {
		h.send(attachwire.ErrorControl{Code: attachwire.CodeRateLimited,
			Message: "too many proposals pending: decide or withdraw some first"})
		return
	}
	rm.broadcastLocked(p) // every driver and viewer; not the host (forHost)
}

// decide passes the pen holder's decision on a pending proposal to the
// host, stamped with who decided. Anyone else is refused pen-denied; a
// decision on a proposal no longer pending (decided by someone else, or
// expired) is dropped: the outcome the host broadcasts tells the leg.
func (rm *room) decide(l *leg, d attachwire.Decision) {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	switch {
	case rm.pen.holder != l:
		l.send(attachwire.ErrorControl{Code: attachwire.CodePenDenied,
			Message: "only the pen holder decides proposals: take the pen first", Retryable: true})
		return
	case !rm.props.pending(d.ID):
		l.log.Debug("relay: decision on a proposal not pending", "id", d.ID)
		return
	case rm.host == nil:
		// The host re-announces what is still pending when it is back;
		// the decider decides again then.
		l.send(attachwire.ErrorControl{Code: attachwire.CodeHostLost, Retryable: true,
			Message: "the host is away: the decision was not delivered; decide again when it is back"})
		return
	}
	d.ByUserID, d.ByConnID, d.ByName = l.userID, l.jti, l.name
	rm.host.send(d)
}

// proposeFor passes a proposing driver's propose control to the host,
// stamped with who proposes; anyone else is refused pen-denied.
func (rm *room) proposeFor(l *leg, p attachwire.Propose) {
	if !l.propose {
		l.send(attachwire.ErrorControl{Code: attachwire.CodePenDenied, Retryable: true,
			Message: "only a participant whose input needs approval proposes: take the pen and type"})
		return
	}
	rm.mu.Lock()
	defer rm.mu.Unlock()
	if rm.host == nil {
		l.send(attachwire.ErrorControl{Code: attachwire.CodeHostLost, Retryable: true,
			Message: "the host is away: the proposal was not delivered; propose again when it is back"})
		return
	}
	p.FromUserID, p.FromConnID, p.FromName = l.userID, l.jti, l.name
	rm.host.send(p)
}

// proposeControl handles a propose control from a driver or viewer leg,
// decideControl a decide; it reports false when the leg ended for a
// malformed one.
func (l *leg) proposeControl(p attachwire.Propose) bool {
	return l.participantControl(p, attachwire.ValidatePropose(p), opPropose, func() { l.room.proposeFor(l, p) })
}

func (l *leg) decideControl(d attachwire.Decision) bool {
	return l.participantControl(d, attachwire.ValidateDecision(d), opDecide, func() { l.room.decide(l, d) })
}

// participantControl ends the leg for a control that failed validation
// (invalid), sends a valid one to the room's owner from a mirror node
// (as op), and applies it here otherwise.
func (l *leg) participantControl(c attachwire.Control, invalid error, op opKind, apply func()) bool {
	if invalid != nil {
		l.framing(invalid.Error())
		return false
	}
	if wire, err := attachwire.MarshalControl(c); err == nil && l.forwardRemote(clusterOp{Op: op, Wire: wire}) {
		return true
	}
	apply()
	return true
}
