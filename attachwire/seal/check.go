package seal

import (
	"fmt"

	"github.com/ptyhost/ptyhost/attachwire"
)

// Info is what a relay reads of a sealed frame without the key.
type Info struct {
	// AtSeq and Epoch are a Snapshot's: the position it shows and the
	// epoch it states.
	AtSeq, Epoch uint64
}

// Check verifies the readable parts of a sealed frame (the form Seal
// writes) without the key: every length is consistent and every sealed
// box is long enough to hold its nonce and tag. It is what a relay checks
// of a sealed room's frames, which it can neither open nor sanitize. A
// defect is a *attachwire.FramingError.
func Check(f attachwire.Frame) (Info, error) {
	short := func(what string, n int) error {
		return &attachwire.FramingError{Reason: fmt.Sprintf("sealed %s of %d bytes is shorter than a nonce and tag", what, n)}
	}
	switch f.Type {
	case attachwire.TypeOutput, attachwire.TypeExit:
		if len(f.Payload) < Overhead {
			return Info{}, short(f.Type.String(), len(f.Payload))
		}
	case attachwire.TypeMarker:
		b, err := markerBox(f.Payload)
		if err != nil {
			return Info{}, err
		}
		if len(b) < Overhead {
			return Info{}, short("marker label", len(b))
		}
	case attachwire.TypeInput:
		in, err := attachwire.DecodeInput(f.Payload)
		if err != nil {
			return Info{}, err
		}
		if len(in.Data) < Overhead {
			return Info{}, short("input data", len(in.Data))
		}
	case attachwire.TypeSnapshot:
		s, ep, b, err := snapshotParts(f.Payload)
		if err != nil {
			return Info{}, err
		}
		if len(b) < Overhead {
			return Info{}, short("snapshot screen", len(b))
		}
		return Info{AtSeq: s.AtSeq, Epoch: ep}, nil
	case attachwire.TypeResize:
		if _, err := attachwire.DecodeResize(f.Payload); err != nil {
			return Info{}, err
		}
	}
	return Info{}, nil
}
