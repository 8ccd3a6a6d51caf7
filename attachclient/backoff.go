package attachclient

import (
	"math/rand/v2"
	"time"
)

// backoff is exponential backoff with equal jitter: the n-th wait is drawn
// from [d/2, d] where d doubles from min up to max. Jitter keeps hosts
// that lost the same relay from redialling in lockstep; the fixed lower
// half keeps a wait from collapsing to nothing. Not safe for concurrent
// use.
type backoff struct {
	min, max time.Duration
	cur      time.Duration // the next ceiling; 0: start over at min
	// jitter returns a value in [0, n]; nil: math/rand/v2.
	jitter func(n int64) int64
}

// next returns the next wait and doubles the ceiling.
func (b *backoff) next() time.Duration {
	if b.cur == 0 {
		b.cur = b.min
	}
	d := b.cur
	b.cur = min(2*b.cur, b.max)
	half := d / 2
	j := b.jitter
	if j == nil {
		j = func(n int64) int64 { return rand.Int64N(n + 1) }
	}
	return half + time.Duration(j(int64(d-half)))
}

// reset starts the progression over, after an attempt made progress.
func (b *backoff) reset() { b.cur = 0 }
