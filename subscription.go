package ptyhost

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/ptyhost/ptyhost/attachwire"
)

// Subscription is a cursor into a session's ring: it yields every frame
// after the seq it started from, in order and without gaps, first the
// buffered ones and then live ones as they are published.
//
// Next must not be called from two goroutines at once; Close may be called
// concurrently with Next and more than once. A Subscription holds no
// frames itself: a stalled one costs the host nothing, and loses its place
// (attachwire.ErrRingMiss) once the ring has evicted the frames it still
// has to read.
type Subscription struct {
	ring      *ring
	next      uint64 // seq of the next frame to return; written under ring.mu
	hold      *hold  // nil unless SubscribeHeld
	closed    chan struct{}
	closeOnce sync.Once
}

// Subscribe returns a subscription that yields every frame with seq > after.
// after = 0 means everything still buffered (the first frame's seq is then
// the ring's tail, which is above 1 once frames have been evicted). It
// returns an error matching attachwire.ErrRingMiss when after is older than
// the ring's tail (frame after+1 was evicted) or ahead of its head.
// Subscribing after Exit works as long as the frames are buffered.
func (s *Session) Subscribe(after uint64) (*Subscription, error) {
	s.ring.mu.Lock()
	defer s.ring.mu.Unlock()
	return s.subscribeRingLocked(after)
}

func (s *Session) subscribeRingLocked(after uint64) (*Subscription, error) {
	next, ok := s.ring.startLocked(after)
	if !ok {
		return nil, fmt.Errorf("ptyhost: subscribe after seq %d (buffered %d..%d): %w",
			after, s.ring.tail, s.ring.head, attachwire.ErrRingMiss)
	}
	return &Subscription{ring: s.ring, next: next, closed: make(chan struct{})}, nil
}

// Next returns the next frame, waiting for it to be published. The frame is
// shared with other subscribers: do not modify it. After the Exit frame
// Next returns io.EOF. It returns an error matching attachwire.ErrRingMiss
// once the frame it needs has been evicted (and keeps returning it),
// ErrSubscriptionClosed after Close, or ctx's error.
func (sub *Subscription) Next(ctx context.Context) (attachwire.Frame, error) {
	r := sub.ring
	for {
		select {
		case <-sub.closed:
			return attachwire.Frame{}, ErrSubscriptionClosed
		default:
		}
		r.mu.Lock()
		f, st := r.getLocked(sub.next)
		var wake <-chan struct{}
		switch {
		case st == cursorWait:
			wake = r.waitChanLocked()
		case st == cursorReady:
			sub.next++
			if sub.hold != nil {
				r.progressLocked()
			}
		}
		r.mu.Unlock()
		switch st {
		case cursorReady:
			return f, nil
		case cursorMissed:
			return attachwire.Frame{}, fmt.Errorf("ptyhost: subscription fell off the ring at seq %d: %w",
				sub.next, attachwire.ErrRingMiss)
		case cursorAtEnd:
			return attachwire.Frame{}, io.EOF
		}
		select {
		case <-wake:
		case <-sub.closed:
			return attachwire.Frame{}, ErrSubscriptionClosed
		case <-ctx.Done():
			return attachwire.Frame{}, ctx.Err()
		}
	}
}

// NextSeq returns the seq of the frame the next call to Next returns. Like
// Next, it is for the subscription's reader.
func (sub *Subscription) NextSeq() uint64 { return sub.next }

// Close ends the subscription: a blocked Next returns ErrSubscriptionClosed,
// and a held one stops holding the session. It is idempotent and always
// returns nil.
func (sub *Subscription) Close() error {
	sub.closeOnce.Do(func() {
		close(sub.closed)
		if sub.hold != nil {
			sub.ring.mu.Lock()
			sub.ring.releaseLocked(sub)
			sub.ring.mu.Unlock()
		}
	})
	return nil
}
