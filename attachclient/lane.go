package attachclient

import (
	"bytes"
	"context"
	"encoding/base64"
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
	"github.com/ptyhost/ptyhost/agent"
	"github.com/ptyhost/ptyhost/attachwire"
)

// Lane limits (attach-v1 §14 and the seed carrier's figures).
const (
	maxLaneBatch   = 64                    // frames per POST
	laneBatchBytes = 4 << 20               // payload bytes per POST, but always one frame (see lanePump)
	laneRetries    = 8                     // 5xx or network errors per batch
	laneRetryStep  = 50 * time.Millisecond // × attempt, capped at laneRetryMax
	laneRetryMax   = time.Second           //
	recentInputs   = 4096                  // the input dedup set's size
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

// inputKey identifies a stamped keystroke: the lane delivers at least
// once, a relay may replay on any carrier, and the relay never reuses a
// triple for another keystroke.
type inputKey struct {
	user       string
	pen, input uint64
}

// inputSet is a bounded recency set of inputKeys.
type inputSet struct {
	mu   sync.Mutex
	seen map[inputKey]struct{}
	ring []inputKey
	next int
}

// add records k and reports whether it was new.
func (s *inputSet) add(k inputKey) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.seen[k]; dup {
		return false
	}
	if s.seen == nil {
		s.seen = make(map[inputKey]struct{}, recentInputs)
		s.ring = make([]inputKey, 0, recentInputs)
	}
	if len(s.ring) < recentInputs {
		s.ring = append(s.ring, k)
	} else {
		delete(s.seen, s.ring[s.next])
		s.ring[s.next] = k
		s.next = (s.next + 1) % recentInputs
	}
	s.seen[k] = struct{}{}
	return true
}

// remove forgets k, added for an input that was then not handed to the
// session (the leg ended first): its replay must be typed, not dropped.
// The rare path scans the ring; its slot becomes the zero key, which add
// never records (unstamped input is dropped before).
func (s *inputSet) remove(k inputKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.seen, k)
	for i, r := range s.ring {
		if r == k {
			s.ring[i] = inputKey{}
		}
	}
}

// lane is the HTTP half of a lane leg: the token and endpoints its POSTs
// use. post serializes POSTs, so the pump's batches and the reader's
// controls reach the relay one at a time.
type lane struct {
	h      *host
	outURL string
	body   io.ReadCloser // the SSE stream

	mu  sync.Mutex // one POST at a time; guards tok
	tok string
}

// runLaneLeg opens the host SSE leg, subscribes over POST, and carries
// the session from seq after, as runLeg does over WebSocket, with an
// upgrade probe beside it.
func (h *host) runLaneLeg(ctx context.Context, tok string, claims hostClaims, after uint64) (time.Time, error) {
	sseURL, err := laneURL(h.cfg.AttachURL, "host/sse")
	if err != nil {
		return time.Time{}, err
	}
	sseURL += "?epoch=" + strconv.FormatUint(*claims.Epoch, 10)
	outURL, err := laneURL(h.cfg.AttachURL, "host/output")
	if err != nil {
		return time.Time{}, err
	}
	lctx, stop := context.WithCancel(ctx)
	defer stop()
	body, tok, err := h.openSSE(lctx, sseURL, tok)
	if err != nil {
		return time.Time{}, err
	}
	defer body.Close()
	// The GET took a fresh connection to whichever relay process answers
	// now; a kept POST connection may lead to one that is draining.
	h.dropIdlePosts()
	ln := &lane{h: h, outURL: outURL, body: body, tok: tok}
	l := &leg{h: h, lane: ln, dedup: true}
	l.seen() // the 200 is the bind

	sub, err := h.cfg.Session.Subscribe(after)
	if errors.Is(err, agent.ErrRingMiss) {
		sub, err = h.cfg.Session.Subscribe(0)
	}
	if err != nil {
		return l.admitted, fmt.Errorf("attachclient: subscribe to the session: %w", err)
	}
	subscribe := attachwire.Subscribe{SessionID: claims.SessionID, AsRole: attachwire.RoleHost, Epoch: claims.Epoch}
	if err := l.writeControl(lctx, subscribe); err != nil {
		sub.Close()
		return l.admitted, err
	}
	h.log.Info("attachclient: host leg on the degraded lane", "from", after)

	// The pump's own context ends on upgrade: it then stops between
	// batches, when everything it read is acked.
	pctx, upgrade := context.WithCancel(lctx)
	defer upgrade()
	pumped := make(chan error, 1)
	read := make(chan error, 1)
	probed := make(chan struct{}, 1)
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); pumped <- l.lanePump(lctx, pctx, sub) }()
	go func() { defer wg.Done(); read <- l.readSSE(lctx) }()
	go func() { defer wg.Done(); h.probe(lctx, probed) }()

	err = l.superviseLane(ctx, pumped, read, probed, upgrade)
	stop()
	body.Close() // ends the reader's blocked read
	wg.Wait()
	return l.admitted, err
}

