package engine

import (
	"errors"
	"fmt"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/sanitize"
	"github.com/ptyhost/ptyhost/internal/inputcut"
	"github.com/ptyhost/ptyhost/internal/repaint"
)

// MaxPendingInputs and MaxPendingInputBytes bound the Input kept for
// resending until the relay acknowledges it: frames, and bytes of data.
const (
	MaxPendingInputs     = 4096
	MaxPendingInputBytes = 16 << 20
)

// maxInputChunk is the most data one Input frame carries (as package
// viewer's): a paste of any size goes as several frames in order, each
// far under the relay's limits on a viewer's message (1 MiB) and POST.
const maxInputChunk = 64 << 10

// Caps on the strings the page shows, in runes.
const (
	maxNameRunes    = 64
	maxMessageRunes = 200
	maxLabelRunes   = 256
)

// inputModesOff turns off the input-generating modes the Driver profile
// passes, for a leg that just lost the pen: the page's terminal then stops
// capturing the mouse and bracketing pastes for a program it no longer
// drives.
const inputModesOff = "\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1004l\x1b[?1005l\x1b[?1006l\x1b[?1015l\x1b[?2004l"

// Options configures an Engine. New copies it.
type Options struct {
	// SessionID is the room's session, sent in subscribe. Required.
	SessionID string
	// ConnID is this leg's connection id (the token's jti): a pen message
	// naming it means this leg. Empty: the leg never holds the pen.
	ConnID string
	// Driver subscribes as a driver (the token's role); false subscribes
	// as a viewer.
	Driver bool
	// MaxPendingBytes lowers the bound on the data awaiting an ack below
	// MaxPendingInputBytes (0 or more: that bound), so a test can reach it
	// with a small paste; it never raises it.
	MaxPendingBytes int
}

// Kind says what an Event asks of the page.
type Kind uint8

// Event kinds.
const (
	// Write: put Data into the terminal (sanitized bytes).
	Write Kind = iota + 1
	// Size: the terminal is now Cols x Rows (a snapshot's or an applied
	// Resize's size); Text is "snapshot" when a repaint follows.
	Size
	// Send: write Data to the socket as one binary message.
	Send
	// Room: the room's state is Text ("live", "host-reconnecting", ...).
	Room
	// Presence: Members is the full list of people in the room.
	Presence
	// Pen: Holding says whether this leg holds the pen; Text is the
	// holder's user id and Message its connection id, both empty when the
	// pen is free.
	Pen
	// Marker: Text is a marker's label.
	Marker
	// Exit: the session ended with Code; Text is the signal name, if any.
	Exit
	// Error: the relay sent error Text (the code) with Message; Retryable
	// as it said.
	Error
)

// Member is one person in the room, as the page shows them.
type Member struct {
	UserID  string
	ConnID  string
	Role    string
	Driving bool
}

// Event is one thing Apply asks the page to do or show.
type Event struct {
	Kind       Kind
	Data       []byte
	Cols, Rows int
	Text       string
	Message    string
	Code       uint32
	Retryable  bool
	Holding    bool
	Members    []Member
}

// Engine is the state of one browser leg. It is not safe for concurrent
// use.
type Engine struct {
	opt Options
	san *sanitize.Sanitizer

	synced     bool   // a snapshot has been applied: applied and epoch hold
	applied    uint64 // the last host seq applied
	epoch      uint64 // the epoch of the last applied snapshot
	refresh    bool   // the next snapshot repaints whatever its atSeq
	cols, rows int

	holding bool
	penGen  uint64
	members []Member

	nextInput uint64
	pending   []attachwire.Input
}

// New returns an Engine for opt.
func New(opt Options) *Engine {
	if opt.MaxPendingBytes <= 0 || opt.MaxPendingBytes > MaxPendingInputBytes {
		opt.MaxPendingBytes = MaxPendingInputBytes
	}
	return &Engine{opt: opt, san: sanitize.New(sanitize.Options{Profile: sanitize.Viewer})}
}

// Holding reports whether this leg holds the pen.
func (e *Engine) Holding() bool { return e.holding }

// Applied returns the last host seq applied and the epoch it belongs to;
// ok is false before the first snapshot.
func (e *Engine) Applied() (seq, epoch uint64, ok bool) { return e.applied, e.epoch, e.synced }

