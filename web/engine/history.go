package engine

import (
	"encoding/binary"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
)

// A sealed room's history (docs/relay.md, "History and rewind") is
// served as the relay holds it, sealed under the room key. A viewer
// rewinds and searches it where the key is: HistoryOpener opens each
// frame before it is applied or searched, so that nothing opened, and
// no text searched for, ever goes to the relay.

// The sentences that say why none of a history's frames would open: its
// index states another key than the viewer holds.
const (
	msgHistoryNeedsKey  = "the room is end-to-end encrypted: its history opens only with a link that carries its key"
	msgHistoryOtherKey  = "the history is sealed under another key (the room's key has changed): this link cannot read it"
	msgHistoryPlainRoom = "the room's history is not end-to-end encrypted, and this link expects it to be: it is not shown"
)

// HistoryKeyError is NewHistoryOpener's refusal of a history whose index
// states another key than the viewer holds: none of its frames would
// open. Message is the sentence to show.
type HistoryKeyError struct{ Message string }

// Error returns the sentence, prefixed with the package's name.
func (e *HistoryKeyError) Error() string { return "engine: " + e.Message }

// HistoryOpener opens the frames of one read of a room's history (a
// screen's key frame and what follows it, or the ranges a search reads),
// fed in order. In a sealed room a frame that fails to open (altered on
// the way, or sealed under a key the viewer does not hold) is counted
// and must be skipped: it is never drawn or searched. In a plain room
// frames pass as they are. It is not safe for concurrent use.
type HistoryOpener struct {
	room   *seal.Room
	epoch  uint64
	failed int
}

// NewHistoryOpener returns the opener of the history of session
// sessionID, given the room key key (nil: the viewer holds none) and
// what the history's index states: its frames' epoch and the key id
// they are sealed under ("" for a plain room). A history sealed under
// another key than key, sealed while key is nil, or plain while key is
// set (the viewer insists on sealed frames: a relay could make up plain
// ones) is a *HistoryKeyError.
func NewHistoryOpener(key *seal.Key, sessionID string, epoch uint64, sealed string) (*HistoryOpener, error) {
	switch {
	case key == nil && sealed == "":
		return &HistoryOpener{}, nil
	case key == nil:
		return nil, &HistoryKeyError{Message: msgHistoryNeedsKey}
	case sealed == "":
		return nil, &HistoryKeyError{Message: msgHistoryPlainRoom}
	case sealed != key.ID().String():
		return nil, &HistoryKeyError{Message: msgHistoryOtherKey}
	}
	return &HistoryOpener{room: seal.NewRoom(key, sessionID), epoch: epoch}, nil
}

// Open returns f opened; ok is false when it failed to open. A Snapshot
// opens under the epoch it states, which the frames after it then
// belong to, as on a live leg.
func (o *HistoryOpener) Open(f attachwire.Frame) (opened attachwire.Frame, ok bool) {
	if o.room == nil || !seal.Sealed(f.Type) {
		return f, true
	}
	opened, err := o.room.Open(f, o.epoch)
	if err != nil {
		o.failed++
		return f, false
	}
	if opened.Type == attachwire.TypeSnapshot {
		// The screen starts with its epoch, which Open checked against
		// the one the envelope states.
		if s, err := attachwire.DecodeSnapshot(opened.Payload); err == nil {
			if ep, n := binary.Uvarint(s.Screen); n > 0 {
				o.epoch = ep
			}
		}
	}
	return opened, true
}

// Failed returns how many frames have failed to open.
func (o *HistoryOpener) Failed() int { return o.failed }
