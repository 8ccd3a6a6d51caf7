package attachclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/coder/websocket"
)

// Lane limits (docs/protocol.md §7).
const (
	maxLaneBatch   = 64                    // frames per POST
	laneBatchBytes = 4 << 20               // payload bytes per POST, but always one frame (see leg.pump)
	laneRetries    = 8                     // 5xx or network errors per batch
	laneRetryStep  = 50 * time.Millisecond // × attempt, capped at laneRetryMax
	laneRetryMax   = time.Second           //
)

var (
	// errUpgraded ends a lane leg whose upgrade probe reached the relay
	// over WebSocket: everything read from the session is acked, and the
	// next attempt dials WebSocket from the acked seq.
	errUpgraded = errors.New("attachclient: upgrade probe succeeded; back to WebSocket")

	// errLaneUnavailable is a relay that answered 404 on the lane: it does
	// not serve it, so the host goes back to WebSocket dials at once.
	errLaneUnavailable = errors.New("attachclient: relay does not serve the degraded lane")

	// errSSE is a host SSE stream the carrier cannot read on: a line or
	// an event past the limit.
	errSSE = errors.New("attachclient: malformed SSE stream")

	// errLaneGone is a POST answered 410: the relay holds no live SSE leg
	// for the token (closed, superseded, or a re-minted token), so the
	// leg ends and the next attempt opens a new one.
	errLaneGone = errors.New("attachclient: relay has no live SSE leg for this token")
)

// laneError is a lane request the relay refused (or that never got an
// answer, status 0). A GET's counts toward the refusals that send the host
// back to WebSocket.
type laneError struct {
	op     string // "GET host/sse" or "POST host/output"
	status int
	err    error
}

func (e *laneError) Error() string {
	if e.status != 0 {
		return fmt.Sprintf("attachclient: lane %s: HTTP %d", e.op, e.status)
	}
	return fmt.Sprintf("attachclient: lane %s: %v", e.op, e.err)
}

func (e *laneError) Unwrap() error { return e.err }

// conflictError is a 409: the relay holds the stream up to ack only.
type conflictError struct{ ack uint64 }

func (e *conflictError) Error() string {
	return fmt.Sprintf("attachclient: lane POST: 409, relay holds up to seq %d", e.ack)
}

// laneURL derives a lane endpoint from the attach URL (ws → http).
func laneURL(attach, endpoint string) (string, error) {
	u, err := url.Parse(attach)
	if err != nil {
		return "", fmt.Errorf("attachclient: attach URL: %w", err)
	}
	switch u.Scheme {
	case "ws":
		u.Scheme = "http"
	case "wss":
		u.Scheme = "https"
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/" + endpoint
	u.RawQuery = ""
	return u.String(), nil
}

// probe tries a WebSocket handshake every UpgradeProbeInterval, with a
// fresh token, and reports the first that succeeds on probed.
func (h *host) probe(ctx context.Context, probed chan<- struct{}) {
	t := time.NewTicker(h.cfg.UpgradeProbeInterval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-ctx.Done():
			return
		}
		tok, err := h.cfg.TokenSource(ctx)
		if err != nil {
			h.log.Debug("attachclient: upgrade probe: token source", "err", err)
			continue
		}
		dctx, cancel := context.WithTimeout(ctx, h.cfg.DialTimeout)
		ws, _, err := websocket.Dial(dctx, h.cfg.AttachURL, &websocket.DialOptions{
			HTTPClient:   h.cfg.HTTPClient,
			HTTPHeader:   http.Header{"Authorization": {"Bearer " + tok}},
			Subprotocols: []string{Subprotocol},
		})
		cancel()
		if err != nil {
			h.log.Debug("attachclient: upgrade probe failed", "err", err)
			continue
		}
		ok := ws.Subprotocol() == Subprotocol
		ws.Close(websocket.StatusNormalClosure, "upgrade probe")
		if ok {
			h.log.Info("attachclient: upgrade probe reached the relay over WebSocket")
			probed <- struct{}{}
			return
		}
	}
}
