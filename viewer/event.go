package viewer

import (
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/web/engine"
)

// EventKind says what an Event reports and which of its fields are set.
type EventKind uint8

// Event kinds.
const (
	// EventSnapshot: the mirror was replaced by Screen, which shows every
	// frame up to Seq. A terminal showing the session repaints it.
	EventSnapshot EventKind = iota + 1
	// EventOutput: Data is the Output frame Seq, through this leg's
	// sanitizer, to be written to the terminal that shows the session.
	EventOutput
	// EventResize: the host applied Cols×Rows at Seq.
	EventResize
	// EventMarker: a marker at Seq; Text is its label, made displayable.
	EventMarker
	// EventExit: the session ended at Seq with Exit.
	EventExit
	// EventPen: the pen changed (or was reported); Pen is the new state.
	EventPen
	// EventPresence: the members changed; Members is the full list now.
	EventPresence
	// EventRoom: the room's state, Room.
	EventRoom
	// EventNotice: the relay reported an error that does not end the
	// Client (host-lost, backpressure, ...): Code and Text.
	EventNotice
	// EventConnection: a leg came up (Connected) or went down (Err says
	// why; the Client redials).
	EventConnection
	// EventProposal: an input proposal was announced or decided;
	// Proposal is its state now (Client.Decide decides one).
	EventProposal
)

// Event is one thing the Client learned. Which fields are set depends on
// Kind. Data and Screen belong to the receiver. An Event is a plain value,
// not shared with the Client once handed over.
type Event struct {
	Kind      EventKind
	Seq       uint64
	Data      []byte
	Screen    *attachwire.Screen
	Cols      int
	Rows      int
	Text      string
	Code      attachwire.ErrorCode
	Exit      attachwire.Exit
	Pen       Pen
	Members   []attachwire.Member
	Room      attachwire.RoomStatus
	Connected bool
	// Lane is set with Connected when the leg rides the degraded lane
	// (SSE down, POST up) rather than a WebSocket.
	Lane     bool
	Err      error
	Proposal *Proposal
}

// Proposal is an input proposal as a viewer shows it (docs/protocol.md
// §6, "Input proposals"): its Visible text is safe to print, its Input
// is for an editor only.
type Proposal = engine.Proposal

// Pen is who holds the pen, as last reported by the relay. It is a plain
// value.
type Pen struct {
	// HolderUserID and HolderConnID name the holder (empty: nobody); the
	// user id is made displayable.
	HolderUserID, HolderConnID string
	// Generation is the pen generation Input is stamped with.
	Generation uint64
	// Mine reports that this Client's leg holds the pen.
	Mine bool
}
