package attachclient

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
)

// inputQueue is how many Input frames may wait for the session.
const inputQueue = 64

// RunHost carries cfg.Session to the relay at cfg.AttachURL until the
// session is over. It returns nil once the session has exited and the
// FinalScreenWindow after Exit has passed; ctx.Err() when ctx ends first;
// ErrEpochStale when the relay refuses the host's epoch past the retry
// budget or the TokenSource grants a higher epoch; a *RelayStopError when
// the relay ends the leg for good; an error matching ErrInvalidConfig or
// ErrBadToken for a configuration that cannot work. Every other failure
// (refused dials, dropped legs, relay restarts) is retried. See the
// package documentation for the protocol behaviour.
func RunHost(ctx context.Context, cfg HostConfig) error {
	c, err := cfg.withDefaults()
	if err != nil {
		return err
	}
	if c.Key != nil {
		ss, err := newSealedSession(c.Session, c.Key, c.AttachURL)
		if err != nil {
			return err
		}
		c.Session = ss
	}
	h := &host{
		cfg:      c,
		log:      c.Logger,
		bo:       attachwire.Backoff{Min: c.BackoffMin, Max: c.BackoffMax},
		inputs:   make(chan []byte, inputQueue),
		postHTTP: c.HTTPClient,
	}
	if cfg.HTTPClient == nil {
		// The default client opens a connection per request, right for
		// WebSocket dials; the lane's POSTs go to a relay that has just
		// answered the SSE GET, so they keep theirs (a new TCP connection
		// per batch was a third of the lane's keystroke latency,
		// docs/performance.md "Keystroke echo by carrier").
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = 2
		h.postHTTP = &http.Client{Transport: tr}
		h.ownPosts = true
		defer tr.CloseIdleConnections()
	}
	return h.run(ctx)
}

// host is the state RunHost keeps across legs. Fields without a comment
// are used by RunHost's goroutine only.
type host struct {
	cfg HostConfig
	log *slog.Logger
	bo  attachwire.Backoff
	// attempts counts the failed attempts since one made progress: the
	// backoff's exponent.
	attempts int

	sessionID string // from the first token; later tokens must agree
	streamed  bool   // a leg was admitted: reconnect from the head
	exitAt    time.Time
	stale     []time.Time // epoch-stale refusals within the retry window

	// The degraded lane: onLane while the host rides it; wsFails and
	// laneFails count failed dials in a row on each carrier; upgraded
	// makes the next WebSocket leg resume from laneAck, the relay's ack.
	onLane             bool
	upgraded           bool
	wsFails, laneFails int
	recent             inputSet // lane inputs seen (at-least-once)
	ackMu              sync.Mutex
	laneAck            uint64 // guarded by ackMu

	postHTTP *http.Client    // the lane's POSTs: keeps connections alive unless the caller chose a client
	ownPosts bool            // postHTTP is RunHost's own, whose idle connections it may drop
	runCtx   context.Context // RunHost's, for the Kill hook
	inputs   chan []byte     // stamped Input for the writer goroutine
	killOnce sync.Once
	wg       sync.WaitGroup // the input writer and the kill call
}

// run is RunHost's loop: attempt a leg, classify how it ended, wait.
func (h *host) run(ctx context.Context) error {
	h.runCtx = ctx
	wctx, stopWriter := context.WithCancel(ctx)
	h.wg.Add(1)
	go h.writeInputs(wctx)
	defer h.wg.Wait()
	defer stopWriter()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		if h.windowOver() {
			return nil
		}
		admitted, err := h.attempt(ctx)
		if err == nil {
			return nil // the final-screen window has passed on a live leg
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !errors.Is(err, errUpgraded) && !errors.Is(err, errRekeyed) {
			h.linkChanged(false)
		}
		h.carrier(admitted, err)
		if !admitted.IsZero() {
			h.streamed = true
			h.attempts = 0
			if time.Since(admitted) >= h.cfg.EpochStaleStableWindow {
				h.stale = h.stale[:0]
			}
		}
		wait, err := h.afterFailure(err)
		if err != nil {
			return err
		}
		if err := h.sleep(ctx, wait); err != nil {
			return err
		}
	}
}

