package attachwire

import (
	"encoding"
	"fmt"
)

// FrameType is the first byte of a frame.
type FrameType uint8

// Frame types of interactive-attach-v1. Every other value is a framing error.
const (
	TypeOutput   FrameType = 0x01
	TypeInput    FrameType = 0x02
	TypeResize   FrameType = 0x03
	TypeMarker   FrameType = 0x04
	TypeExit     FrameType = 0x05
	TypeSnapshot FrameType = 0x06
	TypeControl  FrameType = 0x07
)

// Valid reports whether t is one of the seven defined frame types.
func (t FrameType) Valid() bool { return t >= TypeOutput && t <= TypeControl }

var frameTypeNames = [...]string{
	TypeOutput:   "Output",
	TypeInput:    "Input",
	TypeResize:   "Resize",
	TypeMarker:   "Marker",
	TypeExit:     "Exit",
	TypeSnapshot: "Snapshot",
	TypeControl:  "Control",
}

// String returns the type's name ("Output"), or "FrameType(0x09)" for a
// value outside the protocol.
func (t FrameType) String() string {
	if t.Valid() {
		return frameTypeNames[t]
	}
	return fmt.Sprintf("FrameType(0x%02x)", uint8(t))
}

// Frame is one carrier message: type, sequence number, microseconds since
// the producer's anchor, and the type's payload. A Frame handed out by a
// host is shared between subscribers and must be treated as immutable.
//
// The wire form is type:u8 | seq:uvarint | rel_time:uvarint | payload, with
// no length field: the carrier delimits the frame. Frame methods only read
// the Frame, so distinct goroutines may encode the same Frame at once.
type Frame struct {
	Type    FrameType
	Seq     uint64
	RelTime uint64
	Payload []byte
}

var (
	_ encoding.BinaryAppender  = Frame{}
	_ encoding.BinaryMarshaler = Frame{}
)

// EncodedLen returns the number of bytes AppendBinary appends for f.
func (f Frame) EncodedLen() int {
	return 1 + uvarintLen(f.Seq) + uvarintLen(f.RelTime) + len(f.Payload)
}

// AppendBinary appends the wire form of f to dst (encoding.BinaryAppender).
// It fails only for a Type outside the protocol, with a *FramingError. The
// payload is copied as is; the per-type encoders (AppendInput, ...) build
// valid payloads. With enough capacity in dst it does not allocate.
func (f Frame) AppendBinary(dst []byte) ([]byte, error) {
	if !f.Type.Valid() {
		return dst, framingf("frame type 0x%02x is reserved", uint8(f.Type))
	}
	dst = append(dst, byte(f.Type))
	dst = appendUvarint(dst, f.Seq)
	dst = appendUvarint(dst, f.RelTime)
	return append(dst, f.Payload...), nil
}

// MarshalBinary returns the wire form of f in a new slice
// (encoding.BinaryMarshaler).
func (f Frame) MarshalBinary() ([]byte, error) {
	return f.AppendBinary(make([]byte, 0, f.EncodedLen()))
}

// DecodeFrame decodes one frame occupying all of p. The returned Payload
// aliases p (no copy is made): keep p unchanged for as long as the Frame is
// used, or copy the payload. It checks the header only; decode the payload
// with the function for its type (DecodeInput, ...). Every error is a
// *FramingError: a reserved type, a truncated or overflowing uvarint.
// DecodeFrame does not allocate.
func DecodeFrame(p []byte) (Frame, error) {
	if len(p) == 0 {
		return Frame{}, truncated("frame type")
	}
	t := FrameType(p[0])
	if !t.Valid() {
		return Frame{}, framingf("frame type 0x%02x is reserved", p[0])
	}
	d := decoder{p: p[1:]}
	seq := d.uvarint("frame seq")
	rel := d.uvarint("frame rel_time")
	if d.err != nil {
		return Frame{}, d.err
	}
	payload := d.p[:len(d.p):len(d.p)] // appending to it cannot reach past p
	return Frame{Type: t, Seq: seq, RelTime: rel, Payload: payload}, nil
}

// NewOutputFrame returns an Output frame whose payload is p itself (not a
// copy): the child's bytes, unmodified.
func NewOutputFrame(seq, relTime uint64, p []byte) Frame {
	return Frame{Type: TypeOutput, Seq: seq, RelTime: relTime, Payload: p}
}
