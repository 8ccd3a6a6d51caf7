package viewer

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
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
	return c.connect(ctx)
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
	c.mirror.close()
	c.mu.Unlock()
}

// serve runs one leg: a writer goroutine (and on the lane an upgrade
// probe), and this goroutine reading and applying frames, until the leg
// drops (its error, or the cause a helper ended it with), the session
// ends or Close.
func (c *Client) serve(cr carrier) error {
	ctx, cancel := context.WithCancelCause(c.ctx)
	c.mu.Lock()
	c.in.newLeg()
	c.legCancel = func() { cancel(nil) }
	if c.regrab {
		c.regrab = false
		c.controls = append(c.controls, attachwire.Grab{})
	}
	c.mu.Unlock()
	c.resyncing = false
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
	for _, ctl := range c.controls {
		if f, err := attachwire.ControlFrame(ctl); err == nil {
			dst = append(dst, f)
		}
	}
	c.controls = c.controls[:0]
	if c.resize && c.viewport.Cols > 0 {
		c.resize = false
		if f, err := (attachwire.Resize{Cols: c.viewport.Cols, Rows: c.viewport.Rows}).Frame(0, 0); err == nil {
			dst = append(dst, f)
		}
	}
	// Input goes out even after the pen moved on: the relay drops it
	// and still acknowledges it, so inputSeq stays contiguous.
	return c.in.due(dst, c.pen.Generation, c.mirror.last)
}
