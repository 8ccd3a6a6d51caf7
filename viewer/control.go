package viewer

import (
	"errors"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/sanitize"
)

// applyControl handles a control from the relay.
func (c *Client) applyControl(p []byte) error {
	ctl, err := attachwire.DecodeControl(p)
	if errors.Is(err, attachwire.ErrUnknownControl) {
		return nil // a newer relay's control: soft
	}
	if err != nil {
		return err
	}
	switch ctl := ctl.(type) {
	case attachwire.InputAck:
		c.mu.Lock()
		c.in.ack(ctl.AckInputSeq)
		c.poke() // a renumbered queue is due again
		c.mu.Unlock()
	case attachwire.PenGranted:
		c.setPen(ctl.UserID, ctl.ConnID, ctl.PenGeneration)
	case attachwire.PenRevoked:
		// The revoked holder no longer holds it; who does comes next.
		c.setPen("", "", ctl.PenGeneration)
	case attachwire.PenState:
		c.setPen(ctl.HolderUserID, ctl.HolderConnID, ctl.PenGeneration)
	case attachwire.Presence:
		c.applyPresence(ctl)
	case attachwire.RoomState:
		c.applyRoom(ctl)
	case attachwire.ErrorControl:
		msg := sanitize.UIString(ctl.Message, maxUIRunes)
		if !ctl.Retryable && ctl.Code != attachwire.CodeHostLost && ctl.Code != attachwire.CodeHostStillAbsent &&
			ctl.Code != attachwire.CodeBackpressure && ctl.Code != attachwire.CodeRelayRestarting {
			return &RefusedError{Code: ctl.Code, Message: msg}
		}
		c.emit(Event{Kind: EventNotice, Code: ctl.Code, Text: msg})
	}
	return nil
}

// setPen records the pen and switches the sanitizer's profile when this
// leg starts or stops holding it.
func (c *Client) setPen(user, conn string, gen uint64) {
	c.mu.Lock()
	if gen < c.pen.Generation {
		c.mu.Unlock()
		return // an older message than the one already applied
	}
	mine := conn != "" && conn == c.claims.JTI
	c.pen = Pen{HolderUserID: sanitize.UIString(user, maxUIRunes), HolderConnID: conn, Generation: gen, Mine: mine}
	pen := c.pen
	cols, rows := 0, 0
	if c.mirror.emu != nil {
		cols, rows = c.mirror.emu.Size()
	}
	c.poke() // Input waiting for the new generation
	c.mu.Unlock()
	if mine != c.sanDriver {
		c.resetSanitizer(mine, cols, rows)
	}
	c.emit(Event{Kind: EventPen, Pen: pen})
}

func (c *Client) applyPresence(p attachwire.Presence) {
	c.mu.Lock()
	switch p.Op {
	case attachwire.PresenceList:
		c.members = c.members[:0]
		fallthrough
	case attachwire.PresenceJoin:
		for _, m := range p.Members {
			c.members = removeConn(c.members, m.ConnID)
			m.UserID = sanitize.UIString(m.UserID, maxUIRunes)
			c.members = append(c.members, m)
		}
	case attachwire.PresenceLeave:
		for _, m := range p.Members {
			c.members = removeConn(c.members, m.ConnID)
		}
	}
	members := append([]attachwire.Member(nil), c.members...)
	c.mu.Unlock()
	c.emit(Event{Kind: EventPresence, Members: members})
}

func removeConn(ms []attachwire.Member, conn string) []attachwire.Member {
	out := ms[:0]
	for _, m := range ms {
		if m.ConnID != conn {
			out = append(out, m)
		}
	}
	return out
}

// applyRoom records the room's state. "ended" ends the Client once the
// mirror holds the stream's last frame: a relay that serves a viewer
// joining after Exit only the post-Exit Snapshot (at the Exit's seq) never
// sends it the Exit frame. (Ours serves that screen at the seq before Exit
// and the Exit frame after it, which ends the Client with the status.)
func (c *Client) applyRoom(rs attachwire.RoomState) {
	c.mu.Lock()
	c.room = rs.State
	c.endedAt = nil
	if rs.State == attachwire.RoomEnded {
		at := uint64(0)
		if rs.SinceSeq != nil {
			at = *rs.SinceSeq
		}
		c.endedAt = &at
	}
	c.checkEndedLocked()
	c.mu.Unlock()
	c.emit(Event{Kind: EventRoom, Room: rs.State})
}

// checkEndedLocked ends the Client once the room has ended and the mirror
// holds the stream up to its end. c.mu is held.
func (c *Client) checkEndedLocked() {
	if c.endedAt != nil && c.mirror.has && c.mirror.last >= *c.endedAt {
		c.ended, c.closeLeg = true, true
	}
}
