package engine

import (
	"errors"
	"fmt"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/sanitize"
	"github.com/ptyhost/ptyhost/attachwire/seal"
	"github.com/ptyhost/ptyhost/internal/inputcut"
	"github.com/ptyhost/ptyhost/internal/repaint"
)

// MaxPendingInputs and MaxPendingInputBytes bound the Input kept for
// resending until the relay acknowledges it: frames, and bytes of data.
const (
	MaxPendingInputs     = 4096
	MaxPendingInputBytes = 16 << 20
)

// MaxScreenCols, MaxScreenRows and MaxScreenCells bound the terminal size
// a viewer takes from a Resize, whatever it is sent: a relay bounds a
// host's size (4096 in either dimension by default), but a viewer
// allocates a screen, and a page a terminal, of what it is told, and a
// hostile or broken peer could ask for 65535 x 65535. Past a bound the
// size is clamped (rows first, to keep whole lines), and the screen the
// viewer shows is that much smaller than the host's.
const (
	MaxScreenCols  = 4096
	MaxScreenRows  = 4096
	MaxScreenCells = 1 << 20
)

// boundedSize clamps a Resize's size to MaxScreenCols, MaxScreenRows and
// MaxScreenCells.
func boundedSize(cols, rows uint32) (int, int) {
	c := int(min(cols, MaxScreenCols))
	r := int(min(rows, MaxScreenRows))
	return c, min(r, MaxScreenCells/c)
}

// maxInputChunk is the most data one Input frame carries: a paste of any
// size goes as several frames in order, each far under the relay's limits
// on a viewer's message (1 MiB) and POST.
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
	// as a viewer. SetDriver changes it.
	Driver bool
	// MaxPendingBytes lowers the bound on the data awaiting an ack below
	// MaxPendingInputBytes (0 or more: that bound); it never raises it.
	MaxPendingBytes int
	// Mirror is set by a caller that keeps the session's screen itself
	// from the events (Event.Screen, Event.Raw, a Resize's Size) and
	// paints from it: a snapshot is reported as a Size event carrying its
	// Screen instead of a repaint, and a change of pen neither asks for a
	// fresh snapshot nor writes the input modes off, since that screen
	// holds them. False (the page): the Write events are all there is.
	Mirror bool
	// Key, when not nil, is the room key of a sealed room (docs/protocol.md,
	// section 8), from the link's fragment: the subscribe states its key
	// id, sealed frames are opened before they are applied (one that does
	// not open is dropped, never drawn) and Input is sealed.
	Key *seal.Key
}

// Kind says what an Event asks of the caller.
type Kind uint8

// Event kinds.
const (
	// Write: put Data into the terminal (sanitized bytes). Seq and Raw are
	// set when it is an Output frame's.
	Write Kind = iota + 1
	// Size: the terminal is now Cols x Rows. Text is "snapshot" when a
	// snapshot showing the stream up to Seq was applied (its repaint
	// follows, or with Options.Mirror its Screen is set); otherwise the
	// Resize frame Seq was applied, its pixel size in PxWidth x PxHeight.
	Size
	// Send: send Frame to the relay (resume_from, or an Input again after
	// the relay lost its count).
	Send
	// Room: the room's state is Text ("live", "host-reconnecting", ...).
	Room
	// Presence: Members is the full list of people in the room.
	Presence
	// Pen: Holding says whether this leg holds the pen; Text is the
	// holder's user id and Message its connection id, both empty when the
	// pen is free; PenGeneration is the pen's generation.
	Pen
	// Marker: Text is the label of the marker at Seq.
	Marker
	// Exit: the session ended at Seq with Code; Text is the signal name,
	// if any.
	Exit
	// Error: the relay sent error Text (the code) with Message, Retryable
	// as it said. Final: the relay turned this leg away for good; a new
	// leg would be refused too.
	Error
	// ProposalChanged: an input proposal was announced or decided;
	// Proposal is its state now (proposal.go).
	ProposalChanged
)

// Member is one person in the room, as the page shows them: Name is the
// display name the token carries (empty: none) and Guest marks a name a
// guest typed.
type Member struct {
	UserID  string
	ConnID  string
	Role    string
	Driving bool
	Name    string
	Guest   bool
}

