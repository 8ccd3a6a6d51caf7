package issuer

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// addrLimiter is a token bucket per client address.
type addrLimiter struct {
	perSecond float64
	burst     int
	now       func() time.Time

	mu      sync.Mutex
	buckets map[string]*rate.Limiter
}

func newAddrLimiter(perSecond float64, burst int, now func() time.Time) *addrLimiter {
	return &addrLimiter{perSecond: perSecond, burst: burst, now: now, buckets: make(map[string]*rate.Limiter)}
}

// allow takes a token of addr's bucket.
func (l *addrLimiter) allow(addr string) bool {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buckets) > 16384 {
		// Forget the full buckets: they are the addresses that are quiet.
		for k, b := range l.buckets {
			if b.TokensAt(now) >= float64(l.burst) {
				delete(l.buckets, k)
			}
		}
	}
	b := l.buckets[addr]
	if b == nil {
		b = rate.NewLimiter(rate.Limit(l.perSecond), l.burst)
		l.buckets[addr] = b
	}
	return b.AllowN(now, 1)
}
