package seal

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"fmt"
)

// TextKind names what a sealed text is; it is bound into the text's
// associated data, so a relay cannot pass one kind off as another.
type TextKind byte

// The texts of input proposals that a sealed room seals (docs/protocol.md
// §6, "Input proposals", and section 8): every control stays readable but
// these members, which carry what a person or an agent would type.
const (
	// TextProposal: a proposal control's text, bound to its id.
	TextProposal TextKind = 'p'
	// TextDecision: a decide control's edited text, bound to its id.
	TextDecision TextKind = 'd'
	// TextPropose: a propose control's text (it has no id yet).
	TextPropose TextKind = 'q'
	// TextReason: a proposal's or a decision's reason, bound to its id.
	TextReason TextKind = 'r'
)

// textAAD is the associated data of a sealed text: the room's prefix, a
// zero byte (no frame type is zero, so no frame's associated data begins
// so), the kind, and the id.
func (r *Room) textAAD(kind TextKind, id string) []byte {
	dst := make([]byte, 0, len(r.prefix)+2+binary.MaxVarintLen64+len(id))
	dst = append(dst, r.prefix...)
	dst = append(dst, 0, byte(kind))
	dst = binary.AppendUvarint(dst, uint64(len(id)))
	return append(dst, id...)
}

// SealText seals text, a control member of kind about proposal id, under
// a fresh random nonce, and returns the box in unpadded base64url: the
// member's value in a sealed room. The empty text stays empty.
func (r *Room) SealText(kind TextKind, id, text string) string {
	if text == "" {
		return ""
	}
	var nonce [NonceSize]byte
	rand.Read(nonce[:]) // never fails: it crashes the program instead
	box := r.box(make([]byte, 0, Overhead+len(text)), nonce[:], r.textAAD(kind, id), []byte(text))
	return base64.RawURLEncoding.EncodeToString(box)
}

// OpenText opens what SealText made for kind and id: an error wrapping
// ErrOpen for a value that is not base64url, was sealed under another key,
// room, kind or id, or was altered. The empty value opens as empty.
func (r *Room) OpenText(kind TextKind, id, sealed string) (string, error) {
	if sealed == "" {
		return "", nil
	}
	box, err := base64.RawURLEncoding.DecodeString(sealed)
	if err != nil {
		return "", fmt.Errorf("%w: a sealed text that is not base64url", ErrOpen)
	}
	p, err := r.unbox(box, r.textAAD(kind, id))
	if err != nil {
		return "", err
	}
	return string(p), nil
}

// SealedTextLen is the length of SealText's value for a text of n bytes.
func SealedTextLen(n int) int { return base64.RawURLEncoding.EncodedLen(Overhead + n) }
