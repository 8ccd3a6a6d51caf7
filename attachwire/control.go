package attachwire

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// Control is a control message: the JSON document a Control frame carries
// (docs/protocol.md §6). The concrete types are the structs below, one per
// "type"; the interface is sealed so that DecodeControl and MarshalControl
// agree on the set. Use a type switch to dispatch:
//
//	switch c := c.(type) {
//	case attachwire.Subscribe: ...
//	case attachwire.ErrorControl: ...
//	}
//
// Values of enumerated fields (roles, reasons, states, codes) are carried
// as they are, in both directions: a peer that knows more values than this
// package is not rejected. Control values are plain data.
type Control interface {
	// ControlType returns the "type" member: "subscribe", "pen_state", ...
	ControlType() string
	control()
}

// Role is a connection's role in a room.
type Role string

// Roles of interactive-attach-v1.
const (
	RoleHost   Role = "host"
	RoleDriver Role = "driver"
	RoleViewer Role = "viewer"
)

// Viewport is a viewer's terminal size.
type Viewport struct {
	Cols uint32 `json:"cols"`
	Rows uint32 `json:"rows"`
}

// Subscribe ("subscribe") opens a connection's participation in a room.
// ResumeFrom is always sent: null for a fresh join, else the last seq the
// subscriber holds. Epoch and ResumeEpoch are omitted when nil.
type Subscribe struct {
	SessionID   string    `json:"sessionId"`
	AsRole      Role      `json:"asRole"`
	Epoch       *uint64   `json:"epoch,omitempty"`
	ResumeFrom  *uint64   `json:"resumeFrom"`
	ResumeEpoch *uint64   `json:"resumeEpoch,omitempty"`
	Viewport    *Viewport `json:"viewport,omitempty"`
	// Record is a host's request that a relay recording rooms on request
	// record this one (docs/relay.md, "Recording"); other roles' is
	// ignored, and so is the member by a relay that does not record.
	Record bool `json:"record,omitempty"`
	// Sealed says the subscriber speaks sealed rooms (docs/protocol.md,
	// section 8) and names the room key it holds by its key id; empty:
	// it sends and expects plain frames. A host's makes its room sealed.
	Sealed string `json:"sealed,omitempty"`
}

// ResumeFrom ("resume_from") asks for frames after Seq.
type ResumeFrom struct {
	Seq   uint64  `json:"seq"`
	Epoch *uint64 `json:"epoch,omitempty"`
}

// SnapshotReason says why a snapshot is requested.
type SnapshotReason string

// Snapshot request reasons.
const (
	SnapshotJoin         SnapshotReason = "join"
	SnapshotResync       SnapshotReason = "resync"
	SnapshotRingMiss     SnapshotReason = "ring-miss"
	SnapshotBackpressure SnapshotReason = "backpressure"
	// SnapshotKeyframe asks for a key frame of the room's history: the
	// host answers with a seq-0 Snapshot (atSeq its current seq) sent
	// beside the stream, which the relay keeps for rewinding and sends to
	// no viewer. A host that does not know the reason answers with an
	// in-stream Snapshot, which serves as well at the cost of reaching
	// every viewer.
	SnapshotKeyframe SnapshotReason = "keyframe"
)

// SnapshotRequest ("snapshot_request") asks the host for a snapshot.
type SnapshotRequest struct {
	Reason SnapshotReason `json:"reason"`
}

// KillReason says why a session is killed.
type KillReason string

// Kill reasons.
const (
	KillStopped KillReason = "stopped"
	KillQuota   KillReason = "quota"
	KillRevoked KillReason = "revoked"
)

// Kill ("kill") asks the host to end the session. Signal, when not empty,
// is a signal name as ptyhost.SignalName spells it ("SIGTERM"); empty
// leaves the choice to the host.
type Kill struct {
	Reason KillReason `json:"reason"`
	Signal string     `json:"signal,omitempty"`
}

