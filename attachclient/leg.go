package attachclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/ptyhost/ptyhost/agent"
	"github.com/ptyhost/ptyhost/attachwire"
)

// errFraming is a relay message the host could not decode; the host sent
// error{framing} and, on WebSocket, closed 1002 (1003 for a text message).
var errFraming = errors.New("attachclient: relay sent a malformed message")

// resyncTries bounds how often in a row the pump re-anchors on a fresh
// snapshot after falling off the session's ring before the leg gives up.
const resyncTries = 3

// leg is one connection to the relay, on either carrier. The pump writes
// the session's frames, the reader applies the relay's, and on the lane
// an upgrade probe tries WebSocket; the supervisor (runLeg, on RunHost's
// goroutine) waits for one to end, for ctx, or for the final-screen
// window, and joins them.
type leg struct {
	h *host
	c carrier
	// dedup makes the reader drop Input whose (userId, penGeneration,
	// inputSeq) it has seen: always on the lane, which delivers at least
	// once; on WebSocket when the relay answered the dial's
	// InputDedupHeader, so it replays there and never reuses a triple.
	dedup bool
	// admitted is when the relay bound the leg: the lane's 200, or the
	// first WebSocket frame other than an error. Written by the reader,
	// read by the supervisor after the join.
	admitted time.Time
	// snapPayload and snapFrame are the reader's reused buffers for
	// post-Exit snapshot answers.
	snapPayload, snapFrame []byte
}

// runLeg opens a leg on the lane or a WebSocket, subscribes and carries
// the session from seq after until the leg ends. It returns when the leg
// was admitted and why it ended (nil: the final-screen window passed;
// errUpgraded: the lane's probe reached the relay over WebSocket).
func (h *host) runLeg(ctx context.Context, lane bool, tok string, claims hostClaims, after uint64) (time.Time, error) {
	lctx, stop := context.WithCancel(ctx)
	defer stop()
	var l *leg
	if lane {
		c, err := h.dialLane(lctx, tok, claims)
		if err != nil {
			return time.Time{}, err
		}
		l = &leg{h: h, c: c, dedup: true}
		l.seen() // the 200 is the bind
	} else {
		c, dedup, err := h.dialWS(ctx, tok)
		if err != nil {
			return time.Time{}, err
		}
		l = &leg{h: h, c: c, dedup: dedup}
	}

	sub, err := h.cfg.Session.Subscribe(after)
	if errors.Is(err, agent.ErrRingMiss) {
		sub, err = h.cfg.Session.Subscribe(0) // the head moved past the ring: take what is left
	}
	if err != nil {
		l.c.end(err)
		return l.admitted, fmt.Errorf("attachclient: subscribe to the session: %w", err)
	}
	subscribe := attachwire.Subscribe{SessionID: claims.SessionID, AsRole: attachwire.RoleHost, Epoch: claims.Epoch,
		Record: h.cfg.Record, Sealed: h.keyID()}
	if err := l.writeControl(lctx, subscribe); err != nil {
		sub.Close()
		l.c.end(err)
		return l.admitted, err
	}
	h.cfg.Controls.bind(l)
	defer h.cfg.Controls.unbind(l)
	if lane {
		h.log.Info("attachclient: host leg on the degraded lane", "from", after)
	} else {
		h.log.Debug("attachclient: host leg subscribed", "from", after)
	}

	// The pump's own context ends on upgrade: it then stops between
	// batches, when everything it read is acked.
	pctx, upgrade := context.WithCancel(lctx)
	defer upgrade()
	pumped := make(chan error, 1)
	read := make(chan error, 1)
	var probed chan struct{} // nil on WebSocket: never ready
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); pumped <- l.pump(lctx, pctx, sub) }()
	go func() { defer wg.Done(); read <- l.read(lctx) }()
	if lane {
		probed = make(chan struct{}, 1)
		wg.Add(1)
		go func() { defer wg.Done(); h.probe(lctx, probed) }()
	} else if w, ok := l.c.(*wsCarrier); ok {
		wg.Add(1)
		go func() { defer wg.Done(); w.keepalive(lctx) }()
	}

	err = l.supervise(ctx, pumped, read, probed, upgrade)
	stop()
	l.c.end(err)
	wg.Wait()
	return l.admitted, err
}

