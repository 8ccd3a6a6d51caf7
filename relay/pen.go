package relay

import (
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
)

// penBase is a room's first penGeneration: the wall clock in
// microseconds. A room made again for the same session (after a relay
// restart, a cluster takeover, or the room closing while its host was
// away) so starts above any generation the one before it reached, which
// would take a pen change every microsecond, and the (userId,
// penGeneration, inputSeq) triples a host dedups on never repeat, though
// inputSeq starts over. Microseconds stay below 2^53 until the year 2255,
// so JSON readers holding numbers as doubles read it exactly.
func penBase(now time.Time) uint64 {
	return uint64(max(now.UnixMicro(), 1))
}

// pen is who may send Input: one connection (userId, jti) at a time.
// Policy: grab with notice (no approval), a cooldown after every change,
// a grace on the holder's disconnect during which the same jti may come
// back and keep it. Every change bumps gen and is broadcast. Guarded by
// room.mu.
type pen struct {
	holder     *leg   // the holder's live leg; nil while free or in grace
	holderUser string // the holder's identity, kept through the grace
	holderJTI  string
	gen        uint64
	changed    int64 // unix nanoseconds of the last change
	grace      *timer
	readOnly   bool // the host's read_only: no driver may take the pen
}

func (rm *room) penStateLocked() attachwire.PenState {
	return attachwire.PenState{HolderUserID: rm.pen.holderUser, HolderConnID: rm.pen.holderJTI, PenGeneration: rm.pen.gen,
		ReadOnly: rm.pen.readOnly}
}

// penJoinLocked runs when l joins: it is told the pen's state, and a
// driver takes the pen if it is free or keeps it if its jti held it.
func (rm *room) penJoinLocked(l *leg) {
	p := &rm.pen
	if l.role == attachwire.RoleDriver {
		switch {
		case p.holderJTI == l.jti && p.holder == nil:
			p.grace.stop()
			p.grace = nil
			p.holder = l
			rm.pushHolderSizeLocked()
		case p.holderJTI == "" && !p.readOnly && !l.propose:
			l.send(rm.penStateLocked())
			rm.grantLocked(l)
			return
		}
	}
	l.send(rm.penStateLocked())
}

// penLeaveLocked runs when l leaves: a holder's pen waits PenGrace for the
// same jti, then is released.
func (rm *room) penLeaveLocked(l *leg) {
	p := &rm.pen
	if p.holder != l {
		return
	}
	p.holder = nil
	jti := l.jti
	p.grace = rm.relay.afterFunc(rm.relay.cfg.PenGrace, func() {
		rm.mu.Lock()
		defer rm.mu.Unlock()
		if rm.pen.holder == nil && rm.pen.holderJTI == jti && !rm.closed {
			rm.pen.grace = nil
			rm.revokeLocked()
		}
	})
}

// grab is a leg's request for the pen.
func (rm *room) grab(l *leg) {
	if l.forwardRemote(clusterOp{Op: opGrab}) {
		return
	}
	rm.mu.Lock()
	defer rm.mu.Unlock()
	p := &rm.pen
	switch {
	case l.role != attachwire.RoleDriver:
		l.send(attachwire.ErrorControl{Code: attachwire.CodePenDenied, Message: "viewer legs cannot take the pen"})
	case p.holder == l:
		l.send(rm.penStateLocked())
	case l.propose:
		l.send(attachwire.ErrorControl{Code: attachwire.CodePenDenied, Retryable: true,
			Message: "your input needs approval: it is proposed, you cannot take the pen"})
	case p.readOnly:
		l.send(attachwire.ErrorControl{Code: attachwire.CodePenDenied, Message: "the host made the session read-only"})
	case rm.relay.cfg.Now().UnixNano()-p.changed < int64(rm.relay.cfg.PenCooldown):
		l.send(attachwire.ErrorControl{Code: attachwire.CodePenDenied, Message: "pen changed too recently", Retryable: true})
	default:
		rm.grantLocked(l)
	}
}

// release gives the pen back if l holds it.
func (rm *room) release(l *leg) {
	if l.forwardRemote(clusterOp{Op: opRelease}) {
		return
	}
	rm.mu.Lock()
	defer rm.mu.Unlock()
	if rm.pen.holder == l {
		rm.revokeLocked()
	}
}

