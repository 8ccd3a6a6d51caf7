package ptyhost

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/ptyhost/ptyhost/attachwire"
)

// Snapshot returns the current screen and the seq it reflects: replaying
// frames 1..atSeq into a fresh terminal gives the same screen. It is read
// only: nothing is published. The screen's Epoch is Spec.Epoch and its Echo
// is the PTY's ECHO flag. After exit it returns the final screen (as it was
// when the Exit frame was published) with atSeq the Exit frame's seq. The Screen is the caller's.
func (s *Session) Snapshot() (attachwire.Screen, uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var scr attachwire.Screen
	if s.exited.Load() {
		scr, err := s.finalScreenLocked()
		if err != nil {
			return attachwire.Screen{}, 0, fmt.Errorf("ptyhost: snapshot: %w", err)
		}
		return scr, s.exitSeq, nil
	}
	s.screenLocked(&scr)
	return scr, s.seq, nil
}

// AppendSnapshot appends the payload of a Snapshot frame showing the
// current screen to dst, and returns it with the seq it reflects: the
// screen Snapshot returns, encoded, with the same atSeq (replaying frames
// 1..atSeq gives it; after exit it is the final screen and atSeq the Exit
// frame's seq). It is read only: nothing is published.
//
// It is the call for a relay or carrier serving joins and backpressure
// skips: with the engine backend it encodes straight from the emulator's
// cells, under the session lock like Snapshot, and allocates nothing when
// dst has room for the payload, so one reused buffer serves every call.
// On error dst is returned unchanged.
func (s *Session) AppendSnapshot(dst []byte) ([]byte, uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	at := s.seq
	if s.exited.Load() {
		at = s.exitSeq
	}
	p, err := s.appendSnapshotLocked(dst, at)
	if err != nil {
		return dst, 0, fmt.Errorf("ptyhost: snapshot: %w", err)
	}
	return p, at, nil
}

// EmitSnapshot publishes the current screen as an in-stream Snapshot frame
// with seq S and atSeq S-1, and returns it. After exit the frame is out of
// namespace: seq 0, rel_time 0, atSeq the Exit frame's seq; it is returned
// but never put in the ring. It works for as long as the Session lives.
func (s *Session) EmitSnapshot() (attachwire.Frame, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exited.Load() {
		payload, err := s.appendSnapshotLocked(nil, s.exitSeq)
		if err != nil {
			return attachwire.Frame{}, fmt.Errorf("ptyhost: snapshot: %w", err)
		}
		return attachwire.Frame{Type: attachwire.TypeSnapshot, Payload: payload}, nil
	}
	payload, err := s.snapshotPayloadLocked(s.seq)
	if err != nil {
		return attachwire.Frame{}, fmt.Errorf("ptyhost: snapshot: %w", err)
	}
	return s.publishLocked(attachwire.TypeSnapshot, payload), nil
}

// snapshotPayloadLocked returns a Snapshot payload of its own, labelled
// atSeq, in one allocation of its exact size: it is encoded into the
// session's scratch buffer and copied, so a payload the ring keeps holds
// no slack against RingBytes. s.mu must be held.
func (s *Session) snapshotPayloadLocked(atSeq uint64) ([]byte, error) {
	p, err := s.appendSnapshotLocked(s.snapBuf[:0], atSeq)
	if err != nil {
		return nil, err
	}
	s.snapBuf = p
	return bytes.Clone(p), nil
}

// snapshotAppender is a terminal that encodes its screen straight into a
// Snapshot payload, with no Screen in between (the engine). Other
// terminals fill a Screen, which is then encoded.
type snapshotAppender interface {
	AppendSnapshot(dst []byte, atSeq, epoch uint64, echo attachwire.EchoMode) ([]byte, error)
}

// appendSnapshotLocked appends the Snapshot payload of the current screen,
// or after exit of the final one, labelled atSeq. s.mu must be held.
func (s *Session) appendSnapshotLocked(dst []byte, atSeq uint64) ([]byte, error) {
	if s.exited.Load() {
		if s.finalSnap == nil {
			return attachwire.AppendScreenSnapshot(dst, atSeq, &s.final)
		}
		sn, err := attachwire.DecodeSnapshot(s.finalSnap)
		if err != nil {
			return dst, err
		}
		sn.AtSeq = atSeq
		return attachwire.AppendSnapshot(dst, sn)
	}
	if a, ok := s.term.(snapshotAppender); ok {
		return a.AppendSnapshot(dst, atSeq, s.spec.Epoch, echoMode(s.master))
	}
	var scr attachwire.Screen
	s.screenLocked(&scr)
	return attachwire.AppendScreenSnapshot(dst, atSeq, &scr)
}

// snapshotAndSubscribe atomically takes a snapshot at atSeq and opens a
// subscription whose first frame is atSeq+1: the building block of a
// resync (a local attach that fell off the ring). Nothing can be published
// between the two.
func (s *Session) snapshotAndSubscribe() (attachwire.Screen, uint64, *Subscription, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var scr attachwire.Screen
	at := s.seq
	if s.exited.Load() {
		var err error
		if scr, err = s.finalScreenLocked(); err != nil {
			return attachwire.Screen{}, 0, nil, fmt.Errorf("ptyhost: snapshot: %w", err)
		}
		at = s.exitSeq
	} else {
		s.screenLocked(&scr)
	}
	s.ring.mu.Lock()
	defer s.ring.mu.Unlock()
	sub, err := s.subscribeRingLocked(at)
	return scr, at, sub, err
}

// screenLocked fills dst from the terminal with the session's epoch and the
// PTY's echo flag. s.mu must be held and the session not exited.
func (s *Session) screenLocked(dst *attachwire.Screen) {
	s.term.Screen(dst)
	dst.Epoch = s.spec.Epoch
	dst.Echo = echoMode(s.master)
}

// keepFinalScreenLocked keeps the screen as the Exit frame about to be
// published leaves it, encoded: a Screen of 120×40 with 200 lines of
// scrollback is some 800 KB of cells, fresh heap at every exit, where its
// Snapshot payload is about 90 KB, and the Screen is needed only if
// Snapshot is called after exit. s.mu must be held, before exit.
func (s *Session) keepFinalScreenLocked() {
	p, err := s.appendSnapshotLocked(nil, s.seq+1)
	if err == nil {
		s.finalSnap = p
		return
	}
	s.screenLocked(&s.final) // a screen that does not encode is kept as it is
}

// finalScreenLocked returns a Screen of the caller's own showing the
// screen at Exit. s.mu must be held, after exit.
func (s *Session) finalScreenLocked() (attachwire.Screen, error) {
	if s.finalSnap == nil {
		return cloneScreen(s.final), nil
	}
	sn, err := attachwire.DecodeSnapshot(s.finalSnap)
	if err != nil {
		return attachwire.Screen{}, err
	}
	return sn.DecodeScreen()
}

// cloneScreen returns a deep copy of scr (cells are values; only the
// slices are shared otherwise).
func cloneScreen(scr attachwire.Screen) attachwire.Screen {
	scr.Primary = slices.Clone(scr.Primary)
	scr.Alt = slices.Clone(scr.Alt)
	lines := make([][]attachwire.Cell, len(scr.Scrollback))
	for i, l := range scr.Scrollback {
		lines[i] = slices.Clone(l)
	}
	scr.Scrollback = lines
	return scr
}
