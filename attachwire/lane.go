package attachwire

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
)

// The degraded lane's up half (docs/protocol.md §7): a peer POSTs its
// frames in JSON batches, each frame in standard base64, and the relay
// answers 200 or 409 with the highest sequence it holds. A batch is
// applied whole or not at all; its batchId makes a retry idempotent.

// MaxBatchIDBytes bounds a batchId: the module's peers send 32 hex
// characters.
const MaxBatchIDBytes = 128

// MaxBatchAnswerBytes bounds the body of a batch's answer: a peer reads no
// more than this of it.
const MaxBatchAnswerBytes = 4 << 10

// HostBatch is the body of a host's POST to …/host/output. Frames are
// contiguous seq-bearing frames FirstSeq..LastSeq; OutOfSeq holds the
// host's controls and post-Exit Snapshots (seq 0), outside the contiguity
// rule and the ack; GapFrom, when a host cannot rewind after a 409, asks
// the relay to accept FirstSeq past a gap.
type HostBatch struct {
	BatchID  string   `json:"batchId"`
	FirstSeq uint64   `json:"firstSeq"`
	LastSeq  uint64   `json:"lastSeq"`
	Frames   []string `json:"frames"`
	OutOfSeq []string `json:"outOfSeq"`
	GapFrom  *uint64  `json:"gapFrom,omitempty"`
}

// HostBatchAnswer is the body of a 200 or 409 to a host batch: AckSeq is
// the highest contiguous host seq the relay holds; after a 409 the host
// resends from AckSeq+1.
type HostBatchAnswer struct {
	BatchID string `json:"batchId"`
	AckSeq  uint64 `json:"ackSeq"`
}

// ViewerBatch is the body of a driver's or viewer's POST to …/input:
// Inputs are Input frames with contiguous inputSeq FirstInputSeq..
// LastInputSeq (both omitted in a control-only batch); Controls are
// Control frames and, since a viewport change is out of namespace too,
// Resize frames, applied in order.
type ViewerBatch struct {
	BatchID       string   `json:"batchId"`
	FirstInputSeq *uint64  `json:"firstInputSeq,omitempty"`
	LastInputSeq  *uint64  `json:"lastInputSeq,omitempty"`
	Inputs        []string `json:"inputs"`
	Controls      []string `json:"controls"`
}

// ViewerBatchAnswer is the body of a 200 or 409 to a viewer batch.
type ViewerBatchAnswer struct {
	BatchID     string `json:"batchId"`
	AckInputSeq uint64 `json:"ackInputSeq"`
}

// ErrBadBatch is wrapped by every refusal of a batch's shape: nothing of
// such a batch is applied (the relay answers 400).
var ErrBadBatch = errors.New("attachwire: bad batch")

// BatchError is a refused batch; Reason names the broken rule.
type BatchError struct{ Reason string }

func (e *BatchError) Error() string { return ErrBadBatch.Error() + ": " + e.Reason }

// Unwrap returns ErrBadBatch.
func (e *BatchError) Unwrap() error { return ErrBadBatch }

// NewBatchID returns 16 random bytes in hex: unique, so that a relay's
// batchId dedup only ever matches a retry.
func NewBatchID() string {
	var id [16]byte
	rand.Read(id[:])
	return hex.EncodeToString(id[:])
}

func badBatch(format string, a ...any) error { return &BatchError{Reason: fmt.Sprintf(format, a...)} }

// NewHostBatch builds the body that carries frames, contiguous
// seq-bearing frames in order, under id.
func NewHostBatch(id string, frames []Frame) (HostBatch, error) {
	b := HostBatch{BatchID: id, Frames: make([]string, len(frames)), OutOfSeq: []string{}}
	if len(frames) > 0 {
		b.FirstSeq, b.LastSeq = frames[0].Seq, frames[len(frames)-1].Seq
	}
	for i, f := range frames {
		s, err := EncodeLaneFrame(f)
		if err != nil {
			return HostBatch{}, fmt.Errorf("attachwire: batch frame %d: %w", f.Seq, err)
		}
		b.Frames[i] = s
	}
	return b, nil
}

