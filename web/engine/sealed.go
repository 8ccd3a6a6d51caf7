package engine

import (
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
)

// Sealed rooms (docs/protocol.md, section 8): with Options.Key the engine
// opens every sealed frame before applying it and seals the Input it
// makes. A frame that fails to open is dropped whole, never drawn: the
// person is told so in one line and a snapshot is asked for; failures
// that keep coming end the leg.

// CodeIntegrity is the Text of the Error events a frame that failed to
// open makes. It is the engine's, not a relay's error code.
const CodeIntegrity = "integrity"

// IntegrityLine is the Message of the Error event for one frame that
// failed to open.
const IntegrityLine = "a frame failed its integrity check; resynchronising"

// integrityFinal is the Message of the Final Error event that ends a leg
// whose frames keep failing to open.
const integrityFinal = "frames keep failing their integrity check: the relay, or something on the way, is not delivering the host's frames; the connection is closed"

// Failures end the leg when MaxOpenFailures of them come with fewer than
// openedToForgive frames opened after each: a relay that breaks frames
// now and then costs a resynchronisation each time, one that breaks them
// all the time costs the leg.
const (
	MaxOpenFailures = 3
	openedToForgive = 100
)

// opened opens f when the leg is sealed. ok false: f failed to open, and
// evs say so (and ask for a snapshot, or end the leg).
func (e *Engine) opened(f attachwire.Frame) (o attachwire.Frame, evs []Event, ok bool) {
	if e.room == nil || !seal.Sealed(f.Type) {
		return f, nil, true
	}
	o, err := e.room.Open(f, e.epoch)
	if err != nil && f.Type == attachwire.TypeSnapshot && f.Seq == 0 {
		o, err = e.openFinal(f)
	}
	if err == nil {
		if e.openedSince++; e.openedSince >= openedToForgive {
			e.openFailures = 0
		}
		return o, nil, true
	}
	e.openFailures++
	e.openedSince = 0
	if e.openFailures >= MaxOpenFailures {
		return f, []Event{{Kind: Error, Text: CodeIntegrity, Message: integrityFinal, Final: true}}, false
	}
	// Frames after this one wait (a gap) for the snapshot, which repaints
	// whatever its position.
	e.resyncing, e.refresh = true, true
	return f, []Event{
		{Kind: Error, Text: CodeIntegrity, Message: IntegrityLine, Retryable: true},
		{Kind: Send, Frame: controlFrame(attachwire.ResumeFrom{Seq: 0})},
	}, false
}

// openFinal opens a seq-0 snapshot that did not open at its atSeq A as
// the post-Exit snapshot the host sealed, which is bound to A-1 (the
// relay serves it re-encoded there, the Exit frame after it). One that
// comes as the host sent it (a relay that lost the Exit frame) opens
// there and shows A-1, so the leg goes on to wait for the Exit at A
// instead of failing the frame or ending without the session's status.
// Opening it at A-1 claims no more than the host sealed.
func (e *Engine) openFinal(f attachwire.Frame) (attachwire.Frame, error) {
	s, err := attachwire.DecodeSnapshot(f.Payload)
	if err != nil || s.AtSeq == 0 {
		return f, seal.ErrOpen
	}
	s.AtSeq--
	if f.Payload, err = attachwire.AppendSnapshot(nil, s); err != nil {
		return f, seal.ErrOpen
	}
	return e.room.Open(f, e.epoch)
}

// inputFrame frames in for the relay, sealed in a sealed room under the
// epoch of the screen it was typed on.
func (e *Engine) inputFrame(in attachwire.Input) attachwire.Frame {
	f := in.Frame(e.applied, 0)
	if e.room == nil {
		return f
	}
	sf, err := e.room.Seal(f, e.epoch)
	if err != nil {
		// Sealing a well-formed Input cannot fail; were it to, nothing
		// of it goes in the clear.
		return attachwire.Frame{Type: attachwire.TypeInput, Seq: f.Seq}
	}
	return sf
}

// KeyID is the key id of a sealed room's leg, as its subscribe states
// it (and a degraded-lane leg its ?sealed=), "" for a plain room.
func (e *Engine) KeyID() string {
	if e.room == nil {
		return ""
	}
	return e.room.Key().ID().String()
}

// holdInput reports whether Input must wait for a screen: a sealed
// room's Input is sealed under the epoch of the screen it was typed on,
// and before the first snapshot there is none (keys typed as a leg
// opens, with the pen already granted).
func (e *Engine) holdInput() bool { return e.room != nil && !e.synced }

// heldInputs is called as a snapshot is about to be applied; the
// function it returns, called once it is, gives the Send events of the
// Input held for want of a screen.
func (e *Engine) heldInputs() func() []Event {
	if !e.holdInput() || len(e.pending) == 0 {
		return func() []Event { return nil }
	}
	return func() []Event {
		evs := make([]Event, 0, len(e.pending))
		for _, in := range e.pending {
			evs = append(evs, Event{Kind: Send, Frame: e.inputFrame(in)})
		}
		return evs
	}
}