// supervise waits for the leg to end. It returns nil when the final-screen
// window passed (after the carrier's goodbye), errUpgraded when a probe
// succeeded and the pump stopped between batches, else the reason the leg
// ended.
func (l *leg) supervise(ctx context.Context, pumped, read <-chan error, probed <-chan struct{}, upgrade func()) error {
	h := l.h
	exited := h.cfg.Session.Done()
	var windowEnd <-chan time.Time
	upgrading := false
	for {
		if end := h.exitDeadline(); !end.IsZero() && windowEnd == nil {
			exited = nil
			t := time.NewTimer(time.Until(end))
			defer t.Stop()
			windowEnd = t.C
		}
		select {
		case err := <-pumped:
			switch {
			case err == nil && upgrading:
				return errUpgraded
			case err == nil:
				pumped = nil // Exit sent: stay up for the window
				continue
			}
			return err
		case err := <-read:
			return err
		case <-probed:
			if pumped == nil {
				return errUpgraded // Exit is acked: nothing to drain
			}
			upgrading = true
			upgrade()
		case k := <-h.cfg.Rekey:
			if h.rekey(k) {
				return errRekeyed
			}
		case <-exited:
		case <-windowEnd:
			h.log.Info("attachclient: final-screen window elapsed")
			l.c.finish()
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// pump reads the session from sub, which it owns, and sends it at its own
// pace (the session never waits for it), gathering what is already
// produced into batches within the carrier's limits. It returns nil after
// the Exit frame is sent (on the lane: acked), or when stop ends between
// batches (an upgrade: every frame read so far is acked). Falling off the
// session's ring re-anchors it on a fresh snapshot; a carrier's rewind
// restarts it from what the relay holds.
func (l *leg) pump(ctx, stop context.Context, sub agent.InteractiveSubscription) error {
	defer func() { sub.Close() }()
	// A done context still yields a frame that is ready, so Next(now)
	// collects what the session has already produced without waiting.
	now, cancel := context.WithCancel(context.Background())
	cancel()
	maxFrames, maxBytes := l.c.batchLimits()
	var batch []attachwire.Frame
	var held *attachwire.Frame // read past the last batch's byte bound: the next one starts with it
	misses := 0
	for {
		var f attachwire.Frame
		if held != nil {
			f, held = *held, nil
		} else {
			var err error
			f, err = sub.Next(stop)
			switch {
			case errors.Is(err, io.EOF):
				return nil
			case errors.Is(err, agent.ErrRingMiss):
				if sub, err = l.resync(sub, &misses, err); err != nil {
					return err
				}
				continue
			case err != nil && stop.Err() != nil && ctx.Err() == nil:
				return nil // upgrading: every frame read so far is acked
			case err != nil:
				return err
			}
		}
		if f.Type != attachwire.TypeSnapshot {
			misses = 0
		}
		batch = append(batch[:0], f)
		size := len(f.Payload)
		eof := false
		for len(batch) < maxFrames {
			f, err := sub.Next(now)
			if err != nil {
				eof = errors.Is(err, io.EOF)
				break
			}
			if size += len(f.Payload); size > maxBytes {
				held = &f
				break
			}
			batch = append(batch, f)
		}
		next, err := l.c.send(ctx, batch)
		if err != nil {
			return err
		}
		if next != nil { // rewound: read again from the relay's ack
			sub.Close()
			sub, held = next, nil
			continue
		}
		if r, ok := sub.(recycler); ok {
			keep := 0
			if held != nil {
				keep = 1 // read, not sent: the next batch starts with it
			}
			r.recycle(keep)
		}
		if eof {
			return nil
		}
	}
}

// resync replaces sub, which fell off the session's ring (miss), with one
// anchored on a fresh snapshot. misses counts the misses since the last
// frame that was not a snapshot: past resyncTries in a row the pump cannot
// keep up, and it gives up rather than resync forever.
func (l *leg) resync(sub agent.InteractiveSubscription, misses *int, miss error) (agent.InteractiveSubscription, error) {
	if *misses++; *misses > resyncTries {
		return sub, fmt.Errorf("attachclient: cannot keep up with the session: %w", miss)
	}
	sub.Close()
	next, err := l.h.resubscribe()
	if err != nil {
		// Keep the closed subscription (Close is idempotent): the pump's
		// deferred Close must not meet a nil one.
		return sub, err
	}
	return next, nil
}

// resubscribe re-anchors a pump that fell off the session's ring: it
// publishes a snapshot and subscribes just before it, so the relay sees a
// gap closed by a fresh screen. After Exit it subscribes before the Exit
// frame instead, which the ring always keeps.
func (h *host) resubscribe() (agent.InteractiveSubscription, error) {
	h.log.Warn("attachclient: fell off the session's ring; resuming from a fresh snapshot")
	f, err := h.cfg.Session.EmitSnapshot()
	if err == nil && f.Seq > 0 {
		return h.cfg.Session.Subscribe(f.Seq - 1)
	}
	_, head, serr := h.cfg.Session.Snapshot()
	if serr != nil {
		return nil, fmt.Errorf("attachclient: resubscribe: %w", errors.Join(err, serr))
	}
	if _, exited := h.cfg.Session.Exit(); exited && head > 0 {
		head--
	}
	return h.cfg.Session.Subscribe(head)
}

// write sends one message outside the stream: a control, or a snapshot
// after Exit.
func (l *leg) write(ctx context.Context, b []byte) error { return l.c.write(ctx, b) }

func (l *leg) writeControl(ctx context.Context, c attachwire.Control) error {
	f, err := attachwire.ControlFrame(c)
	if err != nil {
		return fmt.Errorf("attachclient: %s control: %w", c.ControlType(), err)
	}
	b, err := f.MarshalBinary()
	if err != nil {
		return fmt.Errorf("attachclient: %s control: %w", c.ControlType(), err)
	}
	return l.write(ctx, b)
}
