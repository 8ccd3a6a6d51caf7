package attachwire

import (
	"math/rand/v2"
	"time"
)

// Backoff is the peers' wait between redials: exponential with equal
// jitter. The wait before attempt n (0-based) is drawn from [d/2, d],
// where d is Min doubled n times, never past Max. Jitter keeps peers that
// lost the same relay from redialling in lockstep; the fixed lower half
// keeps a wait from collapsing to nothing. A Backoff is a value: the
// caller counts its attempts.
type Backoff struct {
	Min, Max time.Duration
	// Jitter returns a value in [0, n]; nil: math/rand/v2.
	Jitter func(n int64) int64
}

// Wait returns the wait before attempt n, or hint (the relay's
// Retry-After or redial-after) when that is longer, never more than Max.
func (b Backoff) Wait(n int, hint time.Duration) time.Duration {
	d := max(b.Min, 0)
	for i := 0; i < n && d > 0 && d < b.Max; i++ {
		if d > b.Max/2 { // doubling would pass Max, or overflow
			d = b.Max
		} else {
			d *= 2
		}
	}
	d = min(d, b.Max)
	half := d / 2
	j := b.Jitter
	if j == nil {
		j = func(n int64) int64 { return rand.Int64N(n + 1) }
	}
	return min(max(half+time.Duration(j(int64(d-half))), hint), b.Max)
}