// grantLocked hands the pen to l, revoking the current holder's.
func (rm *room) grantLocked(l *leg) {
	p := &rm.pen
	p.grace.stop()
	p.grace = nil
	p.gen++
	if p.holderJTI != "" {
		rm.broadcastLocked(attachwire.PenRevoked{UserID: p.holderUser, ConnID: p.holderJTI, PenGeneration: p.gen})
	}
	p.holder, p.holderUser, p.holderJTI = l, l.userID, l.jti
	p.changed = rm.relay.cfg.Now().UnixNano()
	rm.broadcastLocked(attachwire.PenGranted{UserID: l.userID, ConnID: l.jti, PenGeneration: p.gen})
	rm.recordPenLocked(l.userID)
	rm.pushHolderSizeLocked()
}

// revokeLocked frees the pen, also from a holder in its grace; a size of
// the holder's not yet sent to the host is dropped with it.
func (rm *room) revokeLocked() {
	p := &rm.pen
	p.grace.stop()
	p.grace = nil
	rm.resize = nil
	p.gen++
	rm.broadcastLocked(attachwire.PenRevoked{UserID: p.holderUser, ConnID: p.holderJTI, PenGeneration: p.gen})
	p.holder, p.holderUser, p.holderJTI = nil, "", ""
	p.changed = rm.relay.cfg.Now().UnixNano()
	rm.recordPenLocked("")
}

// inputVerdict is what consumeInput decided about one Input frame.
type inputVerdict struct {
	forward []byte // the stamped frame for the host, or nil
	ack     uint64 // the ack to send once the frame is consumed
	next    bool   // the frame is the connection's next inputSeq
	revoked bool   // dropped by the pen: tell the sender
	remote  bool   // the leg is registered with another node's room now: its Input goes there
}

// admitInput applies the ordering and the pen to an Input from l: only the
// connection's next inputSeq is consumed (a duplicate or a gap leaves the
// ack where it is); it is forwarded only if it carries the current
// penGeneration and comes from the holder's connection, stamped with the
// token's userId and header seq 0. The caller queues forward, then calls
// consumedInput. A leg its room registered with another node (a
// mirror's, or one handOffLocked registered since the caller looked) is
// told to send it there: the owner's pen judges it.
func (rm *room) admitInput(l *leg, in attachwire.Input) inputVerdict {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	if l.clusterID() != "" {
		return inputVerdict{remote: true}
	}
	last := rm.acks[l.jti]
	if in.InputSeq != last+1 {
		return inputVerdict{ack: last}
	}
	v := inputVerdict{ack: in.InputSeq, next: true}
	current := in.PenGeneration == rm.pen.gen || (l.penAlias != 0 && in.PenGeneration == l.penAlias && rm.pen.gen == l.penAliasAt)
	if !current || rm.pen.holder != l {
		v.revoked = true
		return v
	}
	in.UserID = l.userID
	wire, err := in.Frame(0, 0).MarshalBinary()
	if err != nil {
		return inputVerdict{ack: last}
	}
	v.forward = wire
	rm.admitting++
	return v
}

// consumedInput ends an admission: the frame admitted for the host, if
// any, was queued (or not: queued false, the leg ended first), and l's
// inputSeq is recorded as consumed unless a frame for the host was not
// queued.
func (rm *room) consumedInput(l *leg, v inputVerdict, queued bool) {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	if v.forward != nil {
		rm.admitting--
		if !queued {
			return
		}
	}
	if v.next && v.ack > rm.acks[l.jti] {
		rm.acks[l.jti] = v.ack
	}
}

// refusedInput tells a sender whose Input the pen dropped: a pen_revoked
// naming it. A sender that holds the pen (its Input carried a generation
// from before the pen's last change) is then sent the pen's state, or
// that notice, at the current generation, would leave it believing the
// pen is nobody's.
func (rm *room) refusedInput(l *leg) {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	l.send(attachwire.PenRevoked{UserID: l.userID, ConnID: l.jti, PenGeneration: rm.pen.gen})
	if rm.pen.holder == l {
		l.send(rm.penStateLocked())
	}
}
