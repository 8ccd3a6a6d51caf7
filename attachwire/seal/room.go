package seal

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/ptyhost/ptyhost/attachwire"
)

// aadLabel starts every associated data, so that nothing else this
// project authenticates can be taken for a sealed frame's.
const aadLabel = "ptyhost-e2e-v1"

// ErrOpen reports a frame that failed to open: the wrong key, or a frame
// altered, moved or made up by someone without the key. Errors from Open
// wrap it (errors.Is).
var ErrOpen = errors.New("seal: the frame failed its integrity check")

// Room seals and opens the frames of one room (one session id) under one
// key. It is safe for concurrent use.
type Room struct {
	key    *Key
	prefix []byte // aadLabel | roomLen | room | keyId
}

// NewRoom returns the sealer of session sessionID under k.
func NewRoom(k *Key, sessionID string) *Room {
	p := make([]byte, 0, len(aadLabel)+binary.MaxVarintLen64+len(sessionID)+KeyIDSize)
	p = append(p, aadLabel...)
	p = binary.AppendUvarint(p, uint64(len(sessionID)))
	p = append(p, sessionID...)
	p = append(p, k.id[:]...)
	return &Room{key: k, prefix: p}
}

// Key returns the room's key.
func (r *Room) Key() *Key { return r.key }

// Sealed reports whether frames of type t carry a sealed part.
func Sealed(t attachwire.FrameType) bool {
	switch t {
	case attachwire.TypeOutput, attachwire.TypeInput, attachwire.TypeMarker, attachwire.TypeExit, attachwire.TypeSnapshot:
		return true
	}
	return false
}

// aad appends the associated data of a frame of type t to dst: the room's
// prefix, the type, then the type's readable fields (docs/protocol.md,
// section 8).
func (r *Room) aad(dst []byte, t attachwire.FrameType, fields ...uint64) []byte {
	dst = append(dst, r.prefix...)
	dst = append(dst, byte(t))
	for _, v := range fields {
		dst = binary.AppendUvarint(dst, v)
	}
	return dst
}

// box appends nonce | ciphertext of plain under aad to dst.
func (r *Room) box(dst, nonce, aad, plain []byte) []byte {
	dst = append(dst, nonce...)
	return r.key.aead.Seal(dst, nonce, plain, aad)
}

// unbox opens nonce | ciphertext.
func (r *Room) unbox(box, aad []byte) ([]byte, error) {
	if len(box) < Overhead {
		return nil, fmt.Errorf("%w: a sealed box of %d bytes is shorter than its nonce and tag", ErrOpen, len(box))
	}
	p, err := r.key.aead.Open(nil, box[:NonceSize], box[NonceSize:], aad)
	if err != nil {
		return nil, ErrOpen
	}
	return p, nil
}

// Seal returns f with its private part sealed, under a fresh random
// nonce. epoch is the host's epoch: an Output, Marker or Exit frame, and
// an Input frame typed on a screen of that epoch, are bound to it (a
// Snapshot carries its own). Resize and Control frames are returned as
// they are. A payload that does not decode is a *attachwire.FramingError.
func (r *Room) Seal(f attachwire.Frame, epoch uint64) (attachwire.Frame, error) {
	var nonce [NonceSize]byte
	rand.Read(nonce[:]) // never fails: it crashes the program instead
	return r.seal(f, epoch, nonce[:], false)
}

// SealOutput seals an Output frame's payload (seq, of the host's epoch)
// in place and returns it: buf is NonceSize bytes of room followed by
// the plaintext, and comes back as what Seal gives the frame, nonce,
// ciphertext and tag, in the same array when it has Overhead-NonceSize
// bytes of spare capacity. Seal for a caller that builds the plaintext
// where the ciphertext goes, into a buffer it reuses.
func (r *Room) SealOutput(buf []byte, epoch, seq uint64) []byte {
	rand.Read(buf[:NonceSize]) // never fails: it crashes the program instead
	return r.sealOutput(buf, epoch, seq)
}

