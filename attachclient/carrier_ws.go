package attachclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/agent"
	"github.com/ptyhost/ptyhost/attachwire"
)

// errNoSubprotocol is a relay that did not echo Subprotocol: coder/websocket
// accepts the handshake anyway, so the host checks and closes 1002.
var errNoSubprotocol = errors.New("attachclient: relay did not echo the " + Subprotocol + " subprotocol")

// wsCarrier is a leg on a WebSocket: one binary message per frame.
// coder/websocket writes whole messages under its own lock, so the pump
// and the reader may both write.
type wsCarrier struct {
	h   *host
	ws  *websocket.Conn
	buf []byte // the pump's encoding buffer
	// heard is when the relay was last heard (a message or a pong), in
	// Unix nanoseconds; silent is set when keepalive closed the leg for
	// want of it, so that next reports why.
	heard  atomic.Int64
	silent atomic.Bool
}

// dialWS opens the WebSocket. dedup reports that the relay answered the
// dial's InputDedupHeader: it replays Input and never reuses a triple.
func (h *host) dialWS(ctx context.Context, tok string) (w *wsCarrier, dedup bool, err error) {
	dctx, cancel := context.WithTimeout(ctx, h.cfg.DialTimeout)
	ws, resp, err := websocket.Dial(dctx, h.cfg.AttachURL, &websocket.DialOptions{
		HTTPClient:   h.cfg.HTTPClient,
		HTTPHeader:   http.Header{"Authorization": {"Bearer " + tok}, attachwire.InputDedupHeader: {attachwire.InputDedupAnyCarrier}},
		Subprotocols: []string{Subprotocol},
	})
	cancel()
	if err != nil {
		return nil, false, classifyDial(resp, err)
	}
	dedup = resp != nil && resp.Header.Get(attachwire.InputDedupHeader) == attachwire.InputDedupAnyCarrier
	if ws.Subprotocol() != Subprotocol {
		ws.Close(websocket.StatusProtocolError, "version subprotocol not negotiated")
		return nil, false, errNoSubprotocol
	}
	ws.SetReadLimit(h.cfg.ReadLimit)
	w = &wsCarrier{h: h, ws: ws}
	w.touch()
	return w, dedup, nil
}

// errRelaySilent ends a WebSocket leg from which nothing arrived for
// SilenceTimeout: the path is presumed dead and the host redials.
var errRelaySilent = errors.New("attachclient: the relay went silent (no message or pong within the silence timeout)")

func (w *wsCarrier) touch() { w.heard.Store(time.Now().UnixNano()) }

// keepalive pings the relay every PingInterval and closes the leg once it
// has heard nothing for SilenceTimeout, which ends the reader's next with
// errRelaySilent. It looks four times a ping interval, so that the
// silence is acted on within a quarter interval of the timeout; each ping
// waits for its pong on a goroutine of its own (on a dead path it never
// comes), joined before keepalive returns, when ctx ends or after closing.
func (w *wsCarrier) keepalive(ctx context.Context) {
	cfg := &w.h.cfg
	t := time.NewTicker(min(cfg.PingInterval, cfg.SilenceTimeout) / 4)
	defer t.Stop()
	var pings sync.WaitGroup
	defer pings.Wait()
	pinged := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if time.Since(time.Unix(0, w.heard.Load())) >= cfg.SilenceTimeout {
			w.h.log.Warn("attachclient: the relay is silent; redialling", "after", cfg.SilenceTimeout)
			w.silent.Store(true)
			w.ws.CloseNow()
			return
		}
		if time.Since(pinged) < cfg.PingInterval {
			continue
		}
		pinged = time.Now()
		pings.Go(func() {
			pctx, cancel := context.WithTimeout(ctx, cfg.SilenceTimeout)
			defer cancel()
			if w.ws.Ping(pctx) == nil {
				w.touch()
			}
		})
	}
}

func (w *wsCarrier) next(ctx context.Context) (attachwire.Frame, error) {
	typ, msg, err := w.ws.Read(ctx)
	if err != nil {
		if w.silent.Load() {
			return attachwire.Frame{}, errRelaySilent
		}
		return attachwire.Frame{}, classifyClose(err)
	}
	w.touch()
	if typ != websocket.MessageBinary {
		return attachwire.Frame{}, &malformedError{code: websocket.StatusUnsupportedData,
			reason: "binary frames only", cause: errors.New("text message")}
	}
	f, err := attachwire.DecodeFrame(msg)
	if err != nil {
		return attachwire.Frame{}, &malformedError{cause: err}
	}
	return f, nil
}

// batchLimits: one frame a message, written as soon as it is read.
func (w *wsCarrier) batchLimits() (int, int) { return 1, 0 }

func (w *wsCarrier) send(ctx context.Context, frames []attachwire.Frame) (agent.InteractiveSubscription, error) {
	for _, f := range frames {
		var err error
		if w.buf, err = f.AppendBinary(w.buf[:0]); err != nil {
			return nil, fmt.Errorf("attachclient: encode frame %d: %w", f.Seq, err)
		}
		if err := w.write(ctx, w.buf); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// write sends one binary message within WriteTimeout.
func (w *wsCarrier) write(ctx context.Context, b []byte) error {
	wctx, cancel := context.WithTimeout(ctx, w.h.cfg.WriteTimeout)
	defer cancel()
	if err := w.ws.Write(wctx, websocket.MessageBinary, b); err != nil {
		return fmt.Errorf("attachclient: write: %w", err)
	}
	return nil
}

func (w *wsCarrier) malformed(m *malformedError) {
	code, reason := m.code, m.reason
	if code == 0 {
		code, reason = websocket.StatusProtocolError, "framing error"
	}
	w.ws.Close(code, reason)
}

func (w *wsCarrier) finish() {
	w.ws.Close(websocket.StatusNormalClosure, "final-screen window elapsed")
}

func (w *wsCarrier) end(err error) {
	if err != nil {
		w.ws.CloseNow()
	}
}

func (w *wsCarrier) lane() bool { return false }