// Subscribe returns the messages that open a leg: the subscribe control
// (resuming from the last applied seq and epoch once a snapshot has been
// applied, else from null) with the viewport cols x rows when both are
// positive, then every Input not yet acknowledged.
func (e *Engine) Subscribe(cols, rows int) ([][]byte, error) {
	sub := attachwire.Subscribe{SessionID: e.opt.SessionID, AsRole: attachwire.RoleViewer}
	if e.opt.Driver {
		sub.AsRole = attachwire.RoleDriver
	}
	if e.synced {
		seq, ep := e.applied, e.epoch
		sub.ResumeFrom, sub.ResumeEpoch = &seq, &ep
	}
	if cols > 0 && rows > 0 {
		sub.Viewport = &attachwire.Viewport{Cols: uint32(cols), Rows: uint32(rows)}
	}
	msg, err := controlMessage(sub)
	if err != nil {
		return nil, err
	}
	pending, err := e.Pending(len(e.pending), 0)
	if err != nil {
		return nil, err
	}
	return append([][]byte{msg}, pending...), nil
}

// Pending returns the oldest n (at most) Input messages not yet
// acknowledged, in inputSeq order: contiguous, starting right after the
// last ack. With maxBytes > 0 it stops before the message that would take
// their total size past maxBytes, though it always returns the first (one
// message is at most maxInputChunk and a few bytes). The degraded lane
// builds each POST from them, bounded so the body stays under the relay's
// limit, and an input is carried by whichever batch or leg comes next
// until an ack covers it.
func (e *Engine) Pending(n, maxBytes int) ([][]byte, error) {
	n = max(0, min(n, len(e.pending)))
	out := make([][]byte, 0, n)
	size := 0
	for _, in := range e.pending[:n] {
		m, err := e.inputMessage(in)
		if err != nil {
			return nil, err
		}
		if size += len(m); maxBytes > 0 && size > maxBytes && len(out) > 0 {
			break
		}
		out = append(out, m)
	}
	return out, nil
}

// Input returns the Input messages carrying data, typed or pasted by the
// person at this page: one per maxInputChunk bytes, in order, so a paste
// of any size fits the relay's limits on every carrier. It returns nil
// when this leg does not hold the pen (keys typed without it go nowhere).
// When data would take the Input awaiting an ack past MaxPendingInputs or
// MaxPendingInputBytes (Options.MaxPendingBytes) it sends none of it (a paste goes whole or not at
// all) and returns an *InputFullError, which the page shows: the person
// must learn that what they typed or pasted did not go.
func (e *Engine) Input(data []byte) ([][]byte, error) {
	if !e.holding || len(data) == 0 {
		return nil, nil
	}
	var cuts []int // chunk lengths: never a cut inside a rune or a short escape sequence (inputcut)
	for rest := data; len(rest) > 0; {
		n := inputcut.Cut(rest, maxInputChunk)
		cuts = append(cuts, n)
		rest = rest[n:]
	}
	if pb := e.pendingBytes(); len(e.pending)+len(cuts) > MaxPendingInputs || pb+len(data) > e.opt.MaxPendingBytes {
		return nil, &InputFullError{Bytes: len(data), PendingBytes: pb, PendingInputs: len(e.pending), MaxBytes: e.opt.MaxPendingBytes}
	}
	out := make([][]byte, 0, len(cuts))
	for _, n := range cuts {
		e.nextInput++
		in := attachwire.Input{InputSeq: e.nextInput, PenGeneration: e.penGen, Data: append([]byte(nil), data[:n]...)}
		e.pending = append(e.pending, in)
		data = data[n:]
		if m, err := e.inputMessage(in); err == nil {
			out = append(out, m)
		}
	}
	return out, nil
}

// InputFullError is Input's refusal of input that would take what awaits
// the relay's ack past MaxPendingInputs or MaxPendingInputBytes. None of
// the input was sent.
type InputFullError struct {
	Bytes         int // the refused input's length
	PendingBytes  int // the data of the Input awaiting an ack
	PendingInputs int // the Input frames awaiting an ack
	MaxBytes      int // the bound on their data (MaxPendingInputBytes unless lowered)
}

func (e *InputFullError) Error() string {
	if e.Bytes > e.MaxBytes {
		return fmt.Sprintf("engine: input of %d bytes not sent: a paste may be at most %d bytes", e.Bytes, e.MaxBytes)
	}
	return fmt.Sprintf("engine: input of %d bytes not sent: %d bytes in %d inputs still await the relay's ack (at most %d bytes, %d inputs); try again once they are through",
		e.Bytes, e.PendingBytes, e.PendingInputs, e.MaxBytes, MaxPendingInputs)
}

// pendingBytes is the data of the Input awaiting an ack.
func (e *Engine) pendingBytes() int {
	n := 0
	for _, in := range e.pending {
		n += len(in.Data)
	}
	return n
}