// sealOutput is SealOutput with the nonce already in buf.
func (r *Room) sealOutput(buf []byte, epoch, seq uint64) []byte {
	var abuf [128]byte
	buf = slices.Grow(buf, Overhead-NonceSize)
	plain := buf[NonceSize:]
	r.key.aead.Seal(plain[:0], buf[:NonceSize], plain, r.aad(abuf[:0], attachwire.TypeOutput, epoch, seq))
	return buf[:len(buf)+Overhead-NonceSize]
}

// SealFinal seals the post-Exit Snapshot (seq 0, atSeq = the Exit's seq
// E): its associated data carries atSeq E-1, the position a relay serves
// it at, with the Exit frame after it (the Exit changes nothing on the
// screen, so the screen after E-1 is the screen after E).
func (r *Room) SealFinal(f attachwire.Frame, epoch uint64) (attachwire.Frame, error) {
	if f.Type != attachwire.TypeSnapshot {
		return attachwire.Frame{}, fmt.Errorf("seal: SealFinal of a %v frame", f.Type)
	}
	var nonce [NonceSize]byte
	rand.Read(nonce[:]) // never fails: it crashes the program instead
	return r.seal(f, epoch, nonce[:], true)
}

// seal is Seal with the nonce given; final marks the post-Exit Snapshot.
func (r *Room) seal(f attachwire.Frame, epoch uint64, nonce []byte, final bool) (attachwire.Frame, error) {
	var abuf [128]byte
	out := f
	switch f.Type {
	case attachwire.TypeOutput:
		aad := r.aad(abuf[:0], f.Type, epoch, f.Seq)
		out.Payload = r.box(make([]byte, 0, Overhead+len(f.Payload)), nonce, aad, f.Payload)
	case attachwire.TypeMarker:
		m, err := attachwire.DecodeMarker(f.Payload)
		if err != nil {
			return attachwire.Frame{}, err
		}
		aad := r.aad(abuf[:0], f.Type, epoch, f.Seq)
		b := r.box(nil, nonce, aad, []byte(m.Label))
		out.Payload = append(binary.AppendUvarint(make([]byte, 0, len(b)+3), uint64(len(b))), b...)
	case attachwire.TypeExit:
		if _, err := attachwire.DecodeExit(f.Payload); err != nil {
			return attachwire.Frame{}, err
		}
		aad := r.aad(abuf[:0], f.Type, epoch, f.Seq)
		out.Payload = r.box(nil, nonce, aad, f.Payload)
	case attachwire.TypeInput:
		in, err := attachwire.DecodeInput(f.Payload)
		if err != nil {
			return attachwire.Frame{}, err
		}
		aad := r.aad(abuf[:0], f.Type, epoch, in.InputSeq, in.PenGeneration)
		in.Data = r.box(nil, nonce, aad, in.Data)
		out.Payload = attachwire.AppendInput(nil, in)
	case attachwire.TypeSnapshot:
		s, err := attachwire.DecodeSnapshot(f.Payload)
		if err != nil {
			return attachwire.Frame{}, err
		}
		ep, n := binary.Uvarint(s.Screen)
		if n <= 0 {
			return attachwire.Frame{}, &attachwire.FramingError{Reason: "snapshot screen has no epoch"}
		}
		at := s.AtSeq
		if final {
			if at == 0 {
				return attachwire.Frame{}, &attachwire.FramingError{Reason: "a post-Exit snapshot has atSeq 0"}
			}
			at--
		}
		aad := r.aad(abuf[:0], f.Type, at, uint64(s.Format), ep)
		sealed := binary.AppendUvarint(make([]byte, 0, n+Overhead+len(s.Screen)), ep)
		s.Screen = r.box(sealed, nonce, aad, s.Screen)
		p, err := attachwire.AppendSnapshot(nil, s)
		if err != nil {
			return attachwire.Frame{}, err
		}
		out.Payload = p
	}
	return out, nil
}

