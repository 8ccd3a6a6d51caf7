package attachclient

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"sync/atomic"

	"github.com/ptyhost/ptyhost/agent"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/sanitize"
	"github.com/ptyhost/ptyhost/attachwire/seal"
)

// A sealed room (docs/protocol.md, section 8): with HostConfig.Key set,
// the session is wrapped so that every frame the carrier takes from it is
// sealed, whichever path takes it (the pump, a lane's rewind, a snapshot
// answer), and the relay's Input is opened before it is typed.

// sealedSession seals what the carrier reads from the session. Output is
// sanitized with the Driver profile before sealing: the relay, which
// cannot read it, cannot sanitize it.
type sealedSession struct {
	agent.InteractiveSession
	room    atomic.Pointer[seal.Room] // the current key's; rekey swaps it
	session string
	epoch   uint64
}

// newSealedSession wraps s for the room of attachURL (its last path
// element is the session id) sealed under k, at the session's epoch.
func newSealedSession(s agent.InteractiveSession, k *seal.Key, attachURL string) (*sealedSession, error) {
	u, err := url.Parse(attachURL)
	if err != nil {
		return nil, configErr("AttachURL: %v", err)
	}
	scr, _, err := s.Snapshot()
	if err != nil {
		return nil, fmt.Errorf("attachclient: the session's epoch: %w", err)
	}
	ss := &sealedSession{InteractiveSession: s, session: path.Base(u.Path), epoch: scr.Epoch}
	ss.rekey(k)
	return ss, nil
}

// rekey seals what is read from now on under k.
func (s *sealedSession) rekey(k *seal.Key) { s.room.Store(seal.NewRoom(k, s.session)) }

// Subscribe returns a subscription whose frames are sanitized and sealed.
func (s *sealedSession) Subscribe(after uint64) (agent.InteractiveSubscription, error) {
	sub, err := s.InteractiveSession.Subscribe(after)
	if err != nil {
		return nil, err
	}
	return &sealedSub{InteractiveSubscription: sub, s: s, san: sanitize.New(sanitize.Options{Profile: sanitize.Driver})}, nil
}

// EmitSnapshot publishes an in-stream snapshot (which reaches the relay
// sealed through the subscriptions) or returns the post-Exit one, sealed
// for where the relay serves it.
func (s *sealedSession) EmitSnapshot() (attachwire.Frame, error) {
	f, err := s.InteractiveSession.EmitSnapshot()
	if err != nil {
		return f, err
	}
	if f.Seq == 0 {
		return s.room.Load().SealFinal(f, s.epoch)
	}
	return s.room.Load().Seal(f, s.epoch)
}

// AppendSnapshot appends a sealed Snapshot payload: a key frame beside
// the stream before Exit, the final screen after it.
func (s *sealedSession) AppendSnapshot(dst []byte) ([]byte, uint64, error) {
	p, at, err := s.InteractiveSession.AppendSnapshot(nil)
	if err != nil {
		return dst, at, err
	}
	f := attachwire.Frame{Type: attachwire.TypeSnapshot, Payload: p}
	if _, exited := s.Exit(); exited {
		f, err = s.room.Load().SealFinal(f, s.epoch)
	} else {
		f, err = s.room.Load().Seal(f, s.epoch)
	}
	if err != nil {
		return dst, at, err
	}
	return append(dst, f.Payload...), at, nil
}

// open opens a relay-delivered Input frame.
func (s *sealedSession) open(f attachwire.Frame) (attachwire.Frame, error) {
	return s.room.Load().Open(f, s.epoch)
}

// sealedSub is one sealing cursor: its own sanitizer follows the stream
// it reads, as the relay's did for a plain room.
type sealedSub struct {
	agent.InteractiveSubscription
	s   *sealedSession
	san *sanitize.Sanitizer
	// lent are the sealed Output payloads Next has returned, oldest
	// first; free are buffers the pump has said it is done with
	// (recycle), which the next Output frames are sanitized and sealed
	// into, in place, so that a steady stream allocates nothing.
	lent, free [][]byte
}

// maxFree bounds the buffers a sealing cursor keeps for reuse: a lane's
// batch lends up to maxLaneBatch, but one or two serve a steady stream.
const maxFree = 4

// recycler is a subscription whose frames' payloads may be reused once
// the pump has sent them: recycle says that every frame read so far is
// sent except the last keep.
type recycler interface{ recycle(keep int) }

var _ recycler = (*sealedSub)(nil)

// recycle takes back the payloads lent before the last keep.
func (sub *sealedSub) recycle(keep int) {
	n := len(sub.lent) - keep
	if n <= 0 {
		return
	}
	for _, b := range sub.lent[:n] {
		if len(sub.free) < maxFree {
			sub.free = append(sub.free, b)
		}
	}
	sub.lent = append(sub.lent[:0], sub.lent[n:]...)
}

// Next returns the next frame, sanitized and sealed.
func (sub *sealedSub) Next(ctx context.Context) (attachwire.Frame, error) {
	f, err := sub.InteractiveSubscription.Next(ctx)
	if err != nil {
		return f, err
	}
	switch f.Type {
	case attachwire.TypeOutput:
		var buf []byte
		if n := len(sub.free); n > 0 {
			buf, sub.free = sub.free[n-1][:seal.NonceSize], sub.free[:n-1]
		} else {
			buf = make([]byte, seal.NonceSize, seal.Overhead+len(f.Payload))
		}
		buf = sub.san.Append(buf, f.Payload)
		f.Payload = sub.s.room.Load().SealOutput(buf, sub.s.epoch, f.Seq)
		sub.lent = append(sub.lent, f.Payload)
		return f, nil
	case attachwire.TypeResize:
		if r, err := attachwire.DecodeResize(f.Payload); err == nil {
			sub.san.SetSize(int(r.Cols), int(r.Rows))
		}
	}
	return sub.s.room.Load().Seal(f, sub.s.epoch)
}

// keyID is the key id the host's subscribe states, "" for a plain room.
func (h *host) keyID() string {
	ss, ok := h.cfg.Session.(*sealedSession)
	if !ok {
		return ""
	}
	return ss.room.Load().Key().ID().String()
}

// errRekeyed ends a leg when the host starts a new room key: the next
// leg subscribes under it at once, and the relay starts a new generation
// that only the new key's holders may join.
var errRekeyed = errors.New("attachclient: a new room key; subscribing under it")

// rekey takes a new key from HostConfig.Rekey: it seals from now on
// under k and reports whether the leg must end for the relay to hear it.
func (h *host) rekey(k *seal.Key) bool {
	ss, ok := h.cfg.Session.(*sealedSession)
	if !ok || k == nil {
		h.log.Warn("attachclient: a new room key for a room that is not sealed: ignored")
		return false
	}
	ss.rekey(k)
	h.log.Info("attachclient: new room key", "keyId", k.ID().String())
	return true
}