// Grab ("grab") asks for the pen (the right to send Input).
type Grab struct{}

// Release ("release") gives the pen back.
type Release struct{}

// Ping ("ping") asks the relay for a Pong. A peer that cannot send
// WebSocket pings (a browser) or has no ping at all (the degraded lane's
// POSTs) sends it when it has heard nothing for a while, so that a path
// gone silent is noticed by the peer's own silence rule. The relay answers
// it on any leg; a peer never answers one.
type Ping struct{}

// Pong ("pong") answers a Ping. It changes no state.
type Pong struct{}

// PresenceOp is the operation of a presence control.
type PresenceOp string

// Presence operations.
const (
	PresenceJoin  PresenceOp = "join"
	PresenceLeave PresenceOp = "leave"
	PresenceList  PresenceOp = "list"
)

// Member is one connection in a presence control. Name is the display
// name its token carries (the token's "name" claim; empty: none, show
// UserID) and Guest reports a token redeemed from an invite (it has an
// "inv" claim): the name is the guest's own choice, not an identity the
// relay vouches for. Both are omitted when zero, so a peer that predates
// them reads the member as before.
type Member struct {
	UserID  string `json:"userId"`
	ConnID  string `json:"connId"`
	Role    Role   `json:"role"`
	Driving bool   `json:"driving"`
	Name    string `json:"name,omitempty"`
	Guest   bool   `json:"guest,omitempty"`
}

// Presence ("presence") reports members joining, leaving, or the full list.
// A nil Members is sent as an empty array.
type Presence struct {
	Op      PresenceOp `json:"op"`
	Members []Member   `json:"members"`
}

// InputAck ("input_ack") acknowledges Input frames up to AckInputSeq.
type InputAck struct {
	AckInputSeq uint64 `json:"ackInputSeq"`
}

// PenGranted ("pen_granted") tells who now holds the pen.
type PenGranted struct {
	UserID        string `json:"userId"`
	ConnID        string `json:"connId"`
	PenGeneration uint64 `json:"penGeneration"`
}

// PenRevoked ("pen_revoked") tells who lost the pen.
type PenRevoked struct {
	UserID        string `json:"userId"`
	ConnID        string `json:"connId"`
	PenGeneration uint64 `json:"penGeneration"`
}

// PenState ("pen_state") reports the pen holder; the holder fields are
// empty (and omitted) when nobody holds it. ReadOnly reports that the
// host made the session read-only (ReadOnly control): no driver may take
// the pen until it is turned off.
type PenState struct {
	HolderUserID  string `json:"holderUserId,omitempty"`
	HolderConnID  string `json:"holderConnId,omitempty"`
	PenGeneration uint64 `json:"penGeneration"`
	ReadOnly      bool   `json:"readOnly,omitempty"`
}

// The host's own controls (host → relay, docs/protocol.md §6, "Host
// controls"): the sharer's say over who is in the room. A driver or
// viewer leg sending one commits a framing error (IsHostControl).

// Kick ("kick") asks the relay to close the participant whose connection
// is ConnID (its token's jti) with error auth, and to refuse that token
// until it expires. Reason, when not empty, is shown to nobody but the
// relay's log.
type Kick struct {
	ConnID string `json:"connId"`
	Reason string `json:"reason,omitempty"`
}

// PenTake ("pen_take") takes the pen back to the host: any holder loses
// it, and the session's size is the host's own again.
type PenTake struct{}

// ReadOnly ("read_only") turns the session's read-only mode on or off.
// While on, no driver may take the pen (grab is refused pen-denied) and a
// holder loses it when it is turned on.
type ReadOnly struct {
	On bool `json:"on"`
}

// IsHostControl reports whether c is one of the controls only a host leg
// may send (Kick, PenTake, ReadOnly, Proposal).
func IsHostControl(c Control) bool {
	switch c.(type) {
	case Kick, PenTake, ReadOnly, Proposal, *Kick, *PenTake, *ReadOnly, *Proposal:
		return true
	}
	return false
}

