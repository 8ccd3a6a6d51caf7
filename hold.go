package ptyhost

import (
	"fmt"
	"time"
)

// DefaultHoldTimeout is how long a held subscription may keep the session
// from reading the PTY in one stall when HoldOptions.Timeout is 0.
const DefaultHoldTimeout = 10 * time.Second

// MaxHoldTimeout bounds HoldOptions.Timeout.
const MaxHoldTimeout = 10 * time.Minute

// HoldOptions configures a held subscription (SubscribeHeld).
type HoldOptions struct {
	// Lag is how far, in ring bytes (payloads plus the per-frame overhead
	// RingBytes counts), the subscription may fall behind the newest frame
	// before the session stops reading the PTY; it reads again once the
	// subscription is back within half of it. 0 means a quarter of the
	// ring; at most half of the ring, so that what is published between
	// two reads fits in the rest.
	Lag int

	// Timeout bounds one stall: once the session has waited this long for
	// the subscription, the subscription is released (HoldReleased
	// reports it) and follows the ring's rules like any other from then on.
	// 0 means DefaultHoldTimeout; at most MaxHoldTimeout.
	Timeout time.Duration
}

// hold is the state of a held subscription. The ring's mutex guards it,
// except released, which is also read without it.
type hold struct {
	lag      uint64
	timeout  time.Duration
	released bool // under ring.mu; the subscription no longer holds
}

// SubscribeHeld is Subscribe for a consumer that must not miss output (an
// agent's log, a recorder): when the subscription lags by more than
// opts.Lag, the session stops reading the PTY until it catches up, and the
// program blocks on a full terminal as it would under a slow one.
//
// It is the one exception to "the host never waits for a consumer"
// (docs/invariants.md), and it is bounded: a stall longer than
// opts.Timeout releases the subscription (logged, and reported by
// HoldReleased), and Stop releases every held subscription first, so that
// stopping stays bounded. After the child exits, the drain's DrainLimit
// still applies. Only the PTY read waits: snapshots, input, resizes and
// other subscribers go on. What other callers publish between two reads
// (markers, in-stream snapshots) is not held back, so a subscription can
// still fall off a ring too small for it.
func (s *Session) SubscribeHeld(after uint64, opts HoldOptions) (*Subscription, error) {
	limit := s.ring.limit
	switch {
	case opts.Lag == 0:
		opts.Lag = limit / 4
	case opts.Lag < 0 || opts.Lag > limit/2:
		return nil, fmt.Errorf("ptyhost: hold lag %d out of 1..%d (half the ring)", opts.Lag, limit/2)
	}
	switch {
	case opts.Timeout == 0:
		opts.Timeout = DefaultHoldTimeout
	case opts.Timeout < 0 || opts.Timeout > MaxHoldTimeout:
		return nil, fmt.Errorf("ptyhost: hold timeout %v out of 0..%v", opts.Timeout, MaxHoldTimeout)
	}
	s.ring.mu.Lock()
	defer s.ring.mu.Unlock()
	sub, err := s.subscribeRingLocked(after)
	if err != nil {
		return nil, err
	}
	sub.hold = &hold{lag: uint64(opts.Lag), timeout: opts.Timeout}
	select {
	case <-s.unhold:
		sub.hold.released = true // stopping: it never holds
	default:
		s.ring.holds = append(s.ring.holds, sub)
		s.ring.holding.Store(int32(len(s.ring.holds)))
	}
	return sub, nil
}

// HoldReleased reports whether a held subscription stopped holding the
// session back: its stall outlasted HoldOptions.Timeout, or the session was
// stopped. It is false for a subscription that never held.
func (sub *Subscription) HoldReleased() bool {
	if sub.hold == nil {
		return false
	}
	sub.ring.mu.Lock()
	defer sub.ring.mu.Unlock()
	return sub.hold.released
}

// awaitHolders returns once no held subscription lags beyond its bound,
// waiting (outside the session lock) while one does: the read loop calls
// it before each read. A stall longer than the subscription's timeout
// releases it; Stop releases all. It reports whether it waited.
func (s *Session) awaitHolders() bool {
	r := s.ring
	if r.holding.Load() == 0 {
		return false
	}
	var stalled time.Time // when the wait began, zero while not waiting
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		r.mu.Lock()
		sub := r.laggingLocked(!stalled.IsZero())
		if sub == nil {
			r.mu.Unlock()
			return !stalled.IsZero()
		}
		now := time.Now()
		if stalled.IsZero() {
			stalled = now
		}
		left := sub.hold.timeout - now.Sub(stalled)
		if by := s.drainBy.Load(); by != 0 {
			// The child has exited: the drain's limit bounds the wait too.
			left = min(left, time.Unix(0, by).Sub(now))
		}
		if left <= 0 {
			r.releaseLocked(sub)
			r.mu.Unlock()
			s.log.Warn("ptyhost: a held subscription lagged past its timeout; it follows the ring's rules from now on",
				"timeout", sub.hold.timeout, "seq", sub.next)
			continue
		}
		wake := r.progressChanLocked()
		r.mu.Unlock()
		if timer == nil {
			timer = time.NewTimer(left)
		} else {
			timer.Reset(left)
		}
		select {
		case <-wake:
		case <-timer.C:
		case <-s.unhold: // releaseHolds has released them all
		}
	}
}

// releaseHolds makes every held subscription, present and future, stop
// holding the session: Stop calls it first so that it stays bounded.
func (s *Session) releaseHolds() {
	s.unholdOnce.Do(func() {
		s.ring.mu.Lock()
		for len(s.ring.holds) > 0 {
			s.ring.releaseLocked(s.ring.holds[0])
		}
		// Closed under the ring's lock, which SubscribeHeld checks it
		// under: no held subscription is added after the release.
		close(s.unhold)
		s.ring.mu.Unlock()
	})
}
