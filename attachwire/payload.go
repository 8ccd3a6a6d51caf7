package attachwire

import (
	"math"
	"unicode/utf8"
)

// Payload codecs. Each payload type X has AppendX(dst, X), which appends
// the payload's wire form, DecodeX(p), which decodes a payload occupying
// all of p and rejects trailing bytes, and a Frame method that wraps the
// payload in a frame. Decoders check every length against the remaining
// input before slicing or allocating and report every defect as a
// *FramingError. Byte-slice fields of decoded values alias p.

// Input is the payload of an Input frame. A host drops relay-delivered
// Input whose UserID is empty.
//
// Wire form: inputSeq | penGeneration | userIdLen | userId | dataLen | data.
type Input struct {
	InputSeq      uint64
	PenGeneration uint64
	UserID        string
	Data          []byte
}

// AppendInput appends the payload of an Input frame.
func AppendInput(dst []byte, in Input) []byte {
	dst = appendUvarint(dst, in.InputSeq)
	dst = appendUvarint(dst, in.PenGeneration)
	dst = appendUvarint(dst, uint64(len(in.UserID)))
	dst = append(dst, in.UserID...)
	dst = appendUvarint(dst, uint64(len(in.Data)))
	return append(dst, in.Data...)
}

// DecodeInput decodes an Input payload. Data aliases p.
func DecodeInput(p []byte) (Input, error) {
	d := decoder{p: p}
	var in Input
	in.InputSeq = d.uvarint("input inputSeq")
	in.PenGeneration = d.uvarint("input penGeneration")
	in.UserID = string(d.bytes("input userId"))
	in.Data = d.bytes("input data")
	if err := d.end("input"); err != nil {
		return Input{}, err
	}
	return in, nil
}

// Frame returns in as an Input frame. Seq is the last host seq the sender
// had applied (informational).
func (in Input) Frame(seq, relTime uint64) Frame {
	return Frame{Type: TypeInput, Seq: seq, RelTime: relTime, Payload: AppendInput(nil, in)}
}

// Resize is the payload of a Resize frame: an applied size when a host
// sends it (in-namespace), a request when a viewer does (seq 0). Cols and
// Rows are never 0; pixel sizes may be.
//
// Wire form: cols | rows | pxWidth | pxHeight.
type Resize struct {
	Cols, Rows        uint32
	PxWidth, PxHeight uint32
}

// AppendResize appends the payload of a Resize frame. It returns dst
// unchanged and a *FramingError if Cols or Rows is 0.
func AppendResize(dst []byte, r Resize) ([]byte, error) {
	if r.Cols == 0 || r.Rows == 0 {
		return dst, framingf("resize %dx%d has a zero dimension", r.Cols, r.Rows)
	}
	dst = appendUvarint(dst, uint64(r.Cols))
	dst = appendUvarint(dst, uint64(r.Rows))
	dst = appendUvarint(dst, uint64(r.PxWidth))
	return appendUvarint(dst, uint64(r.PxHeight)), nil
}

// DecodeResize decodes a Resize payload. Cols or Rows equal to 0, and any
// field above math.MaxUint32, are framing errors.
func DecodeResize(p []byte) (Resize, error) {
	d := decoder{p: p}
	r := Resize{
		Cols:     d.u32("resize cols"),
		Rows:     d.u32("resize rows"),
		PxWidth:  d.u32("resize pxWidth"),
		PxHeight: d.u32("resize pxHeight"),
	}
	if err := d.end("resize"); err != nil {
		return Resize{}, err
	}
	if r.Cols == 0 || r.Rows == 0 {
		return Resize{}, framingf("resize %dx%d has a zero dimension", r.Cols, r.Rows)
	}
	return r, nil
}

// Frame returns r as a Resize frame, or the error AppendResize reports.
// A viewer's request uses seq 0 and relTime 0.
func (r Resize) Frame(seq, relTime uint64) (Frame, error) {
	p, err := AppendResize(nil, r)
	if err != nil {
		return Frame{}, err
	}
	return Frame{Type: TypeResize, Seq: seq, RelTime: relTime, Payload: p}, nil
}

// Marker is the payload of a Marker frame: a display-only UTF-8 label.
// The label is not escape-safe: a viewer sanitizes it before display.
//
// Wire form: labelLen | label.
type Marker struct {
	Label string
}

// AppendMarker appends the payload of a Marker frame. It returns dst
// unchanged and a *FramingError if the label is not valid UTF-8.
func AppendMarker(dst []byte, m Marker) ([]byte, error) {
	if !utf8.ValidString(m.Label) {
		return dst, framingf("marker label is not valid UTF-8")
	}
	dst = appendUvarint(dst, uint64(len(m.Label)))
	return append(dst, m.Label...), nil
}

// DecodeMarker decodes a Marker payload; a label that is not valid UTF-8
// is a framing error.
func DecodeMarker(p []byte) (Marker, error) {
	d := decoder{p: p}
	label := d.bytes("marker label")
	if err := d.end("marker"); err != nil {
		return Marker{}, err
	}
	if !utf8.Valid(label) {
		return Marker{}, framingf("marker label is not valid UTF-8")
	}
	return Marker{Label: string(label)}, nil
}

