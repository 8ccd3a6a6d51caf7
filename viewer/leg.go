package viewer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/web/engine"
)

// loop is the connection loop: it serves cr, then reconnects with
// backoff (on WebSocket, or on the lane after FallbackAfter failed
// WebSocket dials) until the session ends, a refusal, or Close.
func (c *Client) loop(cr carrier) {
	defer close(c.done)
	defer c.finish()
	attempt := 0
	for {
		c.progressed = false
		err := c.serve(cr)
		if c.ctx.Err() != nil || c.closeLeg {
			return
		}
		var refused *RefusedError
		if errors.As(err, &refused) {
			c.fail(err)
			return
		}
		c.mu.Lock()
		now := c.regrab // a deliberate re-subscribe: no wait
		c.mu.Unlock()
		var unavailable *laneUnavailableError
		switch {
		case errors.Is(err, errUpgraded):
			c.setLane(false)
			now = true
		case errors.Is(err, errLaneGone):
			now = true
		case errors.As(err, &unavailable):
			c.setLane(false)
		}
		if !now {
			c.emit(Event{Kind: EventConnection, Err: err})
		}
		if c.progressed {
			attempt = 0
		}
		hint, _ := restartHint(err)
		for {
			wait := backoff(c.cfg.BackoffMin, c.cfg.BackoffMax, attempt, hint)
			if now {
				wait, now = 0, false
			}
			attempt++
			t := time.NewTimer(wait)
			select {
			case <-c.ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			cr, err = c.connect(c.ctx)
			if err == nil {
				break
			}
			if c.ctx.Err() != nil {
				return
			}
			if errors.As(err, &refused) {
				c.fail(err)
				return
			}
			hint = 0
			var busy *retryAfterError
			if errors.As(err, &busy) {
				hint = busy.after
			}
		}
	}
}

// connect opens the next leg on the carrier the Client rides: WebSocket
// until FallbackAfter dials in a row failed (then the lane at once), the
// lane until it works, or it is refused as unavailable or fails
// FallbackAfter times in a row (then WebSocket again: the Client never
// strands on a lane the relay does not serve). Owned by the connection
// loop (and Dial before the loop starts).
func (c *Client) connect(ctx context.Context) (carrier, error) {
	if c.Lane() {
		l, err := c.dialLane(ctx)
		if err == nil {
			c.laneFails = 0
			return l, nil
		}
		var unavailable *laneUnavailableError
		var de *dialError
		if errors.As(err, &unavailable) {
			c.setLane(false)
		} else if errors.As(err, &de) {
			if c.laneFails++; c.laneFails >= c.cfg.FallbackAfter {
				c.setLane(false)
			}
		}
		return nil, err
	}
	ws, err := c.dial(ctx)
	if err == nil {
		c.wsFails = 0
		return wsCarrier{ws}, nil
	}
	var de *dialError
	if !errors.As(err, &de) || c.cfg.FallbackAfter < 0 || ctx.Err() != nil {
		return nil, err
	}
	if c.wsFails++; c.wsFails < c.cfg.FallbackAfter {
		return nil, err
	}
	c.setLane(true)
	cr, lerr := c.connect(ctx)
	if lerr == nil {
		return cr, nil
	}
	// WebSocket is the primary path: when the lane does not get through
	// either, what stopped the WebSocket dial is the error to show.
	var ld *dialError
	var lu *laneUnavailableError
	switch {
	case errors.As(lerr, &ld):
		return nil, &dialError{fmt.Errorf("%w (the degraded lane failed too: %v)", de.err, ld.err)}
	case errors.As(lerr, &lu):
		return nil, &dialError{fmt.Errorf("%w (the degraded lane failed too: %v)", de.err, lu)}
	}
	return nil, lerr
}

// setLane switches the carrier the next leg rides, resetting the failure
// counts.
func (c *Client) setLane(on bool) {
	c.wsFails, c.laneFails = 0, 0
	c.mu.Lock()
	c.onLane = on
	c.mu.Unlock()
}

// fail ends the Client with err.
func (c *Client) fail(err error) {
	c.mu.Lock()
	c.err = err
	c.mu.Unlock()
	c.emit(Event{Kind: EventConnection, Err: err})
}

// finish marks the Client ended and releases the mirror's engine.
func (c *Client) finish() {
	c.cancel()
	c.mu.Lock()
	c.ended = true
	_, epoch, _ := c.eng.Applied()
	c.mirror.close(epoch, c.eng.Echo())
	c.mu.Unlock()
}

// serve runs one leg: a writer goroutine (and on the lane an upgrade
// probe), and this goroutine reading and applying frames, until the leg
// drops (its error, or the cause a helper ended it with), the session
// ends or Close.
func (c *Client) serve(cr carrier) error {
	ctx, cancel := context.WithCancelCause(c.ctx)
	c.mu.Lock()
	c.legCancel = func() { cancel(nil) }
	if c.regrab {
		c.regrab = false
		c.queue(c.eng.Grab())
	}
	c.mu.Unlock()
	stop := context.AfterFunc(ctx, cr.abort)
	defer stop()
	var wg sync.WaitGroup
	wg.Go(func() { c.writer(ctx, cr, cancel) })
	if cr.lane() {
		wg.Go(func() { c.probe(ctx, cancel) })
	}
	defer wg.Wait()
	defer cancel(nil)
	c.emit(Event{Kind: EventConnection, Connected: true, Lane: cr.lane()})
	for {
		f, err := cr.next(ctx)
		if err != nil {
			cr.finish(false, "")
			if cause := context.Cause(ctx); ctx.Err() != nil && c.ctx.Err() == nil && !errors.Is(cause, context.Canceled) {
				return cause
			}
			return err
		}
		c.progressed = true
		if err := c.apply(f); err != nil {
			cr.finish(true, "")
			return err
		}
		if c.closeLeg {
			cr.finish(true, "session ended")
			return nil
		}
	}
}

// writer sends what the Client queued (controls, the viewport, Input) and
// keeps the carrier alive, until ctx ends. A failed send or keepalive
// drops the leg (cancel, with the error as its cause), which ends the
// reader too.
func (c *Client) writer(ctx context.Context, cr carrier, cancel context.CancelCauseFunc) {
	ping := time.NewTicker(c.cfg.PingInterval)
	defer ping.Stop()
	var frames []attachwire.Frame
	for {
		if frames = c.due(frames[:0]); len(frames) > 0 {
			if err := cr.send(ctx, frames); err != nil {
				cancel(err)
				return
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-c.wake:
		case <-ping.C:
			pctx, pcancel := context.WithTimeout(ctx, c.cfg.PingInterval)
			err := cr.ping(pctx)
			pcancel()
			if err != nil {
				cancel(err)
				return
			}
		}
	}
}

// due collects the frames waiting to be written.
func (c *Client) due(dst []attachwire.Frame) []attachwire.Frame {
	c.mu.Lock()
	defer c.mu.Unlock()
	dst = append(dst, c.out...)
	c.out = c.out[:0]
	return dst
}

// apply hands one frame from the relay to the engine and carries out what
// it asks: the mirror follows the stream, frames to send are queued, and
// the events go to OnEvent, without the lock. An error ends the leg: a
// refusal is final, anything else redials.
func (c *Client) apply(f attachwire.Frame) error {
	c.mu.Lock()
	evs, err := c.eng.ApplyFrame(f)
	out := make([]Event, 0, len(evs))
	resent := false
	for _, ev := range evs {
		switch ev.Kind {
		case engine.Size:
			if ev.Screen != nil {
				c.mirror.load(ev.Screen)
				out = append(out, Event{Kind: EventSnapshot, Seq: ev.Seq, Screen: ev.Screen})
				break
			}
			c.mirror.resize(ev.Cols, ev.Rows, ev.PxWidth, ev.PxHeight)
			out = append(out, Event{Kind: EventResize, Seq: ev.Seq, Cols: ev.Cols, Rows: ev.Rows})
		case engine.Write:
			c.mirror.write(ev.Raw)
			out = append(out, Event{Kind: EventOutput, Seq: ev.Seq, Data: ev.Data})
		case engine.Marker:
			out = append(out, Event{Kind: EventMarker, Seq: ev.Seq, Text: ev.Text})
		case engine.Exit:
			ex := attachwire.Exit{Code: ev.Code, Signal: ev.Text}
			c.exit = &ex
			out = append(out, Event{Kind: EventExit, Seq: ev.Seq, Exit: ex})
		case engine.Send:
			if ev.Frame.Type == attachwire.TypeInput && !resent {
				// The relay lost its count: the inputs go again,
				// renumbered, in place of those still queued.
				resent = true
				c.out = slices.DeleteFunc(c.out, isInput)
			}
			c.queue(ev.Frame)
		case engine.Pen:
			c.pen = Pen{HolderUserID: ev.Text, HolderConnID: ev.Message, Generation: ev.PenGeneration, Mine: ev.Holding}
			out = append(out, Event{Kind: EventPen, Pen: c.pen})
		case engine.Presence:
			c.members = c.members[:0]
			for _, m := range ev.Members {
				c.members = append(c.members, attachwire.Member{UserID: m.UserID, ConnID: m.ConnID, Role: attachwire.Role(m.Role),
					Driving: m.Driving, Name: m.Name, Guest: m.Guest})
			}
			out = append(out, Event{Kind: EventPresence, Members: slices.Clone(c.members)})
		case engine.ProposalChanged:
			out = append(out, Event{Kind: EventProposal, Proposal: ev.Proposal})
		case engine.Room:
			c.room = attachwire.RoomStatus(ev.Text)
			out = append(out, Event{Kind: EventRoom, Room: c.room})
		case engine.Error:
			if ev.Final && err == nil {
				err = &RefusedError{Code: attachwire.ErrorCode(ev.Text), Message: ev.Message}
				break
			}
			out = append(out, Event{Kind: EventNotice, Code: attachwire.ErrorCode(ev.Text), Text: ev.Message})
		}
	}
	if c.eng.Ended() {
		c.ended, c.closeLeg = true, true
	}
	if f.Type == attachwire.TypeControl {
		c.poke() // an ack or a pen change may let InputWait go on
	}
	c.mu.Unlock()
	for _, ev := range out {
		c.emit(ev)
	}
	return err
}

// laneAck applies the ack a lane batch was answered with. After a 409
// (rewind: the batch was refused whole), or when the relay lost its
// count, every input after the ack is due again.
func (c *Client) laneAck(ack uint64, rewind bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if resend := c.eng.Ack(ack); rewind || len(resend) > 0 {
		c.out = slices.DeleteFunc(c.out, isInput)
		pending, _ := c.eng.Pending(engine.MaxPendingInputs, 0)
		c.out = append(pending, c.out...)
	}
	c.poke()
}

func isInput(f attachwire.Frame) bool { return f.Type == attachwire.TypeInput }
