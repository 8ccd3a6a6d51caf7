package issuer

import (
	"crypto/rand"
	"encoding/base64"
	"sync"
	"time"
)

// ChallengeTTL is how long a challenge may be answered.
const ChallengeTTL = 60 * time.Second

// maxChallenges bounds the challenges outstanding at once; past it the
// issuer refuses new ones (rate-limited) until some expire.
const maxChallenges = 65536

// challenges holds the challenges given and not yet answered. Each is
// taken (removed) by the first login that names it, whatever that login's
// outcome: a challenge is good for one attempt.
type challenges struct {
	mu  sync.Mutex
	exp map[string]time.Time
}

// issue returns a fresh challenge good until now+ChallengeTTL, or "" when
// too many are outstanding.
func (c *challenges) issue(now time.Time) (string, time.Time) {
	var b [challengeBytes]byte
	rand.Read(b[:])
	ch := base64.RawURLEncoding.EncodeToString(b[:])
	exp := now.Add(ChallengeTTL)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.exp == nil {
		c.exp = make(map[string]time.Time)
	}
	if len(c.exp) >= maxChallenges {
		for k, e := range c.exp {
			if now.After(e) {
				delete(c.exp, k)
			}
		}
		if len(c.exp) >= maxChallenges {
			return "", time.Time{}
		}
	}
	c.exp[ch] = exp
	return ch, exp
}

// take removes ch and reports whether it was outstanding and unexpired.
func (c *challenges) take(ch string, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	exp, ok := c.exp[ch]
	delete(c.exp, ch)
	return ok && !now.After(exp)
}
