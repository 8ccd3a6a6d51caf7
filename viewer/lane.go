package viewer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/web/engine"
)

// The degraded lane (docs/protocol.md §7) for a driver or viewer leg: SSE down
// (GET …/sse, one base64 frame per event, a heartbeat comment every
// 15 s) and batched POSTs up (…/input), both with the attach token, so
// both halves carry the same jti and the relay keeps one inputSeq space
// for the Client whichever carrier it rides.

// laneIdle is how long a lane leg may go without a byte from the relay
// (three of its 15 s heartbeats) before it is dropped as half-open.
const laneIdle = 45 * time.Second

// Bounds of the POST retries for network errors and 5xx answers: the
// same batch, 50 ms × attempt apart, capped at 1 s.
const (
	maxPostRetries = 8
	postRetryStep  = 50 * time.Millisecond
	postRetryCap   = time.Second
)

// Lane signals: why a lane leg ended, for the connection loop.
var (
	// errUpgraded: the upgrade probe found WebSocket working again.
	errUpgraded = errors.New("viewer: lane: websocket works again")
	// errLaneGone: a POST was answered 410, the relay no longer holds the
	// SSE half; the SSE is reopened at once.
	errLaneGone = errors.New("viewer: lane: the relay has no live sse leg (410)")
)

// laneUnavailableError is a relay that does not serve the lane (404) or
// persistently refuses it: the Client goes back to WebSocket dials. It
// matches ErrUnreachable.
type laneUnavailableError struct{ status int }

func (e *laneUnavailableError) Error() string {
	return "viewer: lane unavailable: HTTP " + strconv.Itoa(e.status)
}

func (e *laneUnavailableError) Is(target error) bool { return target == ErrUnreachable }

// laneBase maps the attach URL (ws:// or wss://) to its HTTP form, the
// prefix of the lane's endpoints.
func laneBase(attachURL string) string {
	if rest, ok := strings.CutPrefix(attachURL, "wss://"); ok {
		return "https://" + rest
	}
	return "http://" + strings.TrimPrefix(attachURL, "ws://")
}

func (c *Client) httpClient() *http.Client {
	if c.cfg.HTTPClient != nil {
		return c.cfg.HTTPClient
	}
	return http.DefaultClient
}

// laneCarrier is a leg on the lane. The SSE body is read by the
// connection loop only; send runs on the leg's writer only.
type laneCarrier struct {
	c      *Client
	base   string
	body   io.ReadCloser
	cancel context.CancelFunc // ends the GET
	sse    *attachwire.SSEReader

	mu   sync.Mutex
	last time.Time // the last byte from the relay

	// carry holds the controls of a batch refused whole (409): they go
	// again in the next one.
	carry []attachwire.Frame
}

// dialLane opens the SSE half, resuming from the mirror's position. Its
// errors are classified like a WebSocket dial's, plus
// *laneUnavailableError.
func (c *Client) dialLane(ctx context.Context) (*laneCarrier, error) {
	base := laneBase(c.cfg.URL)
	q := url.Values{}
	c.mu.Lock()
	if seq, epoch, ok := c.eng.Applied(); ok {
		q.Set("resume_from", strconv.FormatUint(seq, 10))
		q.Set("epoch", strconv.FormatUint(epoch, 10))
	}
	c.mu.Unlock()
	if c.cfg.Key != nil {
		q.Set("sealed", c.cfg.Key.ID().String())
	}
	u := base + "/sse"
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	rctx, cancel := context.WithCancel(c.ctx)
	dctx, dcancel := context.WithTimeout(ctx, c.cfg.DialTimeout)
	defer dcancel()
	stop := context.AfterFunc(dctx, cancel) // ctx and the timeout bound the dial only
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, u, nil)
	if err != nil {
		stop()
		cancel()
		return nil, fmt.Errorf("%w: lane url: %v", ErrConfig, err)
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+c.cfg.Token)
	resp, err := c.httpClient().Do(req)
	if !stop() || err != nil {
		cancel()
		if err == nil {
			resp.Body.Close()
			err = context.DeadlineExceeded
		}
		return nil, &dialError{fmt.Errorf("lane: %w", err)}
	}
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		cancel()
		return nil, c.classifyLane(resp)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		resp.Body.Close()
		cancel()
		return nil, &laneUnavailableError{status: resp.StatusCode}
	}
	l := &laneCarrier{c: c, base: base, body: resp.Body, cancel: cancel, last: time.Now(),
		sse: attachwire.NewSSEReader(resp.Body, attachwire.SSEFrameLimit(c.cfg.ReadLimit))}
	c.mu.Lock()
	lead, _ := c.eng.Pending(engine.MaxPendingInputs, 0)
	if vp, ok := c.eng.Viewport(int(c.viewport.Cols), int(c.viewport.Rows)); ok {
		lead = append(lead, vp) // the lane has no subscribe: advertise it in a batch
	}
	c.queueLeg(lead)
	c.mu.Unlock()
	return l, nil
}

