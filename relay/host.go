package relay

import (
	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
)

// hostWriter is the one goroutine writing to a host leg: errors the relay
// queued for it, kills (Relay.Kill), snapshot requests and the
// authoritative size (coalesced in the room), then stamped Input: first
// what the room's window replays from earlier legs of the epoch, then
// what it takes, one at a time and in order, from the room's queue, each
// frame recorded in the window before it is written (inputwindow.go).
// Every relay→host frame has seq 0. It returns when the leg ends.
func (l *leg) hostWriter() {
	defer l.finish()
	defer l.failKills()
	rm := l.room
	for {
		if !l.flushOut() || !l.writeKills() {
			return
		}
		snap, rs := rm.takeHostControls(l)
		if snap != "" {
			b, err := controlWire(attachwire.SnapshotRequest{Reason: snap})
			if err == nil {
				rm.relay.metrics.snapshotAsked.Inc()
				if err = l.write(b); err != nil {
					l.writeFailed(err)
					return
				}
			}
		}
		if rs != nil {
			f, err := rs.Frame(0, 0)
			if err == nil {
				b, _ := f.MarshalBinary()
				if err = l.write(b); err != nil {
					l.writeFailed(err)
					return
				}
			}
		}
		took := rm.takeInput(l)
		if !l.writeInputs() {
			return
		}
		if took {
			continue // the queue may hold more: take the next without waiting
		}
		if err := l.uncork(); err != nil {
			l.writeFailed(err)
			return
		}
		select {
		case <-l.wake: // queued controls, or the room's signalHostLocked
		case <-l.closing:
		case <-l.ctx.Done():
			return
		}
	}
}

// readHost reads the host leg until it ends. The host may produce Output,
// Resize, Marker, Exit and Snapshot; Input from a host is a framing error;
// controls other than its own subscribe and error are ignored.
func (l *leg) readHost() {
	for {
		f, ok := l.readFrame()
		if !ok {
			return
		}
		switch f.Type {
		case attachwire.TypeInput:
			l.framing("a host leg may not send Input")
			return
		case attachwire.TypeControl:
			if !l.readControl(f) {
				return
			}
		default:
			if err := l.room.ingest(l, f); err != nil {
				l.framing(err.Error())
				return
			}
		}
	}
}

// readControl decodes a control from any leg and dispatches what the leg
// may send: resume_from, grab, release, decide and ping from driver and
// viewer legs, kick, pen_take, read_only and proposal from the host; everything else known (a
// repeated subscribe, error, a misrouted control) is ignored, and so is an
// unknown type. A host control from a driver or viewer is a framing
// error. It reports false when the leg is closed for a framing error.
func (l *leg) readControl(f attachwire.Frame) bool {
	c, err := attachwire.DecodeControl(f.Payload)
	if err != nil {
		if isFraming(err) {
			l.framing(err.Error())
			return false
		}
		return true
	}
	if l.role == attachwire.RoleHost {
		switch c := c.(type) {
		case attachwire.ErrorControl:
			l.log.Info("relay: host reported an error", "code", c.Code)
		default:
			l.room.hostControl(l, c)
		}
		return true
	}
	if attachwire.IsHostControl(c) {
		l.framing(c.ControlType() + " is a host control")
		return false
	}
	switch c := c.(type) {
	case attachwire.Ping:
		l.send(attachwire.Pong{})
	case attachwire.Grab:
		l.room.grab(l)
	case attachwire.Release:
		l.room.release(l)
	case attachwire.Decision:
		return l.decideControl(c)
	case attachwire.Propose:
		return l.proposeControl(c)
	case attachwire.PresenceRequest:
		l.room.requestPresence(l)
	case attachwire.ResumeFrom:
		after := c.Seq
		l.mu.Lock()
		l.resume = &resumeRequest{after: &after, epoch: c.Epoch}
		l.mu.Unlock()
		l.signal()
	}
	return true
}

// framing ends the leg for a protocol violation: error framing, close 1002.
func (l *leg) framing(msg string) {
	l.relay.metrics.refusals.WithLabelValues("framing").Inc()
	l.end(&attachwire.ErrorControl{Code: attachwire.CodeFraming, Message: attachwire.CapMessage(msg)},
		websocket.StatusProtocolError, "framing")
}