// RoomStatus is the state a room_state control reports.
type RoomStatus string

// Room states.
const (
	RoomLive             RoomStatus = "live"
	RoomHostReconnecting RoomStatus = "host-reconnecting"
	RoomDegraded         RoomStatus = "degraded"
	RoomHostGone         RoomStatus = "host-gone"
	RoomEnded            RoomStatus = "ended"
)

// RoomState ("room_state") reports the room's state, optionally since
// which seq.
type RoomState struct {
	State    RoomStatus `json:"state"`
	SinceSeq *uint64    `json:"sinceSeq,omitempty"`
}

// ErrorCode is the code of an error control, from a fixed registry.
type ErrorCode string

// The error-code registry of interactive-attach-v1.
const (
	CodeFraming         ErrorCode = "framing"
	CodeAuth            ErrorCode = "auth"
	CodeRoomMismatch    ErrorCode = "room-mismatch"
	CodePenDenied       ErrorCode = "pen-denied"
	CodeRingMiss        ErrorCode = "ring-miss"
	CodeBackpressure    ErrorCode = "backpressure"
	CodeRateLimited     ErrorCode = "rate-limited"
	CodeEpochStale      ErrorCode = "epoch-stale"
	CodeInternal        ErrorCode = "internal"
	CodeHostLost        ErrorCode = "host-lost"
	CodeHostStillAbsent ErrorCode = "host-still-absent"
	CodeRelayRestarting ErrorCode = "relay-restarting"
	// CodeSealed refuses a leg whose sealing does not match its room's:
	// a peer that does not speak sealed rooms joining a sealed room, a
	// key id other than the room's, or a sealed peer in a plain room.
	CodeSealed ErrorCode = "sealed"
)

// ErrorControl ("error") reports an error to the peer. It is also a Go
// error; errors.Is(e, ErrRingMiss) holds when Code is CodeRingMiss.
type ErrorControl struct {
	Code      ErrorCode `json:"code"`
	Message   string    `json:"message"`
	Retryable bool      `json:"retryable"`
}

// MaxMessageBytes bounds the Message of an ErrorControl a peer sends.
const MaxMessageBytes = 200

// CapMessage cuts s to at most MaxMessageBytes at a rune boundary, for an
// ErrorControl's Message (a cause's text may be long, or quote the peer).
func CapMessage(s string) string {
	if len(s) <= MaxMessageBytes {
		return s
	}
	for i := MaxMessageBytes; i > 0; i-- {
		if s[i]&0xC0 != 0x80 { // s[i] starts a rune: s[:i] ends whole
			return s[:i]
		}
	}
	return ""
}

// Error formats the code and message.
func (e ErrorControl) Error() string {
	return "attachwire: peer error " + string(e.Code) + ": " + e.Message
}

// Is reports whether target is ErrRingMiss and the code is CodeRingMiss.
func (e ErrorControl) Is(target error) bool {
	return target == ErrRingMiss && e.Code == CodeRingMiss
}

// ControlType methods: the "type" member of each control.

// ControlType returns "subscribe".
func (Subscribe) ControlType() string { return "subscribe" }

// ControlType returns "resume_from".
func (ResumeFrom) ControlType() string { return "resume_from" }

// ControlType returns "snapshot_request".
func (SnapshotRequest) ControlType() string { return "snapshot_request" }

// ControlType returns "kill".
func (Kill) ControlType() string { return "kill" }

// ControlType returns "grab".
func (Grab) ControlType() string { return "grab" }

// ControlType returns "release".
func (Release) ControlType() string { return "release" }

// ControlType returns "ping".
func (Ping) ControlType() string { return "ping" }

// ControlType returns "pong".
func (Pong) ControlType() string { return "pong" }

// ControlType returns "presence".
func (Presence) ControlType() string { return "presence" }

