package viewer

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
)

// loop is the connection loop: it serves ws, then redials with backoff
// until the session ends, a refusal, or Close.
func (c *Client) loop(ws *websocket.Conn) {
	defer close(c.done)
	defer c.finish()
	attempt := 0
	for {
		c.progressed = false
		err := c.serve(ws)
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
			ws, err = c.dial(c.ctx)
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

// serve runs one leg: a writer goroutine, and this goroutine reading and
// applying frames, until the leg drops (its error), the session ends or
// Close.
func (c *Client) serve(ws *websocket.Conn) error {
	ctx, cancel := context.WithCancel(c.ctx)
	c.mu.Lock()
	c.in.newLeg()
	c.legCancel = cancel
	if c.regrab {
		c.regrab = false
		c.controls = append(c.controls, attachwire.Grab{})
	}
	c.mu.Unlock()
	c.resyncing = false
	var wg sync.WaitGroup
	wg.Go(func() { c.writer(ctx, ws, cancel) })
	defer wg.Wait()
	defer cancel()
	c.emit(Event{Kind: EventConnection, Connected: true})
	for {
		typ, b, err := ws.Read(ctx)
		if err != nil {
			ws.CloseNow()
			return err
		}
		if typ != websocket.MessageBinary {
			ws.Close(websocket.StatusUnsupportedData, "binary frames only")
			return errors.New("viewer: the relay sent a text message")
		}
		f, err := attachwire.DecodeFrame(b)
		if err != nil {
			ws.Close(websocket.StatusProtocolError, "framing error")
			return err
		}
		c.progressed = true
		if err := c.apply(f); err != nil {
			ws.Close(websocket.StatusNormalClosure, "")
			return err
		}
		if c.closeLeg {
			ws.Close(websocket.StatusNormalClosure, "session ended")
			return nil
		}
	}
}

// writer sends what the Client queued (controls, the viewport, Input) and
// pings the relay, until ctx ends. A failed write or an unanswered ping
// drops the leg (cancel), which ends the reader too.
func (c *Client) writer(ctx context.Context, ws *websocket.Conn, cancel context.CancelFunc) {
	defer cancel()
	ping := time.NewTicker(c.cfg.PingInterval)
	defer ping.Stop()
	var frames []attachwire.Frame
	for {
		frames = c.due(frames[:0])
		for _, f := range frames {
			b, err := f.MarshalBinary()
			if err != nil {
				continue
			}
			if err := ws.Write(ctx, websocket.MessageBinary, b); err != nil {
				return
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-c.wake:
		case <-ping.C:
			pctx, pcancel := context.WithTimeout(ctx, c.cfg.PingInterval)
			err := ws.Ping(pctx)
			pcancel()
			if err != nil {
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