// Event is one thing the Engine asks the caller to do or show. Which
// fields are set depends on Kind.
type Event struct {
	Kind Kind
	// Seq is the host seq of the stream frame the event comes from.
	Seq  uint64
	Data []byte
	// Raw is an Output frame's payload as the host sent it, for a caller
	// that keeps its own screen; never for a terminal.
	Raw    []byte
	Screen *attachwire.Screen
	Frame  attachwire.Frame

	Cols, Rows        int
	PxWidth, PxHeight int
	Text              string
	Message           string
	Code              uint32
	PenGeneration     uint64
	Retryable         bool
	Final             bool
	Holding           bool
	Members           []Member
	Proposal          *Proposal
}

// Engine is the state of one viewer or driver leg. It is not safe for
// concurrent use.
type Engine struct {
	opt Options
	san *sanitize.Sanitizer

	synced     bool   // a snapshot has been applied: applied and epoch hold
	applied    uint64 // the last host seq applied
	epoch      uint64 // the epoch of the last applied snapshot
	echo       attachwire.EchoMode
	refresh    bool // the next snapshot repaints whatever its atSeq
	resyncing  bool // a gap was seen: frames wait for the answer to resume_from
	cols, rows int

	endKnown bool   // the room reported "ended"
	endAt    uint64 // ... at this seq
	ended    bool

	holding bool
	penGen  uint64
	members []Member

	nextInput uint64 // the last inputSeq assigned
	acked     uint64 // the last ack
	pending   []attachwire.Input

	// room seals and opens a sealed room's frames (sealed.go); nil in a
	// plain room. openFailures counts frames that failed to open, forgiven
	// once openedSince frames have opened after the last.
	room         *seal.Room
	openFailures int
	openedSince  int
}

// New returns an Engine for opt.
func New(opt Options) *Engine {
	if opt.MaxPendingBytes <= 0 || opt.MaxPendingBytes > MaxPendingInputBytes {
		opt.MaxPendingBytes = MaxPendingInputBytes
	}
	e := &Engine{opt: opt, san: sanitize.New(sanitize.Options{Profile: sanitize.Viewer})}
	if opt.Key != nil {
		e.room = seal.NewRoom(opt.Key, opt.SessionID)
	}
	return e
}

// Holding reports whether this leg holds the pen.
func (e *Engine) Holding() bool { return e.holding }

// Applied returns the last host seq applied and the epoch it belongs to;
// ok is false before the first snapshot.
func (e *Engine) Applied() (seq, epoch uint64, ok bool) { return e.applied, e.epoch, e.synced }

// Echo returns the PTY's echo flag as the last applied snapshot gave it.
func (e *Engine) Echo() attachwire.EchoMode { return e.echo }

// Ended reports whether the session has ended: its Exit frame was
// applied, or the room reported "ended" and the stream up to that point
// was applied (a relay may serve a late joiner the final screen without
// the Exit frame).
func (e *Engine) Ended() bool { return e.ended }

// SetDriver sets the role the next Subscribe asks for.
func (e *Engine) SetDriver(driver bool) { e.opt.Driver = driver }

// Subscribe returns the frames that open a leg: the subscribe control
// (resuming from the last applied seq and epoch once a snapshot has been
// applied, else from null) with the viewport cols x rows when both are
// positive, then every Input not yet acknowledged.
func (e *Engine) Subscribe(cols, rows int) ([]attachwire.Frame, error) {
	sub := attachwire.Subscribe{SessionID: e.opt.SessionID, AsRole: attachwire.RoleViewer, Sealed: e.KeyID()}
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
	f, err := attachwire.ControlFrame(sub)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	e.resyncing = false // the leg resumes from applied
	pending, _ := e.Pending(len(e.pending), 0)
	return append([]attachwire.Frame{f}, pending...), nil
}

