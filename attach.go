package ptyhost

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/sanitize"
)

// ErrAttachClosed is returned by a LocalAttach after Close.
var ErrAttachClosed = errors.New("ptyhost: local attach closed")

// LocalAttachOptions configures AttachLocal. The zero value joins with a
// snapshot.
type LocalAttachOptions struct {
	// FromSeq picks where the attach starts. 0 joins: the first frame is a
	// Snapshot with seq 0 showing the screen at its atSeq N, followed by
	// frames N+1 onward. A value N > 0 resumes after frame N from the ring;
	// AttachLocal fails with attachwire.ErrRingMiss when frame N+1 is no
	// longer (or not yet) buffered. Recover from that by attaching with
	// FromSeq 0, or by taking Snapshot and attaching from its atSeq.
	FromSeq uint64

	// OnTitle, if non-nil, receives every window title the program sets,
	// made safe for display (sanitize.UIString). It is called from Next.
	OnTitle func(title string)
}

// LocalAttach is an in-process viewer of a session: it yields the session's
// frames with Output sanitized for a real terminal. The session's first
// live attach is its driver and may write input and resize; attaches made
// while a driver lives are read-only and stay so. Once the driver closes,
// the next new attach drives.
//
// Next is for one goroutine at a time; the other methods, Close included,
// are safe for concurrent use.
type LocalAttach struct {
	s       *Session
	driver  bool
	san     *sanitize.Sanitizer
	pending *attachwire.Frame // a join or resync snapshot not yet returned
	resyncs atomic.Uint64

	mu     sync.Mutex // guards sub and closed against Close
	sub    *Subscription
	closed atomic.Bool
}

// attachRoles records which local attach drives the session.
type attachRoles struct {
	mu     sync.Mutex
	driver *LocalAttach
}

// AttachLocal attaches an in-process viewer. See LocalAttachOptions for
// where it starts; the only error is a ring miss when resuming.
//
// Output frames reach it through a fresh sanitizer (the Driver profile for
// the driver, Viewer for the rest); other frames pass unchanged. An attach
// that falls off the ring's tail is not ended: its next frame is a resync
// Snapshot (seq 0, atSeq N) and the frames after it continue at N+1.
func (s *Session) AttachLocal(opts LocalAttachOptions) (*LocalAttach, error) {
	a := &LocalAttach{s: s}
	if opts.FromSeq == 0 {
		snap, sub, err := s.joinSnapshot()
		if err != nil {
			return nil, err
		}
		a.sub, a.pending = sub, &snap
	} else {
		sub, err := s.Subscribe(opts.FromSeq)
		if err != nil {
			return nil, err
		}
		a.sub = sub
	}
	s.roles.mu.Lock()
	if s.roles.driver == nil {
		s.roles.driver, a.driver = a, true
	}
	s.roles.mu.Unlock()
	profile := sanitize.Viewer
	if a.driver {
		profile = sanitize.Driver
	}
	cols, rows := s.Size()
	a.san = sanitize.New(sanitize.Options{Profile: profile, OnTitle: opts.OnTitle, Cols: cols, Rows: rows})
	return a, nil
}

// joinSnapshot takes the current screen and a subscription starting right
// after it, with nothing published in between, and returns the screen as
// an out-of-namespace Snapshot frame. After exit the snapshot is labelled
// with the seq before the Exit frame (the Exit frame changes no cell), so
// the subscription still delivers the Exit frame.
func (s *Session) joinSnapshot() (attachwire.Frame, *Subscription, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	at := s.seq
	if s.exited.Load() {
		at = s.exitSeq - 1
	}
	payload, err := s.snapshotPayloadLocked(at)
	if err != nil {
		return attachwire.Frame{}, nil, err
	}
	s.ring.mu.Lock()
	sub, err := s.subscribeRingLocked(at)
	s.ring.mu.Unlock()
	if err != nil {
		return attachwire.Frame{}, nil, err
	}
	return attachwire.Frame{Type: attachwire.TypeSnapshot, Payload: payload}, sub, nil
}

