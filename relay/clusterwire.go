package relay

import (
	"encoding/binary"
	"errors"
	"math"

	"github.com/ptyhost/ptyhost/attachwire"
)

// The cluster's own messages (docs/relay.md, "Cluster wire"): what a mirror
// asks of a room's owner on the room's input subject, the owner's answer
// to a join, and what the owner sends one of a mirror's legs on that
// node's legs subject. They are binary like the frames they carry: a kind
// byte, then strings and numbers as uvarints (a string is its length, then
// its bytes), and a frame as its attachwire bytes, unchanged, at the end.
// The nodes of a cluster run one version (they upgrade together), so the
// messages carry no version of their own.

// errClusterWire reports a cluster message that does not decode; the
// receiver drops it.
var errClusterWire = errors.New("relay: malformed cluster message")

// opKind is what a mirror asks of a room's owner.
type opKind byte

const (
	opJoin     opKind = iota + 1 // register a leg: role, user, jti, viewport, ack, name, guest, expiry
	opLeave                      // the leg is gone
	opInput                      // an Input frame from the leg (request/reply)
	opResize                     // the leg's viewport
	opGrab                       // the leg asks for the pen
	opRelease                    // the leg gives the pen back
	opSnapshot                   // a viewer here needs a snapshot: reason
	opFetch                      // a new mirror's first fill (request, chunked answer)
	opDecide                     // the leg's decide control: its JSON document
	opPropose                    // the leg's propose control: its JSON document
	opPresence                   // the leg asks for the whole member list
	opQueued                     // Input the mirror accepted before it followed the owner: the stamped frame (request/reply)
)

// The flags of a join.
const (
	joinGuest   = 1 << iota // the token came from an invite
	joinCounts              // the leg reads presence counts
	joinPropose             // the token's prop claim: the leg proposes
	joinPen                 // the join carries the generation of its node's pen
	joinHeld                // the leg held its node's pen at that generation
)

// clusterOp is one message on a room's input subject: the kind, the node
// and leg it is about (empty where the kind needs none), and the kind's
// own fields.
type clusterOp struct {
	Op      opKind
	Node    string
	Leg     string
	Role    attachwire.Role // join
	User    string          // join
	JTI     string          // join
	Cols    uint32          // join, resize
	Rows    uint32          // join, resize
	Ack     uint64          // join: the last inputSeq the leg's owner acknowledged
	Name    string          // join: the token's display name
	Guest   bool            // join: the token came from an invite
	Counts  bool            // join: the leg reads presence counts (attachwire.PresenceCounts)
	Propose bool            // join: the token's prop claim
	Exp     uint64          // join: the token's expiry, unix seconds
	Sealed  string          // join: the key id the leg stated (sealed.go); absent from older nodes' joins
	Pen     uint64          // join: its node's pen generation when the room began following the owner (0: none)
	Held    bool            // join: the leg held that pen
	Reason  string          // snapshot
	Wire    []byte          // input: the Input frame
}

// appendClusterOp appends op's encoding: kind | node | leg | the kind's
// fields (join: role, user, jti, cols, rows, ack, name, flags (joinGuest,
// joinCounts, joinPropose, joinPen, joinHeld), exp, with joinPen the
// pen's generation, and the key id a sealed leg stated; resize: cols,
// rows; snapshot: reason; input and queued: the frame, decide and
// propose: the control's JSON, each to the end).
func appendClusterOp(dst []byte, op clusterOp) []byte {
	dst = append(dst, byte(op.Op))
	dst = appendWireString(dst, op.Node)
	dst = appendWireString(dst, op.Leg)
	switch op.Op {
	case opJoin:
		dst = appendWireString(dst, string(op.Role))
		dst = appendWireString(dst, op.User)
		dst = appendWireString(dst, op.JTI)
		dst = binary.AppendUvarint(dst, uint64(op.Cols))
		dst = binary.AppendUvarint(dst, uint64(op.Rows))
		dst = binary.AppendUvarint(dst, op.Ack)
		dst = appendWireString(dst, op.Name)
		flags := uint64(0)
		if op.Guest {
			flags |= joinGuest
		}
		if op.Counts {
			flags |= joinCounts
		}
		if op.Propose {
			flags |= joinPropose
		}
		if op.Pen != 0 {
			flags |= joinPen
			if op.Held {
				flags |= joinHeld
			}
		}
		dst = binary.AppendUvarint(dst, flags)
		dst = binary.AppendUvarint(dst, op.Exp)
		if op.Pen != 0 {
			dst = binary.AppendUvarint(dst, op.Pen)
		}
		if op.Sealed != "" {
			dst = appendWireString(dst, op.Sealed)
		}
	case opResize:
		dst = binary.AppendUvarint(dst, uint64(op.Cols))
		dst = binary.AppendUvarint(dst, uint64(op.Rows))
	case opSnapshot:
		dst = appendWireString(dst, op.Reason)
	case opInput, opQueued, opDecide, opPropose:
		dst = append(dst, op.Wire...)
	}
	return dst
}

