package share

import (
	"slices"
	"sync"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/status"
)

// People is what the sharer knows of the room's people, from the
// relay's presence and pen controls to the host leg: who is here, in
// the order they came, who holds the pen, and whether the session is
// read-only. It is safe for concurrent use.
type People struct {
	mu       sync.Mutex
	members  []attachwire.Member
	penConn  string
	penUser  string
	penKnown bool
	readOnly bool
}

// Change is what one control changed, for the sharer's status line.
type Change struct {
	// Text says it in a few words ("Ada (guest) joined"); empty when
	// nothing worth a word changed (a list that says what was known).
	Text string
	// RestoreSize reports that nobody drives from afar any more (the pen
	// was released or revoked, or its holder left): the session should
	// take the sharer's own terminal size again, at once.
	RestoreSize bool
}

// Apply takes one control the relay sent the host and returns what it
// changed; controls other than presence and the pen's change nothing.
func (p *People) Apply(c attachwire.Control) Change {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch c := c.(type) {
	case attachwire.Presence:
		return p.presenceLocked(c)
	case attachwire.PenGranted:
		p.penKnown, p.penConn, p.penUser = true, c.ConnID, c.UserID
		return Change{Text: p.labelLocked(c.ConnID, c.UserID) + " has the pen"}
	case attachwire.PenRevoked:
		if c.ConnID != p.penConn {
			return Change{} // an older holder's, already replaced
		}
		held := p.penConn != ""
		p.penKnown, p.penConn, p.penUser = true, "", ""
		if !held {
			return Change{}
		}
		return Change{Text: "the pen is back with you", RestoreSize: true}
	case attachwire.PenState:
		ch := Change{}
		if c.ReadOnly != p.readOnly {
			ch.Text = "read-only off: drivers may take the pen"
			if c.ReadOnly {
				ch.Text = "read-only: no one else may type"
			}
		}
		was := p.penConn
		p.penKnown, p.penConn, p.penUser, p.readOnly = true, c.HolderConnID, c.HolderUserID, c.ReadOnly
		ch.RestoreSize = was != "" && c.HolderConnID == ""
		return ch
	}
	return Change{}
}

// presenceLocked applies a presence control.
func (p *People) presenceLocked(c attachwire.Presence) Change {
	switch c.Op {
	case attachwire.PresenceList:
		p.members = slices.Clone(c.Members)
		return Change{}
	case attachwire.PresenceJoin:
		var ch Change
		for _, m := range c.Members {
			p.members = slices.DeleteFunc(p.members, func(o attachwire.Member) bool { return o.ConnID == m.ConnID })
			p.members = append(p.members, m)
			ch.Text = status.Label(m, p.members) + " joined (" + roleWord(m.Role) + ")"
		}
		return ch
	case attachwire.PresenceLeave:
		var ch Change
		for _, m := range c.Members {
			label := status.Label(m, p.members)
			p.members = slices.DeleteFunc(p.members, func(o attachwire.Member) bool { return o.ConnID == m.ConnID })
			ch.Text = label + " left"
			if m.ConnID != "" && m.ConnID == p.penConn {
				// The relay keeps the pen for the holder's return a
				// while; the sharer's size counts meanwhile.
				ch.RestoreSize = true
			}
		}
		return ch
	}
	return Change{}
}

// roleWord names a role in a join notice.
func roleWord(r attachwire.Role) string {
	if r == attachwire.RoleDriver {
		return "may drive"
	}
	return "watching"
}

// labelLocked is how the member with connID is shown, or user's name
// when it is not (or no longer) in the list.
func (p *People) labelLocked(connID, user string) string {
	for _, m := range p.members {
		if m.ConnID == connID {
			return status.Label(m, p.members)
		}
	}
	return status.Name(user, status.MaxName)
}

// Members returns who is here, in the order they came.
func (p *People) Members() []attachwire.Member {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.members)
}

// Status returns the sharer's status line state: live, the pen (the
// sharer's own while nobody else holds it), read-only, and who is here.
func (p *People) Status() status.State {
	p.mu.Lock()
	defer p.mu.Unlock()
	return status.State{
		Link: status.Connected, Room: attachwire.RoomLive,
		PenKnown: true, PenMine: p.penConn == "", PenConn: p.penConn, PenUser: p.penUser,
		ReadOnly: p.readOnly, Members: slices.Clone(p.members), Sharer: true,
	}
}

// ReadOnly reports whether the session is read-only.
func (p *People) ReadOnly() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.readOnly
}

// Driving reports whether someone other than the sharer holds the pen.
func (p *People) Driving() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.penConn != ""
}