// Frame returns m as a Marker frame, or the error AppendMarker reports.
func (m Marker) Frame(seq, relTime uint64) (Frame, error) {
	p, err := AppendMarker(nil, m)
	if err != nil {
		return Frame{}, err
	}
	return Frame{Type: TypeMarker, Seq: seq, RelTime: relTime, Payload: p}, nil
}

// Exit is the payload of an Exit frame. A normal exit carries the process's
// code and an empty Signal; a signal death carries 128+signum and the
// signal's name ("SIGKILL"); package ptyhost builds it from a process's end.
//
// Wire form: exitCode | signalLen | signal.
type Exit struct {
	Code   uint32
	Signal string
}

// AppendExit appends the payload of an Exit frame.
func AppendExit(dst []byte, e Exit) []byte {
	dst = appendUvarint(dst, uint64(e.Code))
	dst = appendUvarint(dst, uint64(len(e.Signal)))
	return append(dst, e.Signal...)
}

// DecodeExit decodes an Exit payload. A code above math.MaxUint32 is a
// framing error.
func DecodeExit(p []byte) (Exit, error) {
	d := decoder{p: p}
	code := d.u32("exit code")
	sig := d.bytes("exit signal")
	if err := d.end("exit"); err != nil {
		return Exit{}, err
	}
	return Exit{Code: code, Signal: string(sig)}, nil
}

// Frame returns e as an Exit frame.
func (e Exit) Frame(seq, relTime uint64) Frame {
	return Frame{Type: TypeExit, Seq: seq, RelTime: relTime, Payload: AppendExit(nil, e)}
}

// Snapshot is the envelope of a Snapshot frame. Screen holds the encoded
// screen in Format (FormatScreenV1 is the only one defined). NewSnapshot
// builds one from a Screen; the DecodeScreen method reads it back.
//
// Wire form: atSeq | format:u8 | screenLen | screen.
type Snapshot struct {
	AtSeq  uint64
	Format uint8
	Screen []byte
}

// FormatScreenV1 is snapshot format 0x01, the Screen model.
const FormatScreenV1 uint8 = 0x01

// NewSnapshot encodes s in format 0x01 into a Snapshot showing every frame
// up to and including atSeq. It fails if s is invalid (see AppendScreen).
func NewSnapshot(atSeq uint64, s *Screen) (Snapshot, error) {
	b, err := AppendScreen(nil, s)
	if err != nil {
		return Snapshot{}, err
	}
	return Snapshot{AtSeq: atSeq, Format: FormatScreenV1, Screen: b}, nil
}

// DecodeScreen decodes the envelope's screen; a format other than
// FormatScreenV1 is a framing error.
func (s Snapshot) DecodeScreen() (Screen, error) {
	if s.Format != FormatScreenV1 {
		return Screen{}, framingf("snapshot format 0x%02x is unknown", s.Format)
	}
	return DecodeScreen(s.Screen)
}

// AppendSnapshot appends the payload of a Snapshot frame. The screen bytes
// are copied as they are; only the format byte is checked: a format other
// than FormatScreenV1 returns dst unchanged and a *FramingError.
func AppendSnapshot(dst []byte, s Snapshot) ([]byte, error) {
	if s.Format != FormatScreenV1 {
		return dst, framingf("snapshot format 0x%02x is unknown", s.Format)
	}
	dst = appendUvarint(dst, s.AtSeq)
	dst = append(dst, s.Format)
	dst = appendUvarint(dst, uint64(len(s.Screen)))
	return append(dst, s.Screen...), nil
}

// DecodeSnapshot decodes a Snapshot envelope. Screen aliases p and is not
// validated: decode it with the DecodeScreen method. A format other than
// FormatScreenV1 is a framing error.
func DecodeSnapshot(p []byte) (Snapshot, error) {
	d := decoder{p: p}
	var s Snapshot
	s.AtSeq = d.uvarint("snapshot atSeq")
	s.Format = d.u8("snapshot format")
	s.Screen = d.bytes("snapshot screen")
	if err := d.end("snapshot"); err != nil {
		return Snapshot{}, err
	}
	if s.Format != FormatScreenV1 {
		return Snapshot{}, framingf("snapshot format 0x%02x is unknown", s.Format)
	}
	return s, nil
}

// Frame returns s as a Snapshot frame, or the error AppendSnapshot
// reports. An in-stream snapshot has seq = AtSeq+1; a post-Exit or resync
// snapshot has seq 0 and relTime 0 (PROTOCOL.md §4).
func (s Snapshot) Frame(seq, relTime uint64) (Frame, error) {
	p, err := AppendSnapshot(nil, s)
	if err != nil {
		return Frame{}, err
	}
	return Frame{Type: TypeSnapshot, Seq: seq, RelTime: relTime, Payload: p}, nil
}

// u32 reads a uvarint that must fit in 32 bits.
func (d *decoder) u32(what string) uint32 {
	v := d.uvarint(what)
	if v > math.MaxUint32 {
		d.fail(framingf("%s: %d exceeds 32 bits", what, v))
		return 0
	}
	return uint32(v)
}