// ControlType returns "input_ack".
func (InputAck) ControlType() string { return "input_ack" }

// ControlType returns "pen_granted".
func (PenGranted) ControlType() string { return "pen_granted" }

// ControlType returns "pen_revoked".
func (PenRevoked) ControlType() string { return "pen_revoked" }

// ControlType returns "pen_state".
func (PenState) ControlType() string { return "pen_state" }

// ControlType returns "room_state".
func (RoomState) ControlType() string { return "room_state" }

// ControlType returns "error".
func (ErrorControl) ControlType() string { return "error" }

// ControlType returns "kick".
func (Kick) ControlType() string { return "kick" }

// ControlType returns "pen_take".
func (PenTake) ControlType() string { return "pen_take" }

// ControlType returns "read_only".
func (ReadOnly) ControlType() string { return "read_only" }

func (Subscribe) control()       {}
func (ResumeFrom) control()      {}
func (SnapshotRequest) control() {}
func (Kill) control()            {}
func (Grab) control()            {}
func (Release) control()         {}
func (Presence) control()        {}
func (InputAck) control()        {}
func (PenGranted) control()      {}
func (PenRevoked) control()      {}
func (PenState) control()        {}
func (RoomState) control()       {}
func (ErrorControl) control()    {}
func (Ping) control()            {}
func (Pong) control()            {}
func (Kick) control()            {}
func (PenTake) control()         {}
func (ReadOnly) control()        {}

// MaxPresenceMembers is the most members a presence control may list.
// A relay's default room holds 1,000 viewers (docs/relay.md); at about 100
// bytes a member, a list at this cap is about the 1 MiB a viewer leg's
// message may be. ParseControl and MarshalControl return a *FramingError
// for a longer list, before allocating it.
const MaxPresenceMembers = 10_000

// controlEntry is one control type of the registry.
type controlEntry struct {
	name  string       // the "type" member
	typ   reflect.Type // the Go type, for tests
	parse func(obj []byte) (Control, error)
}

// entry returns the registry entry of control type T: its name, and a
// parser that decodes a control object into a T with exact member names.
func entry[T Control]() controlEntry {
	var zero T
	t := reflect.TypeFor[T]()
	codec := newValueCodec(t)
	path := jsonPath{top: zero.ControlType() + " control"}
	return controlEntry{name: zero.ControlType(), typ: t, parse: func(obj []byte) (Control, error) {
		var c T
		if err := codec.decodeObject(path, obj, reflect.ValueOf(&c).Elem()); err != nil {
			return nil, err
		}
		return c, nil
	}}
}

// controlTable lists every control type once; controls indexes it by
// name. Both are built at package initialization and only read after.
var (
	controlTable = []controlEntry{
		entry[Subscribe](),
		entry[ResumeFrom](),
		entry[SnapshotRequest](),
		entry[Kill](),
		entry[Grab](),
		entry[Release](),
		entry[Presence](),
		entry[InputAck](),
		entry[PenGranted](),
		entry[PenRevoked](),
		entry[PenState](),
		entry[RoomState](),
		entry[ErrorControl](),
		entry[Ping](),
		entry[Pong](),
		entry[Kick](),
		entry[PenTake](),
		entry[ReadOnly](),
		entry[Proposal](),
		entry[Decision](),
		entry[Propose](),
	}
	controls = index(controlTable)
)

// index maps each entry's name to it; a name registered twice is a
// programming error.
func index(table []controlEntry) map[string]controlEntry {
	m := make(map[string]controlEntry, len(table))
	for _, e := range table {
		if _, dup := m[e.name]; dup {
			panic("attachwire: control " + e.name + " registered twice")
		}
		m[e.name] = e
	}
	return m
}

