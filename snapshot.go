package ptyhost

import (
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
		return cloneScreen(s.final), s.exitSeq, nil
	}
	s.screenLocked(&scr)
	return scr, s.seq, nil
}

// EmitSnapshot publishes the current screen as an in-stream Snapshot frame
// with seq S and atSeq S-1, and returns it. After exit the frame is out of
// namespace: seq 0, rel_time 0, atSeq the Exit frame's seq; it is returned
// but never put in the ring. It works for as long as the Session lives.
func (s *Session) EmitSnapshot() (attachwire.Frame, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exited.Load() {
		payload, err := snapshotPayload(&s.final, s.exitSeq)
		if err != nil {
			return attachwire.Frame{}, fmt.Errorf("ptyhost: snapshot: %w", err)
		}
		return attachwire.Frame{Type: attachwire.TypeSnapshot, Payload: payload}, nil
	}
	var scr attachwire.Screen
	s.screenLocked(&scr)
	payload, err := snapshotPayload(&scr, s.seq)
	if err != nil {
		return attachwire.Frame{}, fmt.Errorf("ptyhost: snapshot: %w", err)
	}
	return s.publishLocked(attachwire.TypeSnapshot, payload), nil
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
		scr, at = cloneScreen(s.final), s.exitSeq
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
