package attachclient

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
)

// read applies the relay's messages until the leg ends, and returns why:
// a classified error control, a classified close, a framing error, or the
// read error.
func (l *leg) read(ctx context.Context) error {
	for {
		f, err := l.c.next(ctx)
		var bad *malformedError
		if errors.As(err, &bad) {
			return l.framing(ctx, bad)
		}
		if err != nil {
			return err
		}
		if err := l.apply(ctx, f); err != nil {
			return err
		}
	}
}

// framing reports a malformed relay message to the relay (error framing,
// then the carrier's close) and returns the error that ends the leg.
func (l *leg) framing(ctx context.Context, m *malformedError) error {
	l.h.log.Warn("attachclient: malformed message from the relay", "err", m.cause)
	l.writeControl(ctx, attachwire.ErrorControl{Code: attachwire.CodeFraming, Message: attachwire.CapMessage(m.cause.Error())})
	l.c.malformed(m)
	return fmt.Errorf("%w: %v", errFraming, m.cause)
}

// apply handles one relay frame. The relay sends a host Input, Resize and
// controls; any other frame type is ignored.
func (l *leg) apply(ctx context.Context, f attachwire.Frame) error {
	switch f.Type {
	case attachwire.TypeInput:
		in, err := attachwire.DecodeInput(f.Payload)
		if err != nil {
			return l.framing(ctx, &malformedError{cause: err})
		}
		l.seen()
		if ss, ok := l.h.cfg.Session.(*sealedSession); ok {
			// Input that does not open cannot be told from keys the
			// relay made up: it is not typed.
			o, err := ss.open(f)
			if err != nil {
				l.h.log.Warn("attachclient: dropped input that failed its integrity check", "user", in.UserID, "inputSeq", in.InputSeq)
				return nil
			}
			in, _ = attachwire.DecodeInput(o.Payload)
		}
		if in.UserID == "" {
			l.h.log.Debug("attachclient: dropped unstamped input", "bytes", len(in.Data))
			return nil
		}
		// The lane delivers at least once and a relay that answered
		// InputDedupHeader replays: a keystroke seen before, on whichever
		// carrier, is not typed twice.
		key := inputKey{user: in.UserID, pen: in.PenGeneration, input: in.InputSeq}
		if l.dedup && !l.h.recent.add(key) {
			l.h.log.Debug("attachclient: dropped a repeated input", "inputSeq", in.InputSeq)
			return nil
		}
		select {
		case l.h.inputs <- in.Data: // in.Data aliases this message only
		case <-ctx.Done():
			// Not typed: the relay's replay on the next leg must be.
			if l.dedup {
				l.h.recent.remove(key)
			}
			return ctx.Err()
		}
	case attachwire.TypeResize:
		r, err := attachwire.DecodeResize(f.Payload)
		if err != nil {
			return l.framing(ctx, &malformedError{cause: err})
		}
		l.seen()
		if _, err := l.h.cfg.Session.Resize(int(r.Cols), int(r.Rows), int(r.PxWidth), int(r.PxHeight)); err != nil {
			l.h.log.Warn("attachclient: resize not applied", "cols", r.Cols, "rows", r.Rows, "err", err)
		}
	case attachwire.TypeControl:
		c, err := attachwire.DecodeControl(f.Payload)
		if err != nil {
			// An unknown control type is soft; a malformed known one is
			// ignored too, as the protocol lets a host ignore controls.
			l.h.log.Debug("attachclient: ignored control", "err", err)
			return nil
		}
		return l.control(ctx, c)
	default:
		l.seen()
	}
	return nil
}

// control handles a relay control.
func (l *leg) control(ctx context.Context, c attachwire.Control) error {
	switch c := c.(type) {
	case attachwire.ErrorControl:
		err := classifyControl(c)
		if err == nil {
			l.h.log.Info("attachclient: relay reported a retryable error", "code", string(c.Code), "msg", c.Message)
		}
		return err
	case attachwire.SnapshotRequest:
		l.seen()
		return l.snapshot(ctx, c.Reason == attachwire.SnapshotKeyframe)
	case attachwire.Kill:
		l.seen()
		l.h.kill(l.h.runCtx, c)
	case attachwire.Presence, attachwire.PenGranted, attachwire.PenRevoked, attachwire.PenState, attachwire.Decision, attachwire.Propose:
		l.seen()
		l.h.roomControl(c)
	default:
		l.seen()
	}
	return nil
}

// snapshot answers a snapshot_request: before Exit the snapshot is
// published in the stream (the pump carries it, in order); after Exit, or
// when the relay asks for a key frame of its history (keyframe), it has
// seq 0 and is sent directly, encoded by AppendSnapshot into the leg's
// reused buffers (a relay asks on every join and skip). A key frame may
// overtake frames at or below its atSeq still queued in the pump: the
// relay files it by atSeq, not by arrival.
func (l *leg) snapshot(ctx context.Context, keyframe bool) error {
	s := l.h.cfg.Session
	if _, exited := s.Exit(); !exited && !keyframe {
		f, err := s.EmitSnapshot()
		switch {
		case err != nil:
			l.h.log.Warn("attachclient: snapshot", "err", err)
			return nil
		case f.Seq != 0:
			return nil
		}
		// The program exited since: f is already the post-Exit answer.
		b, err := f.AppendBinary(l.snapFrame[:0])
		if err != nil {
			return fmt.Errorf("attachclient: encode snapshot: %w", err)
		}
		l.snapFrame = b
		return l.write(ctx, b)
	}
	p, _, err := s.AppendSnapshot(l.snapPayload[:0])
	if err != nil {
		l.h.log.Warn("attachclient: snapshot", "err", err)
		return nil
	}
	l.snapPayload = p
	f := attachwire.Frame{Type: attachwire.TypeSnapshot, Payload: p}
	b, err := f.AppendBinary(l.snapFrame[:0])
	if err != nil {
		return fmt.Errorf("attachclient: encode snapshot: %w", err)
	}
	l.snapFrame = b
	return l.write(ctx, b)
}

// seen marks the leg admitted at the relay's first frame other than an
// error: the relay only talks to a bound host.
func (l *leg) seen() {
	if l.admitted.IsZero() {
		l.admitted = time.Now()
		l.h.linkChanged(true)
	}
}