// Open returns f with its sealed part opened, as it was before Seal. epoch
// is the epoch the receiver is in: for an Output, Marker or Exit frame the
// epoch of the last snapshot it applied, for an Input frame the host's
// own. A Snapshot is opened at the atSeq it carries and checked to hold
// the epoch it states. Resize and Control frames are returned as they
// are. A frame that does not open is an error wrapping ErrOpen; one whose
// readable parts do not decode, a *attachwire.FramingError.
func (r *Room) Open(f attachwire.Frame, epoch uint64) (attachwire.Frame, error) {
	var abuf [128]byte
	out := f
	switch f.Type {
	case attachwire.TypeOutput:
		p, err := r.unbox(f.Payload, r.aad(abuf[:0], f.Type, epoch, f.Seq))
		if err != nil {
			return attachwire.Frame{}, err
		}
		out.Payload = p
	case attachwire.TypeMarker:
		b, err := markerBox(f.Payload)
		if err != nil {
			return attachwire.Frame{}, err
		}
		label, err := r.unbox(b, r.aad(abuf[:0], f.Type, epoch, f.Seq))
		if err != nil {
			return attachwire.Frame{}, err
		}
		if out.Payload, err = attachwire.AppendMarker(nil, attachwire.Marker{Label: string(label)}); err != nil {
			return attachwire.Frame{}, fmt.Errorf("%w: %w", ErrOpen, err)
		}
	case attachwire.TypeExit:
		p, err := r.unbox(f.Payload, r.aad(abuf[:0], f.Type, epoch, f.Seq))
		if err != nil {
			return attachwire.Frame{}, err
		}
		if _, err := attachwire.DecodeExit(p); err != nil {
			return attachwire.Frame{}, fmt.Errorf("%w: %w", ErrOpen, err)
		}
		out.Payload = p
	case attachwire.TypeInput:
		in, err := attachwire.DecodeInput(f.Payload)
		if err != nil {
			return attachwire.Frame{}, err
		}
		if in.Data, err = r.unbox(in.Data, r.aad(abuf[:0], f.Type, epoch, in.InputSeq, in.PenGeneration)); err != nil {
			return attachwire.Frame{}, err
		}
		out.Payload = attachwire.AppendInput(nil, in)
	case attachwire.TypeSnapshot:
		s, ep, b, err := snapshotParts(f.Payload)
		if err != nil {
			return attachwire.Frame{}, err
		}
		scr, err := r.unbox(b, r.aad(abuf[:0], f.Type, s.AtSeq, uint64(s.Format), ep))
		if err != nil {
			return attachwire.Frame{}, err
		}
		if inner, n := binary.Uvarint(scr); n <= 0 || inner != ep {
			return attachwire.Frame{}, fmt.Errorf("%w: the sealed screen's epoch is not the epoch it is sealed under", ErrOpen)
		}
		s.Screen = scr
		if out.Payload, err = attachwire.AppendSnapshot(nil, s); err != nil {
			return attachwire.Frame{}, err
		}
	}
	return out, nil
}

// markerBox returns the sealed label of a sealed Marker payload.
func markerBox(p []byte) ([]byte, error) {
	n, k := binary.Uvarint(p)
	if k <= 0 {
		return nil, &attachwire.FramingError{Reason: "sealed marker length is malformed"}
	}
	if rest := uint64(len(p) - k); n != rest {
		return nil, &attachwire.FramingError{Reason: fmt.Sprintf("sealed marker says %d bytes, has %d", n, rest)}
	}
	return p[k:], nil
}

// snapshotParts splits a sealed Snapshot payload into its envelope, the
// epoch it states and its sealed screen.
func snapshotParts(p []byte) (attachwire.Snapshot, uint64, []byte, error) {
	s, err := attachwire.DecodeSnapshot(p)
	if err != nil {
		return s, 0, nil, err
	}
	ep, n := binary.Uvarint(s.Screen)
	if n <= 0 {
		return s, 0, nil, &attachwire.FramingError{Reason: "sealed snapshot epoch is malformed"}
	}
	return s, ep, s.Screen[n:], nil
}
