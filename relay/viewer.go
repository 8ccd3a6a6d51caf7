package relay

import (
	"fmt"
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
	// then is a message to write right after the frame nextWire returned:
	// a control, or the Exit frame after the final screen.
	then []byte
	// The host-lost notice this leg was last given, for host-still-absent:
	// the snapshot it came with, when, and the message.
	lostSnap uint64
	lostAt   time.Time
	lostMsg  string
}

// viewerWriter is the one goroutine writing to a driver or viewer leg: the
// relay's controls first, then the room's frames from the viewer's cursor.
// A viewer that asks for nothing it cannot have (resume hit) replays from
// the ring; otherwise it starts from a snapshot whose tail is in the ring
// (contiguity: the tail starts exactly at atSeq+1). A viewer lagging more
// than ViewerQueueBytes behind the head, or off the ring's tail, skips to
// a newer snapshot the same way. Once the post-Exit snapshot is cached, a
// viewer needing a snapshot gets its screen at the seq before Exit, then
// the Exit frame. It returns when the leg ends.
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
			if retryTimer == nil {
				retryTimer = time.NewTimer(l.relay.cfg.SnapshotRetry)
			} else {
				retryTimer.Reset(l.relay.cfg.SnapshotRetry)
			}
			retry = retryTimer.C
		}
		if wire != nil {
			if !l.pace(len(wire) + len(c.then)) {
				continue // the leg is ending: flushOut finishes it
			}
			if err := l.write(wire); err != nil {
				l.writeFailed(err)
				return
			}
			if c.then != nil {
				then := c.then
				c.then = nil
				if err := l.write(then); err != nil {
					l.writeFailed(err)
					return
				}
			}
			continue
		}
		if err := l.uncork(); err != nil {
			l.writeFailed(err)
			return
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
		case ok:
			// Too far behind the head.
			c.snap, c.asked = attachwire.SnapshotBackpressure, false
			l.relay.metrics.skips.Inc()
		case (r.n > 0 && c.next < r.tail) || (r.n == 0 && c.next <= r.head):
			// Off the ring's tail: evicted, or cut at a gap.
			c.snap, c.asked = attachwire.SnapshotRingMiss, false
			l.relay.metrics.skips.Inc()
		default:
			return nil, r.waitChanLocked(), ""
		}
	}
	if r.final != nil {
		// After the final screen comes nothing: past the Exit, also where
		// the Exit frame never arrived (a mirror that lost it), or the
		// cursor would fall off the ring's tail and be served the final
		// screen again, in a loop.
		c.next, c.snap = max(r.exitSeq, r.finalAt)+1, ""
		l.relay.metrics.snapshots.Inc()
		if r.exit != nil && r.finalBefore != nil {
			// The final screen at the seq before Exit, then the Exit
			// frame as its tail (atSeq+1): the post-Exit snapshot alone
			// would leave a late joiner without the session's status,
			// and an Exit on either side of it would be a repeat or a
			// gap (docs/relay.md, "Late joiners after Exit").
			c.then = r.exit
			return r.finalBefore, nil, ""
		}
		if r.exit == nil && r.finalAt != 0 {
			// The Exit frame has not come: the cursor waits for it at
			// its seq, which the final screen's atSeq names (a sealed
			// one opens at the seq before, and its viewer waits there).
			c.next = r.finalAt
		}
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
	if !r.hostLostAt.IsZero() {
		if wire := l.hostLessResumeLocked(c, budget); wire != nil {
			return wire, nil, ""
		}
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
		if !ok || !l.viewerFrame(f) {
			return
		}
	}
}

// viewerFrame handles one frame from a driver or viewer leg; it reports
// false when the leg ends.
func (l *leg) viewerFrame(f attachwire.Frame) bool {
	switch f.Type {
	case attachwire.TypeInput:
		in, err := attachwire.DecodeInput(f.Payload)
		if err != nil {
			l.framing(err.Error())
			return false
		}
		return l.input(in)
	case attachwire.TypeResize:
		rs, err := attachwire.DecodeResize(f.Payload)
		if err != nil {
			l.framing(err.Error())
			return false
		}
		l.room.resizeFrom(l, rs)
		return true
	case attachwire.TypeControl:
		return l.readControl(f)
	default:
		l.framing(f.Type.String() + " is a host frame")
		return false
	}
}

// input consumes one Input frame: admission by the room, then the stamped
// frame waits for room in the host queue (this leg's reader blocks, so the
// driver feels a slow host instead of losing keys), then the ack. It
// reports false when the leg ended while waiting.
func (l *leg) input(in attachwire.Input) bool {
	rm := l.room
	v := rm.admitInput(l, in)
	if v.remote {
		return l.inputRemote(in)
	}
	if v.forward != nil {
		select {
		case rm.inputs <- v.forward:
		default:
			// The queue is full: stop reading this driver until the host
			// takes some, without counting its silence meanwhile.
			l.holding.Store(true)
			select {
			case rm.inputs <- v.forward:
				l.holding.Store(false)
				l.heard()
			case <-l.closing:
				rm.consumedInput(l, v, false)
				return false
			case <-l.ctx.Done():
				rm.consumedInput(l, v, false)
				return false
			}
		}
		rm.relay.metrics.inputsForwarded.Inc()
		rm.signalHost() // the host writer takes Input only when woken or busy
	} else {
		rm.relay.metrics.inputsDropped.Inc()
	}
	rm.consumedInput(l, v, true)
	if v.revoked {
		rm.refusedInput(l)
	}
	l.send(attachwire.InputAck{AckInputSeq: v.ack})
	return true
}

// hostLessThrottle is the window in which a repeated host-less resume from
// one leg, with nothing changed, gets host-still-absent instead of a new
// host-lost.
const hostLessThrottle = 30 * time.Second

// hostLessResumeLocked serves a viewer that needs a snapshot while the room
// has no host to ask for one, and the newest snapshot's tail is over the
// viewer's headroom (docs/relay.md, "Host-less resume"): the newest snapshot, then only the newest
// frames that fit the headroom, then error host-lost "<loss instant>
// <truncated bytes>" (host-still-absent, same message, for a repeat inside
// hostLessThrottle with nothing changed). It returns nil when the ring holds
// no snapshot. r.mu is held.
func (l *leg) hostLessResumeLocked(c *cursor, budget int64) []byte {
	r := l.room.ring
	e := r.newestSnapshotLocked(math.MaxInt64)
	if e == nil {
		return nil
	}
	// The first frame after the snapshot whose tail fits the headroom.
	next := e.seq + 1
	for next <= r.head && r.lagLocked(next) > budget {
		next++
	}
	truncated := r.lagLocked(e.seq+1) - r.lagLocked(next)
	if next > r.head {
		truncated = r.lagLocked(e.seq + 1)
	}
	now := l.relay.cfg.Now()
	code := attachwire.CodeHostLost
	msg := fmt.Sprintf("%s %d", r.hostLostAt.UTC().Format(time.RFC3339), truncated)
	if c.lostMsg != "" && c.lostSnap == e.seq && now.Sub(c.lostAt) < hostLessThrottle {
		code, msg = attachwire.CodeHostStillAbsent, c.lostMsg
	}
	c.lostSnap, c.lostAt, c.lostMsg = e.seq, now, msg
	c.then, _ = controlWire(attachwire.ErrorControl{Code: code, Message: msg, Retryable: true})
	c.next, c.snap, c.retried = next, "", false
	l.relay.metrics.snapshots.Inc()
	return e.wire
}