// openSSE GETs the host SSE stream, re-minting the token once on a 401.
// It returns the stream and the token that opened it (the POSTs' jti).
func (h *host) openSSE(ctx context.Context, u, tok string) (io.ReadCloser, string, error) {
	for reminted := false; ; reminted = true {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, "", fmt.Errorf("attachclient: lane GET: %w", err)
		}
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set(attachwire.InputDedupHeader, attachwire.InputDedupAnyCarrier)
		resp, err := h.cfg.HTTPClient.Do(req)
		if err != nil {
			return nil, "", &laneError{op: "GET host/sse", err: err}
		}
		if resp.StatusCode == http.StatusOK {
			return resp.Body, tok, nil
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		resp.Body.Close()
		hint, hinted := attachwire.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		switch resp.StatusCode {
		case http.StatusUnauthorized:
			if !reminted {
				if tok, err = h.cfg.TokenSource(ctx); err != nil {
					return nil, "", fmt.Errorf("attachclient: token source: %w", err)
				}
				continue
			}
		case http.StatusNotFound:
			return nil, "", &laneError{op: "GET host/sse", status: resp.StatusCode, err: errLaneUnavailable}
		case http.StatusConflict:
			return nil, "", &epochStaleError{ctl: attachwire.ErrorControl{
				Code: attachwire.CodeEpochStale, Message: "lane GET answered 409"}}
		case http.StatusServiceUnavailable:
			if hinted {
				return nil, "", &restartError{how: "lane HTTP 503", hint: hint}
			}
		case http.StatusTooManyRequests:
			if hinted {
				return nil, "", &dialError{status: resp.StatusCode, retryAfter: hint,
					err: &laneError{op: "GET host/sse", status: resp.StatusCode}}
			}
		}
		return nil, "", &laneError{op: "GET host/sse", status: resp.StatusCode}
	}
}

