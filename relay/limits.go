package relay

import (
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"golang.org/x/time/rate"
)

// limiterIdle is how long a client address's limiter is kept after its last
// dial; past it the address starts again with a full burst.
const limiterIdle = time.Minute

// dialLimiter rate-limits dials per client address. Its table is swept of
// idle addresses as it is used, so it needs no goroutine and stays bounded
// by the addresses seen within limiterIdle. Safe for concurrent use.
type dialLimiter struct {
	rate  rate.Limit
	burst int
	now   func() time.Time

	mu        sync.Mutex
	addrs     map[string]*addrLimiter
	lastSweep time.Time
}

type addrLimiter struct {
	lim  *rate.Limiter
	last time.Time
}

func newDialLimiter(perSecond float64, now func() time.Time) *dialLimiter {
	burst := max(int(perSecond), 1)
	return &dialLimiter{rate: rate.Limit(perSecond), burst: burst, now: now, addrs: make(map[string]*addrLimiter)}
}

// allow reports whether a dial from addr may proceed now.
func (d *dialLimiter) allow(addr string) bool {
	now := d.now()
	d.mu.Lock()
	defer d.mu.Unlock()
	if now.Sub(d.lastSweep) > limiterIdle {
		for k, a := range d.addrs {
			if now.Sub(a.last) > limiterIdle {
				delete(d.addrs, k)
			}
		}
		d.lastSweep = now
	}
	a := d.addrs[addr]
	if a == nil {
		a = &addrLimiter{lim: rate.NewLimiter(d.rate, d.burst)}
		d.addrs[addr] = a
	}
	a.last = now
	return a.lim.AllowN(now, 1)
}

// clientAddr returns the address dials are counted against: the peer's IP.
// Forwarding headers are not trusted; a relay behind a proxy sees the
// proxy's address.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// checkSize refuses a host's terminal size beyond MaxCols or MaxRows.
func (c *Config) checkSize(cols, rows uint32) error {
	if cols > c.MaxCols || rows > c.MaxRows {
		return &attachwire.FramingError{Reason: fmt.Sprintf("resize %dx%d is beyond the relay's bound of %dx%d", cols, rows, c.MaxCols, c.MaxRows)}
	}
	return nil
}
