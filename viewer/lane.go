package viewer

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/web/engine"
)

// The degraded lane (attach-v1 §14) for a driver or viewer leg: SSE down
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
	maxPostRetries  = 8
	postRetryStep   = 50 * time.Millisecond
	postRetryCap    = time.Second
	defaultRetry429 = 500 * time.Millisecond
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
	sse    *sseReader

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
	u := base + "/sse"
	c.mu.Lock()
	if seq, epoch, ok := c.eng.Applied(); ok {
		u += "?resume_from=" + strconv.FormatUint(seq, 10) + "&epoch=" + strconv.FormatUint(epoch, 10)
	}
	c.mu.Unlock()
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
		sse: newSSEReader(resp.Body, int(c.cfg.ReadLimit)*4/3+1024)}
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
		return &retryAfterError{status: resp.StatusCode, after: retryAfter(resp, 0)}
	case http.StatusNotFound, http.StatusBadRequest, http.StatusMethodNotAllowed, http.StatusNotImplemented:
		return &laneUnavailableError{status: resp.StatusCode}
	}
	return &dialError{fmt.Errorf("lane: HTTP %d", resp.StatusCode)}
}

// retryAfter reads a Retry-After in seconds (at most an hour), else def.
func retryAfter(resp *http.Response, def time.Duration) time.Duration {
	secs, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	if err != nil || secs < 0 {
		return def
	}
	return time.Duration(min(secs, 3600)) * time.Second
}

func (l *laneCarrier) touch() {
	l.mu.Lock()
	l.last = time.Now()
	l.mu.Unlock()
}

func (l *laneCarrier) next(context.Context) (attachwire.Frame, error) {
	for {
		ev, data, err := l.sse.next(l.touch)
		if err != nil {
			return attachwire.Frame{}, err
		}
		if ev != "" && ev != "frame" {
			continue // an event type this version does not know
		}
		b := make([]byte, base64.StdEncoding.DecodedLen(len(data)))
		n, err := base64.StdEncoding.Decode(b, data)
		if err != nil {
			return attachwire.Frame{}, fmt.Errorf("viewer: lane: frame is not base64: %w", err)
		}
		return attachwire.DecodeFrame(b[:n])
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

// laneBatch is the body of a POST …/input (attach-v1 §14).
type laneBatch struct {
	BatchID       string   `json:"batchId"`
	FirstInputSeq *uint64  `json:"firstInputSeq,omitempty"`
	LastInputSeq  *uint64  `json:"lastInputSeq,omitempty"`
	Inputs        []string `json:"inputs"`
	Controls      []string `json:"controls"`
}

// laneAnswer is the body of a 200 or 409.
type laneAnswer struct {
	BatchID     string `json:"batchId"`
	AckInputSeq uint64 `json:"ackInputSeq"`
}

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
	b := laneBatch{Inputs: []string{}, Controls: []string{}}
	for _, f := range inputs {
		raw, err := f.MarshalBinary()
		if err != nil {
			continue
		}
		in, err := attachwire.DecodeInput(f.Payload)
		if err != nil {
			continue
		}
		if b.FirstInputSeq == nil {
			first := in.InputSeq
			b.FirstInputSeq = &first
		}
		last := in.InputSeq
		b.LastInputSeq = &last
		b.Inputs = append(b.Inputs, base64.StdEncoding.EncodeToString(raw))
	}
	for _, f := range controls {
		if raw, err := f.MarshalBinary(); err == nil {
			b.Controls = append(b.Controls, base64.StdEncoding.EncodeToString(raw))
		}
	}
	if len(b.Inputs) == 0 && len(b.Controls) == 0 {
		return false, nil
	}
	var id [16]byte
	rand.Read(id[:])
	b.BatchID = hex.EncodeToString(id[:])
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
			wait = min(max(hint, time.Millisecond), l.c.cfg.BackoffMax)
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
func (l *laneCarrier) post(body []byte) (status int, ans laneAnswer, hint time.Duration, err error) {
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
	rb, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return 0, ans, 0, err
	}
	if resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusConflict {
		if err := json.Unmarshal(rb, &ans); err != nil {
			return 0, ans, 0, fmt.Errorf("answer: %w", err)
		}
	}
	return resp.StatusCode, ans, retryAfter(resp, defaultRetry429), nil
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

// sseReader parses a text/event-stream: "field: value" lines ending in
// LF or CRLF, an empty line dispatching the event, ':' lines being
// comments. Only event and data are kept (the relay sends no id or
// retry). Not safe for concurrent use.
type sseReader struct {
	r     *bufio.Reader
	max   int
	line  []byte
	event string
	data  []byte
	has   bool
}

// errSSELine is a line longer than the reader's limit.
var errSSELine = errors.New("viewer: lane: sse line too long")

func newSSEReader(r io.Reader, maxLine int) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 64<<10), max: max(maxLine, 1<<10)}
}

// readLine returns the next line without its terminator; the slice is
// valid until the next call.
func (s *sseReader) readLine() ([]byte, error) {
	s.line = s.line[:0]
	for {
		chunk, err := s.r.ReadSlice('\n')
		if len(s.line)+len(chunk) > s.max+2 {
			return nil, errSSELine
		}
		s.line = append(s.line, chunk...)
		switch {
		case err == nil:
			ln := s.line[:len(s.line)-1]
			return bytes.TrimSuffix(ln, []byte{'\r'}), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF && len(s.line) > 0:
			return nil, io.ErrUnexpectedEOF
		default:
			return nil, err
		}
	}
}

// next returns the next event's type and data (the data lines joined by
// "\n"), calling touch for every line read, comments included. At the
// stream's end it returns io.EOF; an event not closed by an empty line is
// dropped.
func (s *sseReader) next(touch func()) (string, []byte, error) {
	for {
		ln, err := s.readLine()
		if err != nil {
			return "", nil, err
		}
		if touch != nil {
			touch()
		}
		if len(ln) == 0 {
			if !s.has {
				s.event = ""
				continue
			}
			ev, data := s.event, s.data
			s.event, s.data, s.has = "", nil, false
			return ev, data, nil
		}
		if ln[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(ln, []byte{':'})
		value = bytes.TrimPrefix(value, []byte{' '})
		switch string(field) {
		case "event":
			s.event = string(value)
		case "data":
			if s.has {
				s.data = append(s.data, '\n')
			}
			if len(s.data)+len(value) > s.max {
				return "", nil, errSSELine
			}
			s.data = append(s.data, value...)
			s.has = true
		}
	}
}
