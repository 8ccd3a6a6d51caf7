package relay

import (
	"net/http"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
)

// Sealed rooms (docs/protocol.md, section 8): a room is sealed when its
// host subscribes with a key id, and then every leg must state the same
// one. The relay holds no key: it checks the readable parts of sealed
// frames (seal.Check) and serves them as they came, unsanitized; the
// host sanitizes before sealing and each viewer after opening.

// The sentences a refused leg reads: each says what to do.
const (
	msgSealedNeedsKey  = "the room is end-to-end encrypted: open it with a link that carries its key (the part after #)"
	msgSealedOtherKey  = "the room's key has changed: this link's key no longer opens it; ask the host for a new link"
	msgSealedPlainRoom = "the room is not end-to-end encrypted, and this link expects it to be"
)

// errSealed refuses a leg whose sealing does not match its room's.
type errSealed struct{ msg string }

func (e *errSealed) Error() string { return "relay: " + e.msg }

// sealMismatch returns why a leg stating key id legID does not belong in
// a room sealed under roomID (empty: plain), or "" when it does.
func sealMismatch(roomID, legID string) string {
	switch {
	case roomID == legID:
		return ""
	case legID == "":
		return msgSealedNeedsKey
	case roomID == "":
		return msgSealedPlainRoom
	}
	return msgSealedOtherKey
}

// sealCheckLocked refuses a joining viewer or driver whose key id is not
// the room's. A room whose host has not bound yet takes anyone: the
// host's bind turns away those who do not match.
func (rm *room) sealCheckLocked(l *leg) error {
	if !rm.sealKnown {
		return nil
	}
	if msg := sealMismatch(rm.sealID, l.sealed); msg != "" {
		return &errSealed{msg: msg}
	}
	return nil
}

// sealBindLocked records the sealing of the host leg l that is binding
// and reports whether it changed (a host that started a new key, or
// turned sealing on or off): the ring's frames are then of no use to
// anyone holding the new key, and the caller starts a new generation.
func (rm *room) sealBindLocked(l *leg) (changed bool) {
	changed = rm.sealKnown && rm.sealID != l.sealed
	rm.sealKnown, rm.sealID = true, l.sealed
	return changed
}

// endUnsealedViewersLocked turns away every viewer whose key id is not
// the room's, after a host's bind set it.
func (rm *room) endUnsealedViewersLocked() {
	for v := range rm.viewers {
		if msg := sealMismatch(rm.sealID, v.sealed); msg != "" {
			v.end(&attachwire.ErrorControl{Code: attachwire.CodeSealed, Message: msg}, websocket.StatusPolicyViolation, string(attachwire.CodeSealed))
		}
	}
}

// sealedQuery is the key id a degraded-lane leg states in its ?sealed=
// query member (the lane has no subscribe for a viewer).
func sealedQuery(r *http.Request) string { return r.URL.Query().Get("sealed") }

// validSealed reports whether s is empty or a well-formed key id.
func validSealed(s string) bool {
	if s == "" {
		return true
	}
	_, err := seal.ParseKeyID(s)
	return err == nil
}

// admitSealedLocked is admitPlainLocked for a sealed room: the frame is
// kept as it came, once seal.Check finds its readable parts well formed.
// A snapshot must state the room's epoch and sit at atSeq+1, or it is
// replaced by an empty Output frame at its seq, as in a plain room (its
// viewers will find that frame fails to open, and resynchronise).
func (rm *room) admitSealedLocked(f attachwire.Frame) (attachwire.FrameType, uint64, []byte, error) {
	info, err := seal.Check(f)
	if f.Type == attachwire.TypeSnapshot {
		if err != nil || info.Epoch != rm.epoch || info.AtSeq+1 != f.Seq {
			rm.relay.log.Info("relay: host snapshot dropped", "room", rm.key.session, "seq", f.Seq)
			return attachwire.TypeOutput, 0, nil, nil
		}
		return f.Type, info.AtSeq, f.Payload, nil
	}
	if err != nil {
		return 0, 0, nil, err
	}
	if f.Type == attachwire.TypeResize {
		rs, _ := attachwire.DecodeResize(f.Payload)
		if err := rm.relay.cfg.checkSize(rs.Cols, rs.Rows); err != nil {
			return 0, 0, nil, err
		}
	}
	return f.Type, 0, f.Payload, nil
}

// validSealedSnapshotLocked is validSnapshotLocked for a sealed room: the
// readable envelope decodes and states the room's epoch.
func (rm *room) validSealedSnapshotLocked(p []byte) (attachwire.Snapshot, bool) {
	info, err := seal.Check(attachwire.Frame{Type: attachwire.TypeSnapshot, Payload: p})
	if err != nil || info.Epoch != rm.epoch {
		return attachwire.Snapshot{}, false
	}
	return attachwire.Snapshot{AtSeq: info.AtSeq, Format: attachwire.FormatScreenV1}, true
}

// snapshotCheckLocked returns the room's snapshot validator: the screen's
// own for a plain room, the readable envelope's for a sealed one.
func (rm *room) snapshotCheckLocked() func([]byte) (attachwire.Snapshot, bool) {
	if rm.sealID != "" {
		return rm.validSealedSnapshotLocked
	}
	return rm.validSnapshotLocked
}

// sealedWhy reads the sentence of a joinSealed reply's error control.
func sealedWhy(wires [][]byte) string {
	for _, w := range wires {
		f, err := attachwire.DecodeFrame(w)
		if err != nil || f.Type != attachwire.TypeControl {
			continue
		}
		if c, err := attachwire.DecodeControl(f.Payload); err == nil {
			if e, ok := c.(attachwire.ErrorControl); ok {
				return e.Message
			}
		}
	}
	return msgSealedNeedsKey
}