// decodeClusterOp decodes a message of a room's input subject. The frame
// of an input is a slice of b, not a copy.
func decodeClusterOp(b []byte) (clusterOp, error) {
	r := wireReader{rest: b}
	op := clusterOp{Op: opKind(r.byte())}
	op.Node = r.string()
	op.Leg = r.string()
	switch op.Op {
	case opJoin:
		op.Role = attachwire.Role(r.string())
		op.User = r.string()
		op.JTI = r.string()
		op.Cols, op.Rows = r.uint32(), r.uint32()
		op.Ack = r.uvarint()
		op.Name = r.string()
		// A flag this node does not know refuses the join rather than
		// admit a proposer as a plain driver.
		flags := r.uvarint()
		if flags&^(joinGuest|joinCounts|joinPropose|joinPen|joinHeld) != 0 || flags&(joinPen|joinHeld) == joinHeld {
			r.bad = true
		}
		op.Guest, op.Counts, op.Propose = flags&joinGuest != 0, flags&joinCounts != 0, flags&joinPropose != 0
		op.Exp = r.uvarint()
		if flags&joinPen != 0 {
			op.Pen, op.Held = r.uvarint(), flags&joinHeld != 0
			if op.Pen == 0 {
				r.bad = true
			}
		}
		if len(r.rest) > 0 {
			op.Sealed = r.string()
		}
	case opResize:
		op.Cols, op.Rows = r.uint32(), r.uint32()
	case opSnapshot:
		op.Reason = r.string()
	case opInput, opQueued, opDecide, opPropose:
		op.Wire = r.tail()
	case opLeave, opGrab, opRelease, opFetch, opPresence:
	default:
		r.bad = true
	}
	return op, r.done()
}

// joinStatus is an owner's answer to a join.
type joinStatus byte

const (
	joinOK          joinStatus = iota + 1 // admitted
	joinFull                              // the room is at MaxViewersPerRoom
	joinClosed                            // the room is closing
	joinKicked                            // the room's host removed this token
	joinSealed                            // the leg's key id is not the room's; the reply's one frame is the error to send
	joinUnreachable                       // (never sent) no answer, or none that decodes
)

// joinReply answers a join: the status, and the controls the joiner is
// sent on admission (room_state, presence, the pen), carried in the reply
// so that its node queues them before the leg's first frame.
type joinReply struct {
	Status joinStatus
	Wires  [][]byte
}

// appendJoinReply appends r's encoding: status | (length | control frame)*.
func appendJoinReply(dst []byte, r joinReply) []byte {
	dst = append(dst, byte(r.Status))
	for _, w := range r.Wires {
		dst = appendWireBytes(dst, w)
	}
	return dst
}

// decodeJoinReply decodes an owner's answer to a join. Its frames are
// slices of b; an empty one is malformed, so a reply holds at most half
// its length in frames.
func decodeJoinReply(b []byte) (joinReply, error) {
	r := wireReader{rest: b}
	rep := joinReply{Status: joinStatus(r.byte())}
	if rep.Status < joinOK || rep.Status > joinSealed {
		r.bad = true
	}
	for !r.bad && len(r.rest) > 0 {
		w := r.bytes()
		if len(w) == 0 {
			r.bad = true
			break
		}
		rep.Wires = append(rep.Wires, w)
	}
	if err := r.done(); err != nil {
		return joinReply{}, err
	}
	return rep, nil
}

// The kinds of message an owner sends a mirror's leg.
const (
	legControl byte = iota + 1 // a control frame to queue
	legEnd                     // the leg's end: code, reason, the error control to send first (or none)
	legMany                    // one control frame for each of a list of legs (a presence update)
)