// classifyLane turns a refused lane GET into a final refusal (403, or
// 401 for an expired token), a hinted retry (429, 503), a lane the relay
// does not serve (404, 400, 405, 501: back to WebSocket) or a transient
// failure. A 401 for a token still valid is transient: the relay answers
// it too while the jti still holds the previous leg (a reopen right after
// a drop or a 410), and a bad signature is told apart on WebSocket, where
// the Client goes after FallbackAfter of them.
func (c *Client) classifyLane(resp *http.Response) error {
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		if c.claims.Exp != 0 && time.Now().Unix() > c.claims.Exp {
			return &RefusedError{Status: resp.StatusCode}
		}
	case http.StatusForbidden:
		return &RefusedError{Status: resp.StatusCode}
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		after, _ := attachwire.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		return &retryAfterError{status: resp.StatusCode, after: after}
	case http.StatusNotFound, http.StatusBadRequest, http.StatusMethodNotAllowed, http.StatusNotImplemented:
		return &laneUnavailableError{status: resp.StatusCode}
	}
	return &dialError{fmt.Errorf("lane: HTTP %d", resp.StatusCode)}
}

func (l *laneCarrier) touch() {
	l.mu.Lock()
	l.last = time.Now()
	l.mu.Unlock()
}

func (l *laneCarrier) next(context.Context) (attachwire.Frame, error) {
	for {
		ev, err := l.sse.Next()
		if err != nil {
			return attachwire.Frame{}, err
		}
		l.touch() // a heartbeat too: the stream is alive
		if ev.IsComment || (ev.Event != "" && ev.Event != attachwire.SSEFrameEvent) {
			continue // an event type this version does not know
		}
		return attachwire.DecodeLaneFrame(ev.Data)
	}
}

// ping reports a stream on which the relay's heartbeat stopped.
func (l *laneCarrier) ping(context.Context) error {
	l.mu.Lock()
	idle := time.Since(l.last)
	l.mu.Unlock()
	if idle > laneIdle {
		return errors.New("viewer: lane: no heartbeat for " + idle.Truncate(time.Second).String())
	}
	return nil
}

func (l *laneCarrier) finish(bool, string) { l.abort() }

func (l *laneCarrier) abort() {
	l.cancel()
	l.body.Close()
}

func (l *laneCarrier) lane() bool { return true }

// laneBatchBytes bounds the Input frames one POST carries, in bytes before
// base64: far under the relay's body limit (twice a viewer's 1 MiB message
// limit by default; 413 past it) whatever MaxPendingInput allows to wait.
// One Input frame (at most 64 KiB of data) always fits.
const laneBatchBytes = 256 << 10

// send posts frames in batches: Input frames (contiguous, as the Client's
// queue hands them out) in inputs, at most laneBatchBytes of them per
// batch, in order; the rest, in controls, with the first. Each answer's
// ack is applied as an input_ack; a 409 rewinds the queue to the ack (the
// batch was refused whole, so its controls go again, and the inputs after
// it are due again too); a 429 waits for Retry-After; network errors and
// 5xx retry the same batchId.
func (l *laneCarrier) send(ctx context.Context, frames []attachwire.Frame) error {
	var controls []attachwire.Frame
	controls = append(controls, l.carry...)
	l.carry = nil
	var batches [][]attachwire.Frame
	size := 0
	for _, f := range frames {
		if f.Type != attachwire.TypeInput {
			controls = append(controls, f)
			continue
		}
		if n := len(batches); n == 0 || (size+len(f.Payload) > laneBatchBytes && len(batches[n-1]) > 0) {
			batches = append(batches, nil)
			size = 0
		}
		size += len(f.Payload)
		batches[len(batches)-1] = append(batches[len(batches)-1], f)
	}
	if len(batches) == 0 {
		batches = append(batches, nil)
	}
	for i, inputs := range batches {
		if i > 0 {
			controls = nil
		}
		rewound, err := l.postBatch(ctx, inputs, controls)
		if err != nil || rewound {
			return err
		}
	}
	return nil
}