// MarshalControl returns the JSON document of c with its "type" member
// first: {"type":"input_ack","ackInputSeq":7}. It is the inverse of
// ParseControl; AppendControl adds the jsonLen prefix a frame carries.
func MarshalControl(c Control) ([]byte, error) {
	if c == nil {
		return nil, framingf("control is nil")
	}
	switch p := c.(type) {
	case Presence:
		if p.Members == nil {
			p.Members = []Member{}
			c = p
		}
		if len(p.Members) > MaxPresenceMembers {
			return nil, errTooManyMembers(len(p.Members))
		}
	case *Presence:
		if p != nil && p.Members == nil {
			c = Presence{Op: p.Op, Members: []Member{}}
		}
		if p != nil && len(p.Members) > MaxPresenceMembers {
			return nil, errTooManyMembers(len(p.Members))
		}
	}
	body, err := json.Marshal(c)
	if err != nil {
		return nil, &FramingError{Reason: "marshal " + c.ControlType() + " control", Err: err}
	}
	if len(body) < 2 || body[0] != '{' {
		return nil, framingf("%s control is not a JSON object", c.ControlType())
	}
	out := make([]byte, 0, len(body)+len(c.ControlType())+12)
	out = append(out, `{"type":"`...)
	out = append(out, c.ControlType()...)
	out = append(out, '"')
	if !bytes.Equal(body, []byte("{}")) {
		out = append(out, ',')
	}
	return append(out, body[1:]...), nil
}

// ParseControl decodes a control's JSON document. Member names match
// exactly, as in JavaScript: "Type" or "REASON" is an unknown member, and
// unknown members are ignored. An unknown "type" returns a nil Control and
// an *UnknownControlError (errors.Is ErrUnknownControl), which is not a
// framing error. Malformed JSON, a document that is not an object, a
// missing or non-string "type", or a member of the wrong JSON type is a
// *FramingError; so is an object it interprets (the document, a viewport,
// a presence member) with a member name that occurs twice, or with two
// names that differ only in case, which parsers would resolve differently,
// and a presence list longer than MaxPresenceMembers. It allocates a
// small multiple of len(doc) at most.
func ParseControl(doc []byte) (Control, error) {
	obj, err := topObject(doc)
	if err != nil {
		return nil, err
	}
	var typ []byte
	err = eachMember(jsonPath{top: "control"}, obj, func(name, value []byte) error {
		if string(name) != "type" {
			return nil
		}
		switch value[0] {
		case '"':
			typ = unquote(value)
		case 'n':
			typ = nil
		default:
			return &FramingError{Reason: `control "type"`, Err: &json.UnmarshalTypeError{Value: jsonKind(value), Type: reflect.TypeFor[string]()}}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if typ == nil {
		return nil, framingf("control has no \"type\"")
	}
	e, ok := controls[string(typ)]
	if !ok {
		return nil, &UnknownControlError{Type: string(typ)}
	}
	return e.parse(obj)
}

// AppendControl appends the payload of a Control frame: jsonLen | json.
func AppendControl(dst []byte, c Control) ([]byte, error) {
	doc, err := MarshalControl(c)
	if err != nil {
		return dst, err
	}
	dst = appendUvarint(dst, uint64(len(doc)))
	return append(dst, doc...), nil
}

// DecodeControl decodes the payload of a Control frame (jsonLen | json,
// nothing after) and parses the document as ParseControl does: an
// unknown "type" is a soft *UnknownControlError, every other defect a
// *FramingError.
func DecodeControl(p []byte) (Control, error) {
	d := decoder{p: p}
	doc := d.bytes("control json")
	if err := d.end("control"); err != nil {
		return nil, err
	}
	return ParseControl(doc)
}

// ControlFrame wraps c in a Control frame. Controls are out of the host's
// sequence namespace: seq and relTime are 0.
func ControlFrame(c Control) (Frame, error) {
	p, err := AppendControl(nil, c)
	if err != nil {
		return Frame{}, err
	}
	return Frame{Type: TypeControl, Payload: p}, nil
}
