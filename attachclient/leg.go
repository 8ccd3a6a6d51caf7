package attachclient

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/agent"
	"github.com/ptyhost/ptyhost/attachwire"
)

// errNoSubprotocol is a relay that did not echo Subprotocol: coder/websocket
// accepts the handshake anyway, so the host checks and closes 1002.
var errNoSubprotocol = errors.New("attachclient: relay did not echo the " + Subprotocol + " subprotocol")

// errFraming is a relay message the host could not decode; the host sent
// error{framing} and closed 1002 (1003 for a text message).
var errFraming = errors.New("attachclient: relay sent a malformed message")

// resyncTries bounds how often in a row the pump re-anchors on a fresh
// snapshot after falling off the session's ring before the leg gives up.
const resyncTries = 3

// leg is one WebSocket connection to the relay. The pump writes the
// session's frames, the reader applies the relay's; the supervisor
// (runLeg, on RunHost's goroutine) waits for either to end, for ctx, or for
// the final-screen window, and joins both.
type leg struct {
	h  *host
	ws *websocket.Conn // nil on the lane
	// lane is the HTTP half of a lane leg (nil on WebSocket): writes
	// become POSTs.
	lane *lane
	// dedup makes the reader drop Input whose (userId, penGeneration,
	// inputSeq) it has seen: always on the lane, which delivers at least
	// once; on WebSocket when the relay answered the dial's InputDedupHeader,
	// so it replays there and never reuses a triple.
	dedup bool
	// admitted is when the relay's first frame other than an error
	// arrived: the relay bound the leg. Written by the reader, read by the
	// supervisor after the join.
	admitted time.Time
	// snapPayload and snapFrame are the reader's reused buffers for
	// post-Exit snapshot answers.
	snapPayload, snapFrame []byte
}

// runLeg dials, subscribes and carries the session from seq after until
// the leg ends. It returns when the leg was admitted and why it ended
// (nil: the final-screen window passed and the leg closed 1000).
func (h *host) runLeg(ctx context.Context, tok string, claims hostClaims, after uint64) (time.Time, error) {
	dctx, cancel := context.WithTimeout(ctx, h.cfg.DialTimeout)
	ws, resp, err := websocket.Dial(dctx, h.cfg.AttachURL, &websocket.DialOptions{
		HTTPClient:   h.cfg.HTTPClient,
		HTTPHeader:   http.Header{"Authorization": {"Bearer " + tok}, attachwire.InputDedupHeader: {attachwire.InputDedupAnyCarrier}},
		Subprotocols: []string{Subprotocol},
	})
	cancel()
	if err != nil {
		return time.Time{}, classifyDial(resp, err)
	}
	dedup := resp != nil && resp.Header.Get(attachwire.InputDedupHeader) == attachwire.InputDedupAnyCarrier
	if ws.Subprotocol() != Subprotocol {
		ws.Close(websocket.StatusProtocolError, "version subprotocol not negotiated")
		return time.Time{}, errNoSubprotocol
	}
	ws.SetReadLimit(h.cfg.ReadLimit)
	l := &leg{h: h, ws: ws, dedup: dedup}

	sub, err := h.cfg.Session.Subscribe(after)
	if errors.Is(err, agent.ErrRingMiss) {
		sub, err = h.cfg.Session.Subscribe(0) // the head moved past the ring: take what is left
	}
	if err != nil {
		ws.CloseNow()
		return time.Time{}, fmt.Errorf("attachclient: subscribe to the session: %w", err)
	}
	subscribe := attachwire.Subscribe{SessionID: claims.SessionID, AsRole: attachwire.RoleHost, Epoch: claims.Epoch}
	if err := l.writeControl(ctx, subscribe); err != nil {
		sub.Close()
		ws.CloseNow()
		return time.Time{}, err
	}
	h.log.Debug("attachclient: host leg subscribed", "from", after)

	lctx, stop := context.WithCancel(ctx)
	pumped := make(chan error, 1)
	read := make(chan error, 1)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); pumped <- l.pump(lctx, sub) }()
	go func() { defer wg.Done(); read <- l.read(lctx) }()

	err = l.supervise(ctx, pumped, read)
	stop()
	if err != nil {
		ws.CloseNow()
	}
	wg.Wait()
	return l.admitted, err
}

// supervise waits for the leg to end. It returns nil when the final-screen
// window passed (after closing 1000), else the reason the leg ended.
func (l *leg) supervise(ctx context.Context, pumped, read <-chan error) error {
	h := l.h
	exited := h.cfg.Session.Done()
	var windowEnd <-chan time.Time
	for {
		if end := h.exitDeadline(); !end.IsZero() && windowEnd == nil {
			exited = nil
			t := time.NewTimer(time.Until(end))
			defer t.Stop()
			windowEnd = t.C
		}
		select {
		case err := <-pumped:
			if err == nil {
				pumped = nil // Exit sent: stay up for the window
				continue
			}
			return err
		case err := <-read:
			return err
		case <-exited:
		case <-windowEnd:
			h.log.Info("attachclient: final-screen window elapsed")
			l.ws.Close(websocket.StatusNormalClosure, "final-screen window elapsed")
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// pump writes the session's frames to the relay from sub, which it owns,
// at its own pace: the session never waits for it. It returns nil after
// the Exit frame. Falling off the session's ring re-anchors it on a fresh
// snapshot.
func (l *leg) pump(ctx context.Context, sub agent.InteractiveSubscription) error {
	defer func() { sub.Close() }()
	var buf []byte
	misses := 0
	for {
		f, err := sub.Next(ctx)
		switch {
		case errors.Is(err, io.EOF):
			return nil
		case errors.Is(err, agent.ErrRingMiss):
			if sub, err = l.resync(sub, &misses, err); err != nil {
				return err
			}
			continue
		case err != nil:
			return err
		}
		if f.Type != attachwire.TypeSnapshot {
			misses = 0
		}
		if buf, err = f.AppendBinary(buf[:0]); err != nil {
			return fmt.Errorf("attachclient: encode frame %d: %w", f.Seq, err)
		}
		if err := l.write(ctx, buf); err != nil {
			return err
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

// write sends one binary message within WriteTimeout. coder/websocket
// writes whole messages under its own lock, so the pump and the reader may
// both write. On the lane only controls and post-Exit snapshots come here,
// each POSTed outside the seq numbering.
func (l *leg) write(ctx context.Context, b []byte) error {
	if l.lane != nil {
		return l.lane.postOutOfSeq(ctx, b)
	}
	wctx, cancel := context.WithTimeout(ctx, l.h.cfg.WriteTimeout)
	defer cancel()
	if err := l.ws.Write(wctx, websocket.MessageBinary, b); err != nil {
		return fmt.Errorf("attachclient: write: %w", err)
	}
	return nil
}

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