// legMsg is what an owner sends one of a mirror's legs on the mirror
// node's legs subject: a control to queue, or the leg's end.
type legMsg struct {
	Leg  string
	Legs []string // legMany: the legs, Leg empty
	End  bool
	Code uint16 // with End: the close code
	Why  string // with End: the close reason
	Wire []byte // a control frame; with End, the error to send first, if any
}

// appendLegMsg appends m's encoding: kind | leg | (end: code | reason) |
// the frame, to the end; a legMany message is kind | count | legs | the
// frame.
func appendLegMsg(dst []byte, m legMsg) []byte {
	if m.Legs != nil {
		dst = append(dst, legMany)
		dst = binary.AppendUvarint(dst, uint64(len(m.Legs)))
		for _, id := range m.Legs {
			dst = appendWireString(dst, id)
		}
		return append(dst, m.Wire...)
	}
	if m.End {
		dst = append(dst, legEnd)
		dst = appendWireString(dst, m.Leg)
		dst = binary.AppendUvarint(dst, uint64(m.Code))
		dst = appendWireString(dst, m.Why)
	} else {
		dst = append(dst, legControl)
		dst = appendWireString(dst, m.Leg)
	}
	return append(dst, m.Wire...)
}

// decodeLegMsg decodes a message of a node's legs subject; its frame is a
// slice of b.
func decodeLegMsg(b []byte) (legMsg, error) {
	r := wireReader{rest: b}
	kind := r.byte()
	if kind == legMany {
		return decodeLegMany(r)
	}
	m := legMsg{Leg: r.string(), End: kind == legEnd}
	switch kind {
	case legEnd:
		c := r.uvarint()
		if c > math.MaxUint16 {
			r.bad = true
		}
		m.Code = uint16(c)
		m.Why = r.string()
	case legControl:
	default:
		r.bad = true
	}
	m.Wire = r.tail()
	if err := r.done(); err != nil {
		return legMsg{}, err
	}
	if !m.End && len(m.Wire) == 0 {
		return legMsg{}, errClusterWire
	}
	return m, nil
}

// decodeLegMany decodes the rest of a legMany message: the count is
// checked against the bytes left (each leg takes one at least) before the
// list is made.
func decodeLegMany(r wireReader) (legMsg, error) {
	n := r.uvarint()
	if r.bad || n == 0 || n > uint64(len(r.rest)) {
		return legMsg{}, errClusterWire
	}
	m := legMsg{Legs: make([]string, 0, n)}
	for range n {
		m.Legs = append(m.Legs, r.string())
	}
	m.Wire = r.tail()
	if err := r.done(); err != nil || len(m.Wire) == 0 {
		return legMsg{}, errClusterWire
	}
	return m, nil
}

func appendWireString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

func appendWireBytes(dst, b []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(b)))
	return append(dst, b...)
}

// wireReader takes a cluster message apart. A length is checked against
// what is left before anything is sliced or copied; the first failure
// sets bad, after which every read gives a zero value, so a decoder reads
// a whole message and asks done once.
type wireReader struct {
	rest []byte
	bad  bool
}

func (r *wireReader) byte() byte {
	if r.bad || len(r.rest) == 0 {
		r.bad = true
		return 0
	}
	c := r.rest[0]
	r.rest = r.rest[1:]
	return c
}

func (r *wireReader) uvarint() uint64 {
	if r.bad {
		return 0
	}
	v, n := binary.Uvarint(r.rest)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.rest = r.rest[n:]
	return v
}

func (r *wireReader) uint32() uint32 {
	v := r.uvarint()
	if v > math.MaxUint32 {
		r.bad = true
		return 0
	}
	return uint32(v)
}

// bytes reads a length and that many bytes, as a slice of the message.
func (r *wireReader) bytes() []byte {
	n := r.uvarint()
	if r.bad || n > uint64(len(r.rest)) {
		r.bad = true
		return nil
	}
	b := r.rest[:n:n]
	r.rest = r.rest[n:]
	return b
}

func (r *wireReader) string() string { return string(r.bytes()) }

// tail takes the rest of the message (nil when none is left).
func (r *wireReader) tail() []byte {
	if r.bad || len(r.rest) == 0 {
		return nil
	}
	b := r.rest
	r.rest = nil
	return b
}

// done reports errClusterWire if a read failed or bytes are left over.
func (r *wireReader) done() error {
	if r.bad || len(r.rest) > 0 {
		return errClusterWire
	}
	return nil
}
