package issuer

import (
	"context"
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

// ChallengeStore keeps the challenges given and not yet answered, for a
// relay whose nodes share them (a cluster: a login may reach another node
// than its challenge). Take must succeed once per challenge, whoever
// calls it first; Put may refuse (an error) when the store is full or
// away.
type ChallengeStore interface {
	Put(ctx context.Context, challenge string, expires time.Time) error
	Take(ctx context.Context, challenge string) (expires time.Time, ok bool, err error)
}

// newChallenge returns a fresh random challenge.
func newChallenge() string {
	var b [challengeBytes]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

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
	ch := newChallenge()
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