// NewViewerBatch builds the body that carries inputs, Input frames whose
// inputSeqs run on by one, and controls, Control or Resize frames, under
// id.
func NewViewerBatch(id string, inputs, controls []Frame) (ViewerBatch, error) {
	b := ViewerBatch{BatchID: id, Inputs: make([]string, 0, len(inputs)), Controls: make([]string, 0, len(controls))}
	for _, f := range inputs {
		in, err := DecodeInput(f.Payload)
		if err != nil {
			return ViewerBatch{}, fmt.Errorf("attachwire: batch input: %w", err)
		}
		if b.FirstInputSeq == nil {
			first := in.InputSeq
			b.FirstInputSeq = &first
		}
		last := in.InputSeq
		b.LastInputSeq = &last
		s, err := EncodeLaneFrame(f)
		if err != nil {
			return ViewerBatch{}, fmt.Errorf("attachwire: batch input: %w", err)
		}
		b.Inputs = append(b.Inputs, s)
	}
	for _, f := range controls {
		s, err := EncodeLaneFrame(f)
		if err != nil {
			return ViewerBatch{}, fmt.Errorf("attachwire: batch control: %w", err)
		}
		b.Controls = append(b.Controls, s)
	}
	return b, nil
}

// decodeStrict decodes b into v: one object, no unknown members, nothing
// after it.
func decodeStrict(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return badBatch("not a batch object")
	}
	if d.More() {
		return badBatch("trailing data after the batch")
	}
	return nil
}

func checkBatchID(id string) error {
	if id == "" || len(id) > MaxBatchIDBytes {
		return badBatch("batchId missing or longer than %d bytes", MaxBatchIDBytes)
	}
	return nil
}

func decodeBatchFrame(s string) (Frame, error) {
	f, err := DecodeLaneFrame([]byte(s))
	if err != nil {
		return Frame{}, badBatch("frame: %v", err)
	}
	return f, nil
}

// ParsedHostBatch is a host batch whose frames decoded and whose shape
// holds.
type ParsedHostBatch struct {
	HostBatch
	// SeqFrames are Frames decoded: seqs FirstSeq, FirstSeq+1, …
	SeqFrames []Frame
	// OutOfSeqFrames are OutOfSeq decoded: seq-0 Controls and Snapshots.
	OutOfSeqFrames []Frame
}

// ParseHostBatch decodes and checks a host batch: a batchId; frames with
// seq FirstSeq+i, of the host's seq-bearing types with payloads that
// decode, LastSeq the last one's; outOfSeq frames with seq 0 that are
// Control or Snapshot. An error wraps ErrBadBatch. The caller bounds the
// body's size.
func ParseHostBatch(body []byte) (ParsedHostBatch, error) {
	var p ParsedHostBatch
	if err := decodeStrict(body, &p.HostBatch); err != nil {
		return p, err
	}
	if err := checkBatchID(p.BatchID); err != nil {
		return p, err
	}
	if len(p.Frames) > 0 && (p.FirstSeq == 0 || p.LastSeq != p.FirstSeq+uint64(len(p.Frames))-1) {
		return p, badBatch("firstSeq..lastSeq does not span the %d frames", len(p.Frames))
	}
	p.SeqFrames = make([]Frame, 0, len(p.Frames))
	for i, s := range p.Frames {
		f, err := decodeBatchFrame(s)
		if err != nil {
			return p, err
		}
		if f.Seq != p.FirstSeq+uint64(i) {
			return p, badBatch("frame %d has seq %d, want %d", i, f.Seq, p.FirstSeq+uint64(i))
		}
		if err := checkHostPayload(f); err != nil {
			return p, err
		}
		p.SeqFrames = append(p.SeqFrames, f)
	}
	p.OutOfSeqFrames = make([]Frame, 0, len(p.OutOfSeq))
	for _, s := range p.OutOfSeq {
		f, err := decodeBatchFrame(s)
		if err != nil {
			return p, err
		}
		if f.Seq != 0 || (f.Type != TypeControl && f.Type != TypeSnapshot) {
			return p, badBatch("outOfSeq holds only seq-0 Control and Snapshot frames")
		}
		p.OutOfSeqFrames = append(p.OutOfSeqFrames, f)
	}
	return p, nil
}

// checkHostPayload refuses, before anything of a batch is applied, a
// frame a relay would refuse while applying it.
func checkHostPayload(f Frame) error {
	var err error
	switch f.Type {
	case TypeOutput, TypeSnapshot:
		// Output is any bytes; a bad Snapshot is shown as an empty screen.
	case TypeResize:
		_, err = DecodeResize(f.Payload)
	case TypeMarker:
		_, err = DecodeMarker(f.Payload)
	case TypeExit:
		_, err = DecodeExit(f.Payload)
	default:
		return badBatch("%s in frames: controls go in outOfSeq, and hosts send no Input", f.Type)
	}
	if err != nil {
		return badBatch("%s: %v", f.Type, err)
	}
	return nil
}