// Viewport returns the Resize message advertising cols x rows, or nil
// when this leg does not hold the pen: only the holder's viewport sizes
// the session, so the others keep theirs to themselves.
func (e *Engine) Viewport(cols, rows int) []byte {
	if !e.holding || cols <= 0 || rows <= 0 {
		return nil
	}
	f, err := attachwire.Resize{Cols: uint32(cols), Rows: uint32(rows)}.Frame(0, 0)
	if err != nil {
		return nil
	}
	m, err := f.MarshalBinary()
	if err != nil {
		return nil
	}
	return m
}

// Grab returns the grab control.
func (e *Engine) Grab() []byte { m, _ := controlMessage(attachwire.Grab{}); return m }

// Release returns the release control.
func (e *Engine) Release() []byte { m, _ := controlMessage(attachwire.Release{}); return m }

// Apply decodes one binary message from the relay and returns what the
// page must do. A framing error is returned as an error wrapping the
// attachwire one: the page closes the leg (1002). An unknown control type
// is ignored, as the protocol asks.
func (e *Engine) Apply(msg []byte) ([]Event, error) {
	f, err := attachwire.DecodeFrame(msg)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	switch f.Type {
	case attachwire.TypeControl:
		return e.control(f)
	case attachwire.TypeSnapshot:
		return e.snapshot(f)
	}
	if !e.synced || (f.Seq != 0 && f.Seq <= e.applied) {
		return nil, nil
	}
	if f.Seq != 0 {
		e.applied = f.Seq
	}
	switch f.Type {
	case attachwire.TypeOutput:
		return []Event{{Kind: Write, Data: e.san.Append(nil, f.Payload)}}, nil
	case attachwire.TypeResize:
		r, err := attachwire.DecodeResize(f.Payload)
		if err != nil {
			return nil, fmt.Errorf("engine: %w", err)
		}
		return []Event{e.size(int(r.Cols), int(r.Rows))}, nil
	case attachwire.TypeMarker:
		m, err := attachwire.DecodeMarker(f.Payload)
		if err != nil {
			return nil, fmt.Errorf("engine: %w", err)
		}
		return []Event{{Kind: Marker, Text: sanitize.UIString(m.Label, maxLabelRunes)}}, nil
	case attachwire.TypeExit:
		x, err := attachwire.DecodeExit(f.Payload)
		if err != nil {
			return nil, fmt.Errorf("engine: %w", err)
		}
		return []Event{{Kind: Exit, Code: uint32(x.Code), Text: sanitize.UIString(x.Signal, maxNameRunes)}}, nil
	}
	return nil, nil // Input: never sent to a viewer; nothing to show
}

// snapshot applies a Snapshot keyed by its atSeq: it repaints when the
// leg has no base yet, asked for a refresh, crossed into another epoch or
// has a gap before it; a snapshot the leg has already passed is dropped,
// and one that continues the stream exactly only records its epoch.
func (e *Engine) snapshot(f attachwire.Frame) ([]Event, error) {
	snap, err := attachwire.DecodeSnapshot(f.Payload)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	scr, err := snap.DecodeScreen()
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	head := max(snap.AtSeq, f.Seq)
	repaintNeeded := !e.synced || e.refresh || scr.Epoch != e.epoch
	if !repaintNeeded {
		if snap.AtSeq < e.applied {
			if f.Seq > e.applied {
				e.applied = f.Seq
			}
			return nil, nil
		}
		repaintNeeded = snap.AtSeq > e.applied
	}
	e.applied, e.epoch, e.synced = head, scr.Epoch, true
	if !repaintNeeded {
		return nil, nil
	}
	e.refresh = false
	e.san.Reset()
	sz := e.size(scr.Cols, scr.Rows)
	sz.Text = "snapshot"
	paint := repaint.AppendScreen(nil, &scr, repaint.Options{Scrollback: true, InputModes: e.holding})
	return []Event{sz, {Kind: Write, Data: e.san.Append(nil, paint)}}, nil
}

func (e *Engine) size(cols, rows int) Event {
	e.cols, e.rows = cols, rows
	e.san.SetSize(cols, rows)
	return Event{Kind: Size, Cols: cols, Rows: rows}
}