// superviseLane is supervise for a lane leg: on a successful probe it
// stops the pump between batches and ends the leg with errUpgraded.
func (l *leg) superviseLane(ctx context.Context, pumped, read <-chan error, probed <-chan struct{}, upgrade func()) error {
	h := l.h
	exited := h.cfg.Session.Done()
	var windowEnd <-chan time.Time
	upgrading := false
	for {
		if end := h.exitDeadline(); !end.IsZero() && windowEnd == nil {
			exited = nil
			t := time.NewTimer(time.Until(end))
			defer t.Stop()
			windowEnd = t.C
		}
		select {
		case err := <-pumped:
			switch {
			case err == nil && upgrading:
				return errUpgraded
			case err == nil:
				pumped = nil // Exit sent: stay up for the window
				continue
			}
			return err
		case err := <-read:
			return err
		case <-probed:
			if pumped == nil {
				return errUpgraded // Exit is acked: nothing to drain
			}
			upgrading = true
			upgrade()
		case <-exited:
		case <-windowEnd:
			h.log.Info("attachclient: final-screen window elapsed")
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
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

// readSSE applies the relay's SSE frames until the stream ends.
func (l *leg) readSSE(ctx context.Context) error {
	// Anything read (an event, a heartbeat) rearms the silence timer;
	// its expiry closes the stream, which ends the read below.
	silence := time.AfterFunc(l.h.cfg.LaneSilenceTimeout, func() { l.lane.body.Close() })
	defer silence.Stop()
	r := attachwire.NewSSEReader(touchReader{r: l.lane.body, t: silence, d: l.h.cfg.LaneSilenceTimeout}, attachwire.SSEFrameLimit(l.h.cfg.ReadLimit))
	for {
		ev, err := r.Next()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if errors.Is(err, attachwire.ErrSSETooLong) {
				return fmt.Errorf("%w: %v", errSSE, err)
			}
			return &laneError{op: "SSE stream", err: err}
		}
		if ev.IsComment || (ev.Event != "" && ev.Event != attachwire.SSEFrameEvent) {
			continue // a heartbeat, or an event type this version does not know
		}
		f, err := attachwire.DecodeLaneFrame(ev.Data)
		if err != nil {
			l.h.log.Warn("attachclient: malformed frame on the SSE stream", "err", err)
			l.writeControl(ctx, attachwire.ErrorControl{Code: attachwire.CodeFraming, Message: attachwire.CapMessage(err.Error())})
			return fmt.Errorf("%w: %v", errFraming, err)
		}
		if err := l.apply(ctx, f); err != nil {
			return err
		}
	}
}

// touchReader rearms t for d on every read that brought bytes.
type touchReader struct {
	r io.Reader
	t *time.Timer
	d time.Duration
}

func (tr touchReader) Read(p []byte) (int, error) {
	n, err := tr.r.Read(p)
	if n > 0 {
		tr.t.Reset(tr.d)
	}
	return n, err
}

// lanePump reads the session from sub, which it owns, and POSTs it in
// batches of up to maxLaneBatch frames and laneBatchBytes of payload (a
// larger frame goes alone), each numbered by its frames' seqs, so a batch
// of snapshots stays under the relay's body limit as each frame does. It
// returns nil after the Exit frame is acked, or when stop ends between
// batches (an upgrade).
func (l *leg) lanePump(ctx, stop context.Context, sub agent.InteractiveSubscription) error {
	defer func() { sub.Close() }()
	// A done context still yields a frame that is ready, so Next(now)
	// collects what the session has already produced without waiting.
	now, cancel := context.WithCancel(context.Background())
	cancel()
	var batch []attachwire.Frame
	var held *attachwire.Frame // read past the last batch's byte bound: the next one starts with it
	misses := 0
	for {
		var f attachwire.Frame
		if held != nil {
			f, held = *held, nil
		} else {
			var err error
			f, err = sub.Next(stop)
			switch {
			case errors.Is(err, io.EOF):
				return nil
			case errors.Is(err, agent.ErrRingMiss):
				if sub, err = l.resync(sub, &misses, err); err != nil {
					return err
				}
				continue
			case err != nil && stop.Err() != nil && ctx.Err() == nil:
				return nil // upgrading: every frame read so far is acked
			case err != nil:
				return err
			}
		}
		if f.Type != attachwire.TypeSnapshot {
			misses = 0
		}
		batch = append(batch[:0], f)
		size := len(f.Payload)
		eof := false
		for len(batch) < maxLaneBatch {
			f, err := sub.Next(now)
			if err != nil {
				eof = errors.Is(err, io.EOF)
				break
			}
			if size += len(f.Payload); size > laneBatchBytes {
				held = &f
				break
			}
			batch = append(batch, f)
		}
		next, err := l.sendFrames(ctx, batch)
		if err != nil {
			return err
		}
		if next != nil { // rewound: read again from the relay's ack
			sub.Close()
			sub, held = next, nil
			continue
		}
		if eof {
			return nil
		}
	}
}

// sendFrames POSTs batch. On a 409 it rewinds: it returns a subscription
// from the relay's ack when the session's ring still holds it, and else
// resends the batch once with gapFrom, so the relay takes the gap.
func (l *leg) sendFrames(ctx context.Context, batch []attachwire.Frame) (agent.InteractiveSubscription, error) {
	b, err := attachwire.NewHostBatch(attachwire.NewBatchID(), batch)
	if err != nil {
		return nil, fmt.Errorf("attachclient: %w", err)
	}
	ans, err := l.lane.post(ctx, b)
	var conflict *conflictError
	if !errors.As(err, &conflict) {
		if err == nil {
			l.h.acked(ans.AckSeq)
		}
		return nil, err
	}
	sub, serr := l.h.cfg.Session.Subscribe(conflict.ack)
	if serr == nil {
		l.h.log.Info("attachclient: lane rewinds to the relay's ack", "ack", conflict.ack, "firstSeq", b.FirstSeq)
		return sub, nil
	}
	if !errors.Is(serr, agent.ErrRingMiss) {
		return nil, fmt.Errorf("attachclient: rewind to seq %d: %w", conflict.ack, serr)
	}
	l.h.log.Warn("attachclient: cannot rewind to the relay's ack; sending gapFrom", "ack", conflict.ack, "firstSeq", b.FirstSeq)
	gap := b.FirstSeq
	b.GapFrom = &gap // the same batchId: a 409 does not consume it
	ans, err = l.lane.post(ctx, b)
	if err == nil {
		l.h.acked(ans.AckSeq)
	}
	return nil, err
}

// acked records the relay's ack: a later lane leg, or the WebSocket leg
// after an upgrade, resumes after it.
func (h *host) acked(seq uint64) {
	h.ackMu.Lock()
	defer h.ackMu.Unlock()
	h.laneAck = max(h.laneAck, seq)
}

// postOutOfSeq POSTs one control or post-Exit snapshot in a batch of its
// own, outside the seq numbering.
func (ln *lane) postOutOfSeq(ctx context.Context, frame []byte) error {
	_, err := ln.post(ctx, attachwire.HostBatch{Frames: []string{}, OutOfSeq: []string{base64.StdEncoding.EncodeToString(frame)}})
	return err
}

// post sends b under its batchId (a fresh one if empty), kept across its
// retries: 401 →
// re-mint once; 429 → wait Retry-After; 5xx or no answer → up to
// laneRetries with a growing delay; 409 → *conflictError; 410 →
// errLaneGone; anything else ends the leg.
func (ln *lane) post(ctx context.Context, b attachwire.HostBatch) (attachwire.HostBatchAnswer, error) {
	ln.mu.Lock()
	defer ln.mu.Unlock()
	if b.BatchID == "" {
		b.BatchID = attachwire.NewBatchID()
	}
	body, err := json.Marshal(b)
	if err != nil {
		return attachwire.HostBatchAnswer{}, fmt.Errorf("attachclient: lane batch: %w", err)
	}
	reminted, failures := false, 0
	for {
		status, hdr, ans, err := ln.do(ctx, body)
		var wait time.Duration
		switch {
		case ctx.Err() != nil:
			return attachwire.HostBatchAnswer{}, ctx.Err()
		case err != nil || status >= 500:
			if failures++; failures > laneRetries {
				return attachwire.HostBatchAnswer{}, &laneError{op: "POST host/output", status: status, err: err}
			}
			wait = min(laneRetryStep*time.Duration(failures), laneRetryMax)
		case status == http.StatusOK:
			return ans, nil
		case status == http.StatusConflict:
			return ans, &conflictError{ack: ans.AckSeq}
		case status == http.StatusGone:
			ln.h.dropIdlePosts()
			return attachwire.HostBatchAnswer{}, errLaneGone
		case status == http.StatusUnauthorized && !reminted:
			reminted = true
			tok, err := ln.h.cfg.TokenSource(ctx)
			if err != nil {
				return attachwire.HostBatchAnswer{}, fmt.Errorf("attachclient: token source: %w", err)
			}
			ln.tok = tok
			continue
		case status == http.StatusTooManyRequests:
			wait = attachwire.DefaultRetryAfter
			if d, ok := attachwire.ParseRetryAfter(hdr.Get("Retry-After"), time.Now()); ok {
				wait = min(max(d, laneRetryStep), ln.h.cfg.BackoffMax) // "0" again and again is no spin
			}
		default:
			return attachwire.HostBatchAnswer{}, &laneError{op: "POST host/output", status: status}
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return attachwire.HostBatchAnswer{}, ctx.Err()
		}
	}
}

// do sends one POST and reads its answer, within WriteTimeout: a POST
// that hangs counts as a failure and is retried.
func (ln *lane) do(ctx context.Context, body []byte) (int, http.Header, attachwire.HostBatchAnswer, error) {
	ctx, cancel := context.WithTimeout(ctx, ln.h.cfg.WriteTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ln.outURL, bytes.NewReader(body))
	if err != nil {
		return 0, nil, attachwire.HostBatchAnswer{}, err
	}
	req.Header.Set("Authorization", "Bearer "+ln.tok)
	req.Header.Set("Content-Type", "application/json")
	resp, err := ln.h.postHTTP.Do(req)
	if err != nil {
		return 0, nil, attachwire.HostBatchAnswer{}, err
	}
	defer resp.Body.Close()
	var ans attachwire.HostBatchAnswer
	if resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusConflict {
		rb, err := io.ReadAll(io.LimitReader(resp.Body, attachwire.MaxBatchAnswerBytes+1))
		if err == nil {
			ans, err = attachwire.ParseHostBatchAnswer(rb)
		}
		if err != nil {
			return 0, nil, attachwire.HostBatchAnswer{}, fmt.Errorf("attachclient: lane answer: %w", err)
		}
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
	return resp.StatusCode, resp.Header, ans, nil
}