// afterFailure decides what a failed attempt means: the wait before the
// next one, or the error RunHost returns.
func (h *host) afterFailure(err error) (time.Duration, error) {
	var (
		stop    *RelayStopError
		stale   *epochStaleError
		miss    *ringMissError
		restart *restartError
		refused *dialError
	)
	if errors.Is(err, errUpgraded) || errors.Is(err, errRekeyed) {
		return 0, nil // the relay is reachable right now
	}
	var hint time.Duration
	switch {
	case errors.As(err, &stop), errors.Is(err, ErrBadToken), errors.Is(err, ErrEpochStale):
		h.log.Warn("attachclient: host leg ended for good", "err", err)
		return 0, err
	case errors.As(err, &stale):
		if !h.staleBudget() {
			h.log.Warn("attachclient: epoch-stale retries exhausted", "err", err)
			return 0, fmt.Errorf("%w: %d refusals within %v: %s", ErrEpochStale,
				len(h.stale), h.cfg.EpochStaleRetryWindow, stale.ctl.Message)
		}
	case errors.As(err, &miss):
		h.streamed = false // the relay lost the stream: replay the ring from 0
		h.ackMu.Lock()
		h.laneAck = 0
		h.ackMu.Unlock()
	case errors.As(err, &restart):
		hint = restart.hint
	case errors.As(err, &refused):
		hint = refused.retryAfter
	}
	wait := h.bo.Wait(h.attempts, hint)
	h.attempts++
	h.log.Info("attachclient: host leg failed; redialling", "err", err, "wait", wait)
	return wait, nil
}

// carrier picks the carrier of the next attempt from how this one ended:
// LaneFallbackAfter failed WebSocket dials in a row (planned restarts,
// and dials nothing answered, do not count) move the host to the lane; a successful upgrade probe, a
// 404 on the lane, or LaneFallbackAfter failed lane GETs in a row move
// it back, so a relay without the lane never strands it.
func (h *host) carrier(admitted time.Time, err error) {
	var (
		refused *dialError
		lerr    *laneError
	)
	switch {
	case !h.onLane && !admitted.IsZero():
		h.wsFails, h.upgraded = 0, false
	case !h.onLane && errors.As(err, &refused) && !refused.notAPathFault():
		if h.wsFails++; h.wsFails >= h.cfg.LaneFallbackAfter {
			h.log.Warn("attachclient: WebSocket dials keep failing; moving to the degraded lane", "fails", h.wsFails)
			h.onLane, h.wsFails, h.laneFails = true, 0, 0
			h.ackMu.Lock()
			h.laneAck = 0 // first lane leg: the relay's 409 says where it is
			h.ackMu.Unlock()
		}
	case !h.onLane:
	case errors.Is(err, errUpgraded):
		h.onLane, h.upgraded = false, true
	case errors.Is(err, errLaneUnavailable):
		h.log.Warn("attachclient: the relay does not serve the degraded lane; back to WebSocket")
		h.onLane = false
	case !admitted.IsZero():
		h.laneFails = 0
	case errors.As(err, &lerr) || errors.As(err, &refused):
		if h.laneFails++; h.laneFails >= h.cfg.LaneFallbackAfter {
			h.log.Warn("attachclient: the degraded lane keeps refusing; back to WebSocket", "fails", h.laneFails)
			h.onLane = false
		}
	}
}

// staleBudget records an epoch-stale refusal and reports whether another
// retry is allowed: at most EpochStaleMaxRetries within the window.
func (h *host) staleBudget() bool {
	now := time.Now()
	kept := h.stale[:0]
	for _, t := range h.stale {
		if now.Sub(t) < h.cfg.EpochStaleRetryWindow {
			kept = append(kept, t)
		}
	}
	h.stale = append(kept, now)
	return len(h.stale) <= h.cfg.EpochStaleMaxRetries
}

