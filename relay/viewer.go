package relay

import (
	"math"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
)

// resumeRequest is where a viewer asks to continue from: subscribe's
// resumeFrom/resumeEpoch or a resume_from control. A nil after is null
// (≡ 0: nothing applied).
type resumeRequest struct {
	after *uint64
	epoch *uint64
}

// cursor is a viewer writer's position in the room's stream.
type cursor struct {
	gen   uint64                    // the ring generation next belongs to
	next  uint64                    // seq of the next frame to write
	snap  attachwire.SnapshotReason // non-empty: waiting for a snapshot to start from
	asked bool                      // the host was asked for that snapshot
	// retried: a snapshot_request went unanswered in time (or its answer
	// was already too far behind the head). The viewer then takes the
	// newest snapshot whatever its tail costs, so a host that outruns
	// every request cannot keep it waiting forever.
	retried bool
}

// viewerWriter is the one goroutine writing to a driver or viewer leg: the
// relay's controls first, then the room's frames from the viewer's cursor.
// A viewer that asks for nothing it cannot have (resume hit) replays from
// the ring; otherwise it starts from a snapshot whose tail is in the ring
// (contiguity: the tail starts exactly at atSeq+1). A viewer lagging more
// than ViewerQueueBytes behind the head, or off the ring's tail, skips to
// a newer snapshot the same way. It returns when the leg ends.
func (l *leg) viewerWriter(req resumeRequest) {
	defer l.finish()
	var c cursor
	l.startFrom(&c, req)
	var retry <-chan time.Time
	var retryTimer *time.Timer
	defer func() {
		if retryTimer != nil {
			retryTimer.Stop()
		}
	}()
	for {
		if !l.flushOut() {
			return
		}
		if r := l.takeResume(); r != nil {
			l.startFrom(&c, *r)
		}
		wire, wait, ask := l.nextWire(&c)
		if ask != "" {
			l.room.requestSnapshot(ask)
			l.relay.metrics.snapshotAsked.Inc()
			if retryTimer == nil {
				retryTimer = time.NewTimer(l.relay.cfg.SnapshotRetry)
			} else {
				retryTimer.Reset(l.relay.cfg.SnapshotRetry)
			}
			retry = retryTimer.C
		}
		if wire != nil {
			if err := l.write(wire); err != nil {
				l.writeFailed(err)
				return
			}
			continue
		}
		select {
		case <-wait:
		case <-l.wake:
		case <-retry:
			retry = nil
			if c.snap != "" {
				// The contiguity loop: no usable snapshot came (none, or
				// its tail was evicted first); ask again.
				c.retried = true
				l.room.requestSnapshot(c.snap)
				l.relay.metrics.snapshotAsked.Inc()
				retryTimer.Reset(l.relay.cfg.SnapshotRetry)
				retry = retryTimer.C
			}
		case <-l.closing:
		case <-l.ctx.Done():
			return
		}
	}
}

// startFrom places c for a resume request: a ring hit continues after the
// viewer's seq; anything else (null, 0, an evicted or future seq, another
// or no epoch) waits for a snapshot.
func (l *leg) startFrom(c *cursor, req resumeRequest) {
	r := l.room.ring
	r.mu.Lock()
	defer r.mu.Unlock()
	c.gen, c.asked = r.gen, false
	switch {
	case req.after == nil || *req.after == 0:
		c.snap = attachwire.SnapshotJoin
	case req.epoch != nil && r.hasEpoch && *req.epoch == r.epoch && r.hitLocked(*req.after):
		c.next, c.snap = *req.after+1, ""
	default:
		c.snap = attachwire.SnapshotRingMiss
	}
}

func (l *leg) takeResume() *resumeRequest {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.resume
	l.resume = nil
	return r
}

// nextWire returns the next message for the viewer at c, or a channel to
// wait on, plus a snapshot reason to ask the host for when the viewer needs
// one the ring does not have.
func (l *leg) nextWire(c *cursor) (wire []byte, wait <-chan struct{}, ask attachwire.SnapshotReason) {
	r := l.room.ring
	budget := l.relay.cfg.ViewerQueueBytes
	r.mu.Lock()
	defer r.mu.Unlock()
	if c.gen != r.gen {
		// A new generation: the old positions mean nothing now.
		c.gen, c.snap, c.asked = r.gen, attachwire.SnapshotResync, false
	}
	if c.snap == "" {
		e, ok := r.atLocked(c.next)
		switch {
		case ok && r.lagLocked(c.next) <= budget:
			c.next++
			return e.wire, nil, ""
		case ok || (r.n > 0 && c.next < r.tail) || (r.n == 0 && c.next <= r.head):
			// Too far behind, or off the tail (evicted or truncated).
			c.snap, c.asked = attachwire.SnapshotBackpressure, false
			l.relay.metrics.skips.Inc()
		default:
			return nil, r.waitChanLocked(), ""
		}
	}
	if r.final != nil {
		c.next, c.snap = r.exitSeq+1, ""
		l.relay.metrics.snapshots.Inc()
		return r.final, nil, ""
	}
	snapBudget := budget
	if c.retried {
		snapBudget = math.MaxInt64
	}
	if e := r.newestSnapshotLocked(snapBudget); e != nil {
		c.next, c.snap, c.retried = e.seq+1, "", false
		l.relay.metrics.snapshots.Inc()
		return e.wire, nil, ""
	}
	wait = r.waitChanLocked()
	if !c.asked {
		c.asked = true
		return nil, wait, c.snap
	}
	return nil, wait, ""
}

// readViewer reads a driver or viewer leg until it ends. Such a leg may send
// Input (forwarded only under the pen), Resize (its viewport) and controls;
// a host's frame types from it are a framing error.
func (l *leg) readViewer() {
	for {
		f, ok := l.readFrame()
		if !ok {
			return
		}
		switch f.Type {
		case attachwire.TypeInput:
			in, err := attachwire.DecodeInput(f.Payload)
			if err != nil {
				l.framing(err.Error())
				return
			}
			if !l.input(in) {
				return
			}
		case attachwire.TypeResize:
			rs, err := attachwire.DecodeResize(f.Payload)
			if err != nil {
				l.framing(err.Error())
				return
			}
			l.room.resizeFrom(l, rs)
		case attachwire.TypeControl:
			if !l.readControl(f) {
				return
			}
		default:
			l.framing(f.Type.String() + " is a host frame")
			return
		}
	}
}

// input consumes one Input frame: admission by the room, then the stamped
// frame waits for room in the host queue (this leg's reader blocks, so the
// driver feels a slow host instead of losing keys), then the ack. It
// reports false when the leg ended while waiting.
func (l *leg) input(in attachwire.Input) bool {
	rm := l.room
	v := rm.admitInput(l, in)
	if v.forward != nil {
		select {
		case rm.inputs <- v.forward:
			rm.relay.metrics.inputsForwared.Inc()
		case <-l.closing:
			return false
		case <-l.ctx.Done():
			return false
		}
	} else {
		rm.relay.metrics.inputsDropped.Inc()
	}
	if v.next {
		rm.ackInput(l, v.ack)
	}
	if v.revoked {
		l.send(rm.penRevokedFor(l))
	}
	l.send(attachwire.InputAck{AckInputSeq: v.ack})
	return true
}