// postBatch posts one batch of inputs and controls; it reports rewound after a
// 409, which leaves the inputs from the ack on due again.
func (l *laneCarrier) postBatch(ctx context.Context, inputs, controls []attachwire.Frame) (rewound bool, err error) {
	if len(inputs) == 0 && len(controls) == 0 {
		return false, nil
	}
	b, err := attachwire.NewViewerBatch(attachwire.NewBatchID(), inputs, controls)
	if err != nil {
		return false, fmt.Errorf("viewer: lane: %w", err)
	}
	body, err := json.Marshal(b)
	if err != nil {
		return false, fmt.Errorf("viewer: lane: batch: %w", err)
	}
	for attempt := 1; ; attempt++ {
		status, ans, hint, err := l.post(body)
		wait := time.Duration(0)
		switch {
		case err != nil || status >= 500:
			if attempt > maxPostRetries {
				if err == nil {
					err = fmt.Errorf("HTTP %d", status)
				}
				return false, fmt.Errorf("viewer: lane: post: %w", err)
			}
			wait = min(postRetryStep*time.Duration(attempt), postRetryCap)
		case status == http.StatusOK:
			l.c.laneAck(ans.AckInputSeq, false)
			return false, nil
		case status == http.StatusConflict:
			l.c.laneAck(ans.AckInputSeq, true)
			l.carry = controls
			return true, nil
		case status == http.StatusTooManyRequests:
			wait = min(max(hint, postRetryStep), l.c.cfg.BackoffMax) // "0" again and again is no spin
		case status == http.StatusGone:
			return false, errLaneGone
		case status == http.StatusUnauthorized || status == http.StatusForbidden:
			// The SSE half is redialled and gets the final answer.
			return false, fmt.Errorf("viewer: lane: post: HTTP %d", status)
		default:
			return false, &laneUnavailableError{status: status}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return false, ctx.Err()
		case <-t.C:
		}
	}
}

// post sends one batch. It is bounded by the Client's life and
// DialTimeout, not by the leg: a POST in flight when the leg ends (an
// upgrade) completes, so its ack is known.
func (l *laneCarrier) post(body []byte) (status int, ans attachwire.ViewerBatchAnswer, hint time.Duration, err error) {
	ctx, cancel := context.WithTimeout(l.c.ctx, l.c.cfg.DialTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.base+"/input", bytes.NewReader(body))
	if err != nil {
		return 0, ans, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+l.c.cfg.Token)
	resp, err := l.c.httpClient().Do(req)
	if err != nil {
		return 0, ans, 0, err
	}
	defer resp.Body.Close()
	rb, err := io.ReadAll(io.LimitReader(resp.Body, attachwire.MaxBatchAnswerBytes+1))
	if err != nil {
		return 0, ans, 0, err
	}
	if resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusConflict {
		if ans, err = attachwire.ParseViewerBatchAnswer(rb); err != nil {
			return 0, ans, 0, fmt.Errorf("answer: %w", err)
		}
	}
	hint = attachwire.DefaultRetryAfter
	if d, ok := attachwire.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
		hint = d
	}
	return resp.StatusCode, ans, hint, nil
}

// probe tries a WebSocket handshake every ProbeInterval while the leg
// rides the lane; the first that succeeds is closed ("upgrade probe") and
// ends the leg with errUpgraded, so the loop dials WebSocket and resumes.
// The probe uses the leg's own token: the relay checks the jti only after
// the upgrade, so a handshake proves the path without taking the leg.
func (c *Client) probe(ctx context.Context, cancel context.CancelCauseFunc) {
	t := time.NewTicker(c.cfg.ProbeInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if c.probeOnce(ctx) {
			cancel(errUpgraded)
			return
		}
	}
}

func (c *Client) probeOnce(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.DialTimeout)
	defer cancel()
	h := http.Header{}
	h.Set("Authorization", "Bearer "+c.cfg.Token)
	ws, _, err := websocket.Dial(ctx, c.cfg.URL, &websocket.DialOptions{
		HTTPClient: c.cfg.HTTPClient, HTTPHeader: h, Subprotocols: []string{Subprotocol},
	})
	if err != nil {
		return false
	}
	ok := ws.Subprotocol() == Subprotocol
	ws.Close(websocket.StatusNormalClosure, "upgrade probe")
	return ok
}
