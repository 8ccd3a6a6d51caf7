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
	"strconv"
	"sync"
	"time"

	"github.com/ptyhost/ptyhost/agent"
	"github.com/ptyhost/ptyhost/attachwire"
)

// laneCarrier is a leg on the degraded lane: the host SSE stream down,
// batched POSTs up, both with the same token. post serializes POSTs, so
// the pump's batches and the reader's controls reach the relay one at a
// time.
type laneCarrier struct {
	h       *host
	outURL  string
	body    io.ReadCloser // the SSE stream
	silence *time.Timer   // closes body when the relay stays silent
	sse     *attachwire.SSEReader

	mu  sync.Mutex // one POST at a time; guards tok
	tok string
}

// dialLane opens the host SSE stream: its 200 binds the leg.
func (h *host) dialLane(ctx context.Context, tok string, claims hostClaims) (*laneCarrier, error) {
	sseURL, err := laneURL(h.cfg.AttachURL, "host/sse")
	if err != nil {
		return nil, err
	}
	sseURL += "?epoch=" + strconv.FormatUint(*claims.Epoch, 10)
	if id := h.keyID(); id != "" {
		sseURL += "&sealed=" + id
	}
	outURL, err := laneURL(h.cfg.AttachURL, "host/output")
	if err != nil {
		return nil, err
	}
	body, tok, err := h.openSSE(ctx, sseURL, tok)
	if err != nil {
		return nil, err
	}
	// The GET took a fresh connection to whichever relay process answers
	// now; a kept POST connection may lead to one that is draining.
	h.dropIdlePosts()
	ln := &laneCarrier{h: h, outURL: outURL, body: body, tok: tok}
	// Anything read (an event, a heartbeat) rearms the silence timer; its
	// expiry closes the stream, which ends the reader's read.
	d := h.cfg.LaneSilenceTimeout
	ln.silence = time.AfterFunc(d, func() { body.Close() })
	ln.sse = attachwire.NewSSEReader(touchReader{r: body, t: ln.silence, d: d}, attachwire.SSEFrameLimit(h.cfg.ReadLimit))
	return ln, nil
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

// next returns the next frame of the SSE stream, skipping heartbeats.
func (ln *laneCarrier) next(ctx context.Context) (attachwire.Frame, error) {
	for {
		ev, err := ln.sse.Next()
		if err != nil {
			if ctx.Err() != nil {
				return attachwire.Frame{}, ctx.Err()
			}
			if errors.Is(err, attachwire.ErrSSETooLong) {
				return attachwire.Frame{}, fmt.Errorf("%w: %v", errSSE, err)
			}
			return attachwire.Frame{}, &laneError{op: "SSE stream", err: err}
		}
		if ev.IsComment || (ev.Event != "" && ev.Event != attachwire.SSEFrameEvent) {
			continue // a heartbeat, or an event type this version does not know
		}
		f, err := attachwire.DecodeLaneFrame(ev.Data)
		if err != nil {
			return attachwire.Frame{}, &malformedError{cause: err}
		}
		return f, nil
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

// batchLimits: up to maxLaneBatch frames and laneBatchBytes of payload a
// POST (a larger frame goes alone), so that a batch of snapshots stays
// under the relay's body limit as each frame does.
func (ln *laneCarrier) batchLimits() (int, int) { return maxLaneBatch, laneBatchBytes }

// send POSTs batch. On a 409 it rewinds: it returns a subscription from
// the relay's ack when the session's ring still holds it, and else
// resends the batch once with gapFrom, so the relay takes the gap.
func (ln *laneCarrier) send(ctx context.Context, batch []attachwire.Frame) (agent.InteractiveSubscription, error) {
	b, err := attachwire.NewHostBatch(attachwire.NewBatchID(), batch)
	if err != nil {
		return nil, fmt.Errorf("attachclient: %w", err)
	}
	ans, err := ln.post(ctx, b)
	var conflict *conflictError
	if !errors.As(err, &conflict) {
		if err == nil {
			ln.h.acked(ans.AckSeq)
		}
		return nil, err
	}
	sub, serr := ln.h.cfg.Session.Subscribe(conflict.ack)
	if serr == nil {
		ln.h.log.Info("attachclient: lane rewinds to the relay's ack", "ack", conflict.ack, "firstSeq", b.FirstSeq)
		return sub, nil
	}
	if !errors.Is(serr, agent.ErrRingMiss) {
		return nil, fmt.Errorf("attachclient: rewind to seq %d: %w", conflict.ack, serr)
	}
	ln.h.log.Warn("attachclient: cannot rewind to the relay's ack; sending gapFrom", "ack", conflict.ack, "firstSeq", b.FirstSeq)
	gap := b.FirstSeq
	b.GapFrom = &gap // the same batchId: a 409 does not consume it
	ans, err = ln.post(ctx, b)
	if err == nil {
		ln.h.acked(ans.AckSeq)
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

// write POSTs one control or post-Exit snapshot in a batch of its own,
// outside the seq numbering.
func (ln *laneCarrier) write(ctx context.Context, frame []byte) error {
	_, err := ln.post(ctx, attachwire.HostBatch{Frames: []string{}, OutOfSeq: []string{base64.StdEncoding.EncodeToString(frame)}})
	return err
}

// malformed needs no close: the reader's end ends the stream.
func (ln *laneCarrier) malformed(*malformedError) {}

// finish has nothing to say: the relay sees the stream close.
func (ln *laneCarrier) finish() {}

// end closes the stream, which ends the reader's blocked read.
func (ln *laneCarrier) end(error) {
	ln.silence.Stop()
	ln.body.Close()
}

func (ln *laneCarrier) lane() bool { return true }

// post sends b under its batchId (a fresh one if empty), kept across its
// retries: 401 →
// re-mint once; 429 → wait Retry-After; 5xx or no answer → up to
// laneRetries with a growing delay; 409 → *conflictError; 410 →
// errLaneGone; anything else ends the leg.
func (ln *laneCarrier) post(ctx context.Context, b attachwire.HostBatch) (attachwire.HostBatchAnswer, error) {
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
func (ln *laneCarrier) do(ctx context.Context, body []byte) (int, http.Header, attachwire.HostBatchAnswer, error) {
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