// Pending returns the oldest n (at most) Input frames not yet
// acknowledged, in inputSeq order, and the inputSeq of the first: they
// are contiguous, starting right after the last ack. With maxBytes > 0 it
// stops before the frame that would take their encoded size past
// maxBytes, though it always returns the first (one is at most
// maxInputChunk and a few bytes). The degraded lane builds each POST from
// them, and an input is carried by whichever batch or leg comes next
// until an ack covers it.
func (e *Engine) Pending(n, maxBytes int) (frames []attachwire.Frame, first uint64) {
	n = max(0, min(n, len(e.pending)))
	if n == 0 || e.holdInput() {
		return nil, 0
	}
	frames = make([]attachwire.Frame, 0, n)
	size := 0
	for _, in := range e.pending[:n] {
		f := e.inputFrame(in)
		if size += f.EncodedLen(); maxBytes > 0 && size > maxBytes && len(frames) > 0 {
			break
		}
		frames = append(frames, f)
	}
	return frames, e.pending[0].InputSeq
}

// Input returns the Input frames carrying data, typed or pasted by the
// person at this leg: one per maxInputChunk bytes, in order, cut never
// inside a rune or a short escape sequence (internal/inputcut), so a
// paste of any size fits the relay's limits on every carrier. It returns
// nil when this leg does not hold the pen (keys typed without it go
// nowhere). Each is stamped with the pen generation it was typed under,
// so that the relay drops it if the pen changed hands before it arrived.
// When data would take the Input awaiting an ack past MaxPendingInputs
// or the bound on bytes it queues none of it (a paste goes whole or not
// at all) and returns an *InputFullError: the person must learn that
// what they typed or pasted did not go.
func (e *Engine) Input(data []byte) ([]attachwire.Frame, error) {
	if !e.holding || len(data) == 0 {
		return nil, nil
	}
	var cuts []int // chunk lengths
	for rest := data; len(rest) > 0; {
		n := inputcut.Cut(rest, maxInputChunk)
		cuts = append(cuts, n)
		rest = rest[n:]
	}
	if pb := e.pendingBytes(); len(e.pending)+len(cuts) > MaxPendingInputs || pb+len(data) > e.opt.MaxPendingBytes {
		return nil, &InputFullError{Bytes: len(data), PendingBytes: pb, PendingInputs: len(e.pending), MaxBytes: e.opt.MaxPendingBytes}
	}
	out := make([]attachwire.Frame, 0, len(cuts))
	for _, n := range cuts {
		e.nextInput++
		in := attachwire.Input{InputSeq: e.nextInput, PenGeneration: e.penGen, Data: append([]byte(nil), data[:n]...)}
		e.pending = append(e.pending, in)
		data = data[n:]
		out = append(out, e.inputFrame(in))
	}
	if e.holdInput() {
		return nil, nil // sent once a screen has come (heldInputs)
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

// Viewport returns the Resize frame advertising cols x rows; ok is false
// when either is not positive. The pen holder's viewport sizes the
// session; the relay keeps anyone else's for when they take the pen.
func (e *Engine) Viewport(cols, rows int) (f attachwire.Frame, ok bool) {
	if cols <= 0 || rows <= 0 || cols > attachwire.MaxScreenDim || rows > attachwire.MaxScreenDim {
		return attachwire.Frame{}, false
	}
	f, err := attachwire.Resize{Cols: uint32(cols), Rows: uint32(rows)}.Frame(0, 0)
	return f, err == nil
}

// Grab returns the grab control.
func (e *Engine) Grab() attachwire.Frame { return controlFrame(attachwire.Grab{}) }

// Release returns the release control.
func (e *Engine) Release() attachwire.Frame { return controlFrame(attachwire.Release{}) }

// Ping returns the ping control, which a caller sends when it has heard
// nothing from the relay for a while: the relay's pong proves the path
// alive in both directions (a page cannot send WebSocket pings, and the
// lane has none). A pong is applied as a frame like any other and changes
// nothing.
func (e *Engine) Ping() attachwire.Frame { return controlFrame(attachwire.Ping{}) }

// Apply decodes one binary message from the relay and applies it
// (ApplyFrame).
func (e *Engine) Apply(msg []byte) ([]Event, error) {
	f, err := attachwire.DecodeFrame(msg)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	return e.ApplyFrame(f)
}

// ApplyFrame applies one frame from the relay and returns what the
// caller must do. A framing error is returned as an error wrapping the
// attachwire one: the caller closes the leg (1002). An unknown control
// type is ignored, as the protocol asks.
func (e *Engine) ApplyFrame(f attachwire.Frame) ([]Event, error) {
	evs, err := e.frame(f)
	if e.endKnown && e.synced && e.applied >= e.endAt {
		e.ended = true
	}
	return evs, err
}

func (e *Engine) frame(f attachwire.Frame) ([]Event, error) {
	switch f.Type {
	case attachwire.TypeControl:
		return e.control(f)
	case attachwire.TypeSnapshot:
		return e.snapshot(f)
	case attachwire.TypeInput:
		return nil, nil // never sent to a viewer; nothing to show
	}
	if !e.synced || f.Seq <= e.applied {
		return nil, nil
	}
	if f.Seq > e.applied+1 {
		// A conformant relay never makes a gap, but a screen that skipped
		// frames would be wrong for good: ask once to resume from here,
		// and let frames wait for the missing one or a snapshot.
		if e.resyncing {
			return nil, nil
		}
		e.resyncing = true
		ep := e.epoch
		return []Event{{Kind: Send, Frame: controlFrame(attachwire.ResumeFrom{Seq: e.applied, Epoch: &ep})}}, nil
	}
	e.resyncing = false
	f, evs, ok := e.opened(f)
	if !ok {
		return evs, nil
	}
	e.applied = f.Seq
	switch f.Type {
	case attachwire.TypeOutput:
		return []Event{{Kind: Write, Seq: f.Seq, Data: e.san.Append(nil, f.Payload), Raw: f.Payload}}, nil
	case attachwire.TypeResize:
		r, err := attachwire.DecodeResize(f.Payload)
		if err != nil {
			return nil, fmt.Errorf("engine: %w", err)
		}
		ev := e.size(boundedSize(r.Cols, r.Rows))
		ev.Seq, ev.PxWidth, ev.PxHeight = f.Seq, int(r.PxWidth), int(r.PxHeight)
		return []Event{ev}, nil
	case attachwire.TypeMarker:
		m, err := attachwire.DecodeMarker(f.Payload)
		if err != nil {
			return nil, fmt.Errorf("engine: %w", err)
		}
		return []Event{{Kind: Marker, Seq: f.Seq, Text: sanitize.UIString(m.Label, maxLabelRunes)}}, nil
	case attachwire.TypeExit:
		x, err := attachwire.DecodeExit(f.Payload)
		if err != nil {
			return nil, fmt.Errorf("engine: %w", err)
		}
		e.ended = true
		return []Event{{Kind: Exit, Seq: f.Seq, Code: x.Code, Text: sanitize.UIString(x.Signal, maxNameRunes)}}, nil
	}
	return nil, nil
}

// snapshot applies a Snapshot keyed by its atSeq: it repaints when the
// leg has no base yet, asked for a refresh, crossed into another epoch or
// has a gap before it; a snapshot the leg has already passed is dropped,
// and one that continues the stream exactly only records its position
// (the screen already shows it, with more: the pen, margins, charsets).
func (e *Engine) snapshot(f attachwire.Frame) ([]Event, error) {
	f, evs, ok := e.opened(f)
	if !ok {
		return evs, nil
	}
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
	held := e.heldInputs()
	e.applied, e.epoch, e.echo, e.synced, e.resyncing = head, scr.Epoch, scr.Echo, true, false
	evs = append(evs, held()...)
	if !repaintNeeded {
		return evs, nil
	}
	e.refresh = false
	e.san.Reset()
	sz := e.size(scr.Cols, scr.Rows)
	sz.Text, sz.Seq = "snapshot", head
	if e.opt.Mirror {
		sz.Screen = &scr
		return append([]Event{sz}, evs...), nil
	}
	paint := repaint.AppendScreen(nil, &scr, repaint.Options{Scrollback: true, InputModes: e.holding})
	return append([]Event{sz, {Kind: Write, Data: e.san.Append(nil, paint)}}, evs...), nil
}

func (e *Engine) size(cols, rows int) Event {
	e.cols, e.rows = cols, rows
	e.san.SetSize(cols, rows)
	return Event{Kind: Size, Cols: cols, Rows: rows}
}

// softErrors are the error codes that do not turn a leg away for good,
// whatever their retryable flag says: the relay closes the leg (or goes
// on) and a new leg is served.
var softErrors = map[attachwire.ErrorCode]bool{
	attachwire.CodeRingMiss: true, attachwire.CodeHostLost: true, attachwire.CodeHostStillAbsent: true,
	attachwire.CodeBackpressure: true, attachwire.CodeRelayRestarting: true,
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
		return e.Ack(c.AckInputSeq), nil
	case attachwire.PenGranted:
		return e.pen(c.ConnID == e.opt.ConnID && e.opt.ConnID != "", c.UserID, c.ConnID, c.PenGeneration), nil
	case attachwire.PenRevoked:
		holding := e.holding && c.ConnID != e.opt.ConnID
		return e.pen(holding, "", "", c.PenGeneration), nil
	case attachwire.PenState:
		return e.pen(c.HolderConnID == e.opt.ConnID && e.opt.ConnID != "", c.HolderUserID, c.HolderConnID, c.PenGeneration), nil
	case attachwire.Presence:
		e.presence(c)
		return []Event{{Kind: Presence, Members: append([]Member(nil), e.members...)}}, nil
	case attachwire.RoomState:
		e.endKnown, e.endAt = c.State == attachwire.RoomEnded, 0
		if e.endKnown && c.SinceSeq != nil {
			e.endAt = *c.SinceSeq
		}
		return []Event{{Kind: Room, Text: sanitize.UIString(string(c.State), maxNameRunes)}}, nil
	case attachwire.Proposal:
		return e.proposal(c), nil
	case attachwire.ErrorControl:
		return []Event{{Kind: Error, Text: sanitize.UIString(string(c.Code), maxNameRunes),
			Message: sanitize.UIString(c.Message, maxMessageRunes), Retryable: c.Retryable,
			Final: !c.Retryable && !softErrors[c.Code]}}, nil
	}
	return nil, nil
}

// pen records the pen's new state and switches the sanitizer's profile
// when this leg gains or loses it.
func (e *Engine) pen(holding bool, holder, holderConn string, gen uint64) []Event {
	if gen < e.penGen {
		return nil // an older message overtaken by a newer one
	}
	e.penGen = gen
	evs := []Event{{Kind: Pen, Holding: holding, PenGeneration: gen, Text: sanitize.UIString(holder, maxNameRunes),
		Message: sanitize.UIString(holderConn, maxNameRunes)}}
	if holding == e.holding {
		return evs
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
	switch {
	case e.opt.Mirror:
		return evs
	case !holding:
		return append(evs, Event{Kind: Write, Data: []byte(inputModesOff)})
	}
	// The Viewer profile dropped the program's input modes; a fresh
	// snapshot paints them.
	e.refresh = true
	return append(evs, Event{Kind: Send, Frame: controlFrame(attachwire.ResumeFrom{Seq: 0})})
}

// Ack applies an acknowledgement of every inputSeq up to a (an input_ack,
// or the answer to a lane batch): the inputs it covers are dropped. An
// ack below the last one means the relay lost this connection's count (a
// restarted relay starts it at 0 and drops anything but the next seq):
// the pending inputs are numbered again from a+1, stamped with the
// current pen generation, and returned as Send events.
func (e *Engine) Ack(a uint64) []Event {
	if a >= e.acked {
		e.acked = a
		i := 0
		for i < len(e.pending) && e.pending[i].InputSeq <= a {
			i++
		}
		e.pending = e.pending[i:]
		return nil
	}
	e.acked = a
	evs := make([]Event, 0, len(e.pending))
	for j := range e.pending {
		e.pending[j].InputSeq = a + 1 + uint64(j)
		e.pending[j].PenGeneration = e.penGen
		evs = append(evs, Event{Kind: Send, Frame: e.inputFrame(e.pending[j])})
	}
	e.nextInput = a + uint64(len(e.pending))
	return evs
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
				Name:    sanitize.UIString(m.Name, maxNameRunes),
				Guest:   m.Guest,
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

// controlFrame frames a control this package builds: its JSON cannot
// fail to encode.
func controlFrame(c attachwire.Control) attachwire.Frame {
	f, _ := attachwire.ControlFrame(c)
	return f
}