// attempt resolves a token and runs one leg. It returns when the leg was
// admitted (zero if never) and why it ended: nil only when the
// final-screen window passed on it.
func (h *host) attempt(ctx context.Context) (time.Time, error) {
	tok, err := h.cfg.TokenSource(ctx)
	if err != nil {
		return time.Time{}, fmt.Errorf("attachclient: token source: %w", err)
	}
	claims, err := readHostClaims(tok)
	if err != nil {
		return time.Time{}, err
	}
	if h.sessionID == "" {
		h.sessionID = claims.SessionID
	} else if claims.SessionID != h.sessionID {
		return time.Time{}, fmt.Errorf("%w: sessionId changed from %q to %q", ErrBadToken, h.sessionID, claims.SessionID)
	}
	screen, head, err := h.cfg.Session.Snapshot()
	if err != nil {
		return time.Time{}, fmt.Errorf("attachclient: session snapshot: %w", err)
	}
	switch epoch := *claims.Epoch; {
	case epoch > screen.Epoch:
		return time.Time{}, fmt.Errorf("%w: token epoch %d is above the session's %d (a successor owns the room)",
			ErrEpochStale, epoch, screen.Epoch)
	case epoch < screen.Epoch:
		return time.Time{}, &epochStaleError{ctl: attachwire.ErrorControl{
			Code:    attachwire.CodeEpochStale,
			Message: fmt.Sprintf("token epoch %d is below the session's %d", epoch, screen.Epoch),
		}}
	}
	if h.onLane {
		h.ackMu.Lock()
		after := h.laneAck
		h.ackMu.Unlock()
		if after == 0 && h.streamed {
			// From the head, as a WebSocket reconnect: a relay that lacks
			// frames before it answers 409 and the pump rewinds.
			after = head
		}
		return h.runLeg(ctx, true, tok, claims, after)
	}
	after := uint64(0)
	if h.upgraded {
		// Back from the lane: everything up to the ack is at the relay,
		// until a WebSocket leg is admitted (a first dial may still find
		// the lane leg bound and be refused epoch-stale).
		h.ackMu.Lock()
		after = h.laneAck
		h.ackMu.Unlock()
		return h.runLeg(ctx, false, tok, claims, after)
	}
	if h.streamed {
		after = head
		if _, exited := h.cfg.Session.Exit(); exited && head > 0 {
			// The Exit frame is resent on every leg after it: the relay
			// drops it as a duplicate if the lost leg delivered it, and
			// otherwise would never learn the session ended.
			after = head - 1
		}
	}
	return h.runLeg(ctx, false, tok, claims, after)
}

// exitDeadline notes the session's exit the first time it is seen and
// returns the end of the final-screen window (zero while it runs).
func (h *host) exitDeadline() time.Time {
	if h.exitAt.IsZero() {
		select {
		case <-h.cfg.Session.Done():
			h.exitAt = time.Now()
		default:
			return time.Time{}
		}
	}
	return h.exitAt.Add(h.cfg.FinalScreenWindow)
}

func (h *host) windowOver() bool {
	end := h.exitDeadline()
	return !end.IsZero() && !time.Now().Before(end)
}

// sleep waits d, ending early (with nil) when the final-screen window
// ends first, or with ctx's error.
func (h *host) sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	done := h.cfg.Session.Done()
	for {
		var windowEnd <-chan time.Time
		if end := h.exitDeadline(); !end.IsZero() {
			done = nil
			w := time.NewTimer(time.Until(end))
			defer w.Stop()
			windowEnd = w.C
		}
		select {
		case <-t.C:
			return nil
		case <-windowEnd:
			return nil
		case <-done:
			continue // start the window's timer
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// writeInputs writes stamped Input to the session, in order, across legs.
func (h *host) writeInputs(ctx context.Context) {
	defer h.wg.Done()
	for {
		select {
		case p := <-h.inputs:
			if _, err := h.cfg.Session.WriteInput(p); err != nil {
				h.log.Debug("attachclient: input not written", "err", err)
			}
		case <-ctx.Done():
			return
		}
	}
}

// kill runs the Kill hook the first time the relay asks, in a goroutine
// RunHost joins, so that a slow Stop never holds up the leg.
func (h *host) kill(ctx context.Context, k attachwire.Kill) {
	h.killOnce.Do(func() {
		h.log.Info("attachclient: relay asked to kill the session", "reason", string(k.Reason), "signal", k.Signal)
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			if err := h.cfg.Kill(ctx, k.Reason, k.Signal); err != nil {
				h.log.Warn("attachclient: kill", "err", err)
			}
		}()
	})
}

// dropIdlePosts closes the kept connections of RunHost's own POST client,
// so that the next POST dials the relay afresh: at each new lane leg and
// after a 410, when a relay restart or a switch of instances may have left
// a kept connection to a process that is going away.
func (h *host) dropIdlePosts() {
	if h.ownPosts {
		h.postHTTP.CloseIdleConnections()
	}
}