// control applies one control from the relay.
func (e *Engine) control(f attachwire.Frame) ([]Event, error) {
	c, err := attachwire.DecodeControl(f.Payload)
	if errors.Is(err, attachwire.ErrUnknownControl) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	switch c := c.(type) {
	case attachwire.InputAck:
		return e.ack(c.AckInputSeq)
	case attachwire.PenGranted:
		return e.pen(c.ConnID == e.opt.ConnID && e.opt.ConnID != "", c.UserID, c.ConnID, c.PenGeneration)
	case attachwire.PenRevoked:
		holding := e.holding && c.ConnID != e.opt.ConnID
		return e.pen(holding, "", "", c.PenGeneration)
	case attachwire.PenState:
		return e.pen(c.HolderConnID == e.opt.ConnID && e.opt.ConnID != "", c.HolderUserID, c.HolderConnID, c.PenGeneration)
	case attachwire.Presence:
		e.presence(c)
		return []Event{{Kind: Presence, Members: append([]Member(nil), e.members...)}}, nil
	case attachwire.RoomState:
		return []Event{{Kind: Room, Text: sanitize.UIString(string(c.State), maxNameRunes)}}, nil
	case attachwire.ErrorControl:
		return []Event{{Kind: Error, Text: sanitize.UIString(string(c.Code), maxNameRunes),
			Message: sanitize.UIString(c.Message, maxMessageRunes), Retryable: c.Retryable}}, nil
	}
	return nil, nil
}

// pen records the pen's new state and switches the sanitizer's profile
// when this leg gains or loses it.
func (e *Engine) pen(holding bool, holder, holderConn string, gen uint64) ([]Event, error) {
	if gen < e.penGen {
		return nil, nil // an older message overtaken by a newer one
	}
	e.penGen = gen
	evs := []Event{{Kind: Pen, Holding: holding, Text: sanitize.UIString(holder, maxNameRunes),
		Message: sanitize.UIString(holderConn, maxNameRunes)}}
	if holding == e.holding {
		return evs, nil
	}
	e.holding = holding
	profile := sanitize.Viewer
	if holding {
		profile = sanitize.Driver
	}
	e.san = sanitize.New(sanitize.Options{Profile: profile})
	if e.cols > 0 && e.rows > 0 {
		e.san.SetSize(e.cols, e.rows)
	}
	if !holding {
		return append(evs, Event{Kind: Write, Data: []byte(inputModesOff)}), nil
	}
	// The Viewer profile dropped the program's input modes; a fresh
	// snapshot paints them.
	e.refresh = true
	m, err := controlMessage(attachwire.ResumeFrom{Seq: 0})
	if err != nil {
		return nil, err
	}
	return append(evs, Event{Kind: Send, Data: m}), nil
}

// ack drops the acknowledged inputs. An ack below the oldest pending
// inputSeq minus one means the relay lost this connection's sequence: the
// pending inputs are renumbered to follow the ack and sent again.
func (e *Engine) ack(a uint64) ([]Event, error) {
	i := 0
	for i < len(e.pending) && e.pending[i].InputSeq <= a {
		i++
	}
	e.pending = e.pending[i:]
	if len(e.pending) == 0 || e.pending[0].InputSeq <= a+1 {
		return nil, nil
	}
	var evs []Event
	for j := range e.pending {
		e.pending[j].InputSeq = a + 1 + uint64(j)
		e.pending[j].PenGeneration = e.penGen
		m, err := e.inputMessage(e.pending[j])
		if err != nil {
			return nil, err
		}
		evs = append(evs, Event{Kind: Send, Data: m})
	}
	e.nextInput = e.pending[len(e.pending)-1].InputSeq
	return evs, nil
}

func (e *Engine) presence(p attachwire.Presence) {
	if p.Op == attachwire.PresenceList {
		e.members = e.members[:0]
	}
	for _, m := range p.Members {
		e.members = removeConn(e.members, m.ConnID)
		if p.Op != attachwire.PresenceLeave {
			e.members = append(e.members, Member{
				UserID:  sanitize.UIString(m.UserID, maxNameRunes),
				ConnID:  sanitize.UIString(m.ConnID, maxNameRunes),
				Role:    sanitize.UIString(string(m.Role), maxNameRunes),
				Driving: m.Driving,
			})
		}
	}
}

func removeConn(ms []Member, conn string) []Member {
	conn = sanitize.UIString(conn, maxNameRunes)
	out := ms[:0]
	for _, m := range ms {
		if m.ConnID != conn {
			out = append(out, m)
		}
	}
	return out
}

func (e *Engine) inputMessage(in attachwire.Input) ([]byte, error) {
	return in.Frame(e.applied, 0).MarshalBinary()
}

func controlMessage(c attachwire.Control) ([]byte, error) {
	f, err := attachwire.ControlFrame(c)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	return f.MarshalBinary()
}