// ParsedViewerBatch is a viewer batch whose frames decoded and whose
// shape holds.
type ParsedViewerBatch struct {
	ViewerBatch
	// InputPayloads are Inputs decoded: inputSeqs FirstInputSeq, +1, …
	InputPayloads []Input
	// ControlFrames are Controls decoded: Control and Resize frames.
	ControlFrames []Frame
}

// ParseViewerBatch decodes and checks a viewer batch: a batchId; Input
// frames whose inputSeqs run FirstInputSeq..LastInputSeq (both present
// exactly when there are inputs); controls that are Control or Resize
// frames whose payloads frame (an unknown control type passes: a newer
// peer's, which the relay ignores). An error wraps ErrBadBatch. The caller
// bounds the body's size.
func ParseViewerBatch(body []byte) (ParsedViewerBatch, error) {
	var p ParsedViewerBatch
	if err := decodeStrict(body, &p.ViewerBatch); err != nil {
		return p, err
	}
	if err := checkBatchID(p.BatchID); err != nil {
		return p, err
	}
	if len(p.Inputs) > 0 {
		if p.FirstInputSeq == nil || p.LastInputSeq == nil || *p.FirstInputSeq == 0 ||
			*p.LastInputSeq != *p.FirstInputSeq+uint64(len(p.Inputs))-1 {
			return p, badBatch("firstInputSeq..lastInputSeq does not span the %d inputs", len(p.Inputs))
		}
	} else if p.FirstInputSeq != nil || p.LastInputSeq != nil {
		return p, badBatch("a control-only batch has no firstInputSeq or lastInputSeq")
	}
	p.InputPayloads = make([]Input, 0, len(p.Inputs))
	for i, s := range p.Inputs {
		f, err := decodeBatchFrame(s)
		if err != nil {
			return p, err
		}
		if f.Type != TypeInput {
			return p, badBatch("inputs holds only Input frames")
		}
		in, err := DecodeInput(f.Payload)
		if err != nil {
			return p, badBatch("Input: %v", err)
		}
		if in.InputSeq != *p.FirstInputSeq+uint64(i) {
			return p, badBatch("input %d has inputSeq %d, want %d", i, in.InputSeq, *p.FirstInputSeq+uint64(i))
		}
		p.InputPayloads = append(p.InputPayloads, in)
	}
	p.ControlFrames = make([]Frame, 0, len(p.Controls))
	for _, s := range p.Controls {
		f, err := decodeBatchFrame(s)
		if err != nil {
			return p, err
		}
		switch f.Type {
		case TypeControl:
			var fe *FramingError
			if _, err := DecodeControl(f.Payload); errors.As(err, &fe) {
				return p, badBatch("control: %v", err)
			}
		case TypeResize:
			if _, err := DecodeResize(f.Payload); err != nil {
				return p, badBatch("Resize: %v", err)
			}
		default:
			return p, badBatch("controls holds only Control and Resize frames")
		}
		p.ControlFrames = append(p.ControlFrames, f)
	}
	return p, nil
}

// ParseHostBatchAnswer decodes the body of a 200 or 409 to a host batch,
// refusing one longer than MaxBatchAnswerBytes before decoding it.
func ParseHostBatchAnswer(body []byte) (HostBatchAnswer, error) {
	var a HostBatchAnswer
	return a, parseAnswer(body, &a)
}

// ParseViewerBatchAnswer decodes the body of a 200 or 409 to a viewer
// batch, refusing one longer than MaxBatchAnswerBytes before decoding it.
func ParseViewerBatchAnswer(body []byte) (ViewerBatchAnswer, error) {
	var a ViewerBatchAnswer
	return a, parseAnswer(body, &a)
}

func parseAnswer(body []byte, v any) error {
	if len(body) > MaxBatchAnswerBytes {
		return &FramingError{Reason: fmt.Sprintf("batch answer longer than %d bytes", MaxBatchAnswerBytes)}
	}
	if err := json.Unmarshal(body, v); err != nil {
		return &FramingError{Reason: "batch answer", Err: err}
	}
	return nil
}