// CanDrive reports whether this attach is the session's driver.
func (a *LocalAttach) CanDrive() bool { return a.driver }

// Resyncs returns how many times this attach fell off the ring and was
// resynced with a snapshot.
func (a *LocalAttach) Resyncs() uint64 { return a.resyncs.Load() }

// Next returns the next frame, waiting for it. Output payloads are the
// sanitized bytes (possibly empty: the frame is kept so seqs stay
// contiguous); every other frame is the session's own, shared and
// immutable. After the Exit frame Next returns io.EOF; after Close,
// ErrAttachClosed; when ctx is done, ctx's error.
func (a *LocalAttach) Next(ctx context.Context) (attachwire.Frame, error) {
	a.mu.Lock()
	sub, closed := a.sub, a.closed.Load()
	a.mu.Unlock()
	if closed {
		return attachwire.Frame{}, ErrAttachClosed
	}
	if f := a.pending; f != nil {
		a.pending = nil
		return *f, nil
	}
	f, err := sub.Next(ctx)
	switch {
	case err == nil:
	case errors.Is(err, attachwire.ErrRingMiss):
		return a.resync()
	case errors.Is(err, ErrSubscriptionClosed):
		return attachwire.Frame{}, ErrAttachClosed
	default:
		return attachwire.Frame{}, err
	}
	switch f.Type {
	case attachwire.TypeOutput:
		out := a.san.Append(make([]byte, 0, len(f.Payload)+16), f.Payload)
		f = attachwire.Frame{Type: f.Type, Seq: f.Seq, RelTime: f.RelTime, Payload: out}
	case attachwire.TypeResize:
		if r, err := attachwire.DecodeResize(f.Payload); err == nil {
			a.san.SetSize(int(r.Cols), int(r.Rows))
		}
	}
	return f, nil
}

// resync replaces the lost subscription with a snapshot and a new one.
// The sanitizer starts over too: the bytes between the old position and
// the snapshot were skipped, so a sequence pending in it is meaningless.
func (a *LocalAttach) resync() (attachwire.Frame, error) {
	snap, sub, err := a.s.joinSnapshot()
	if err != nil {
		return attachwire.Frame{}, err
	}
	a.mu.Lock()
	if a.closed.Load() {
		a.mu.Unlock()
		sub.Close()
		return attachwire.Frame{}, ErrAttachClosed
	}
	old := a.sub
	a.sub = sub
	a.mu.Unlock()
	old.Close()
	a.san.Reset()
	a.san.SetSize(a.s.Size())
	a.resyncs.Add(1)
	return snap, nil
}

// WriteInput writes p to the program's input; it returns ErrReadOnly unless
// this attach drives.
func (a *LocalAttach) WriteInput(p []byte) (int, error) {
	if err := a.checkDriver(); err != nil {
		return 0, err
	}
	return a.s.WriteInput(p)
}

// Resize resizes the session (see Session.Resize); it returns ErrReadOnly
// unless this attach drives.
func (a *LocalAttach) Resize(cols, rows, pxWidth, pxHeight int) (uint64, error) {
	if err := a.checkDriver(); err != nil {
		return 0, err
	}
	return a.s.Resize(cols, rows, pxWidth, pxHeight)
}

func (a *LocalAttach) checkDriver() error {
	switch {
	case a.closed.Load():
		return ErrAttachClosed
	case !a.driver:
		return ErrReadOnly
	}
	return nil
}

// Snapshot returns the session's current screen and its atSeq, as
// Session.Snapshot does.
func (a *LocalAttach) Snapshot() (attachwire.Screen, uint64, error) {
	return a.s.Snapshot()
}

// Close detaches: a blocked Next returns ErrAttachClosed, and if this
// attach was the driver the session has none until the next AttachLocal.
// It is idempotent and returns nil.
func (a *LocalAttach) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed.Swap(true) {
		return nil
	}
	a.sub.Close()
	if a.driver {
		a.s.roles.mu.Lock()
		if a.s.roles.driver == a {
			a.s.roles.driver = nil
		}
		a.s.roles.mu.Unlock()
	}
	return nil
}
