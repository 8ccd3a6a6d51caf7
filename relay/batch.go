package relay

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ptyhost/ptyhost/attachwire"
)

// HostBatch is the body of a host's POST to …/host/output (attach-v1 §14):
// Frames are contiguous seq-bearing frames FirstSeq..LastSeq; OutOfSeq
// holds the host's controls and post-Exit Snapshots (seq 0), outside the
// contiguity rule and the ack; GapFrom, when a host cannot rewind, asks
// the relay to accept FirstSeq past a gap. Frames are standard base64.
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

// ErrBadBatch is wrapped by every refusal of a batch's shape (HTTP 400):
// nothing of such a batch is applied.
var ErrBadBatch = errors.New("relay: bad batch")

// BatchError is a refused batch; Reason names the broken rule.
type BatchError struct{ Reason string }

func (e *BatchError) Error() string { return ErrBadBatch.Error() + ": " + e.Reason }

// Unwrap returns ErrBadBatch.
func (e *BatchError) Unwrap() error { return ErrBadBatch }

func badBatch(format string, a ...any) error { return &BatchError{Reason: fmt.Sprintf(format, a...)} }

// maxBatchIDBytes bounds a batchId: attachclient's are 32 hex characters.
const maxBatchIDBytes = 128

// decodeJSONBatch decodes b into v strictly: one object, no unknown
// members, nothing after it.
func decodeJSONBatch(b []byte, v any) error {
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
	if id == "" || len(id) > maxBatchIDBytes {
		return badBatch("batchId missing or longer than %d bytes", maxBatchIDBytes)
	}
	return nil
}

// decodeB64Frame decodes one base64 frame.
func decodeB64Frame(s string) (attachwire.Frame, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return attachwire.Frame{}, badBatch("frame is not standard base64")
	}
	f, err := attachwire.DecodeFrame(b)
	if err != nil {
		return attachwire.Frame{}, badBatch("frame: %v", err)
	}
	return f, nil
}

// parsedHostBatch is a host batch whose frames decoded and whose shape
// holds.
type parsedHostBatch struct {
	HostBatch
	frames   []attachwire.Frame
	outOfSeq []attachwire.Frame
}

// parseHostBatch decodes and checks a host batch: a batchId; frames with
// seq FirstSeq+i, of the host's seq-bearing types with payloads that
// decode, LastSeq the last one's; outOfSeq frames with seq 0 that are
// Control or Snapshot. An error wraps ErrBadBatch.
func parseHostBatch(b []byte) (parsedHostBatch, error) {
	var p parsedHostBatch
	if err := decodeJSONBatch(b, &p.HostBatch); err != nil {
		return p, err
	}
	if err := checkBatchID(p.BatchID); err != nil {
		return p, err
	}
	if len(p.Frames) > 0 && (p.FirstSeq == 0 || p.LastSeq != p.FirstSeq+uint64(len(p.Frames))-1) {
		return p, badBatch("firstSeq..lastSeq does not span the %d frames", len(p.Frames))
	}
	for i, s := range p.Frames {
		f, err := decodeB64Frame(s)
		if err != nil {
			return p, err
		}
		if f.Seq != p.FirstSeq+uint64(i) {
			return p, badBatch("frame %d has seq %d, want %d", i, f.Seq, p.FirstSeq+uint64(i))
		}
		if err := checkHostPayload(f); err != nil {
			return p, err
		}
		p.frames = append(p.frames, f)
	}
	for _, s := range p.OutOfSeq {
		f, err := decodeB64Frame(s)
		if err != nil {
			return p, err
		}
		if f.Seq != 0 || (f.Type != attachwire.TypeControl && f.Type != attachwire.TypeSnapshot) {
			return p, badBatch("outOfSeq holds only seq-0 Control and Snapshot frames")
		}
		p.outOfSeq = append(p.outOfSeq, f)
	}
	return p, nil
}

// checkHostPayload refuses, before anything of the batch is applied, what
// room.ingest would refuse while applying it.
func checkHostPayload(f attachwire.Frame) error {
	var err error
	switch f.Type {
	case attachwire.TypeOutput, attachwire.TypeSnapshot:
		// Output is any bytes; a bad Snapshot becomes an empty Output.
	case attachwire.TypeResize:
		_, err = attachwire.DecodeResize(f.Payload)
	case attachwire.TypeMarker:
		_, err = attachwire.DecodeMarker(f.Payload)
	case attachwire.TypeExit:
		_, err = attachwire.DecodeExit(f.Payload)
	default:
		return badBatch("%s in frames: controls go in outOfSeq, and hosts send no Input", f.Type)
	}
	if err != nil {
		return badBatch("%s: %v", f.Type, err)
	}
	return nil
}

// parsedViewerBatch is a viewer batch whose frames decoded and whose
// shape holds.
type parsedViewerBatch struct {
	ViewerBatch
	inputs   []attachwire.Input
	controls []attachwire.Frame
}

// parseViewerBatch decodes and checks a viewer batch: a batchId; Input
// frames whose inputSeqs run FirstInputSeq..LastInputSeq (both present
// exactly when there are inputs); controls that are Control or Resize
// frames. An error wraps ErrBadBatch.
func parseViewerBatch(b []byte) (parsedViewerBatch, error) {
	var p parsedViewerBatch
	if err := decodeJSONBatch(b, &p.ViewerBatch); err != nil {
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
	for i, s := range p.Inputs {
		f, err := decodeB64Frame(s)
		if err != nil {
			return p, err
		}
		if f.Type != attachwire.TypeInput {
			return p, badBatch("inputs holds only Input frames")
		}
		in, err := attachwire.DecodeInput(f.Payload)
		if err != nil {
			return p, badBatch("Input: %v", err)
		}
		if in.InputSeq != *p.FirstInputSeq+uint64(i) {
			return p, badBatch("input %d has inputSeq %d, want %d", i, in.InputSeq, *p.FirstInputSeq+uint64(i))
		}
		p.inputs = append(p.inputs, in)
	}
	for _, s := range p.Controls {
		f, err := decodeB64Frame(s)
		if err != nil {
			return p, err
		}
		switch f.Type {
		case attachwire.TypeControl:
			if _, err := attachwire.DecodeControl(f.Payload); err != nil && isFraming(err) {
				return p, badBatch("control: %v", err)
			}
		case attachwire.TypeResize:
			if _, err := attachwire.DecodeResize(f.Payload); err != nil {
				return p, badBatch("Resize: %v", err)
			}
		default:
			return p, badBatch("controls holds only Control and Resize frames")
		}
		p.controls = append(p.controls, f)
	}
	return p, nil
}
