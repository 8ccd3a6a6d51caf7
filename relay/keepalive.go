package relay

import (
	"context"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// keepalives is the relay's one keepalive loop over every WebSocket leg:
// it pings each every PingInterval and ends a leg silent for
// SilenceTimeout. One loop for all rather than a goroutine a leg: an idle
// viewer's memory is mostly its goroutines' stacks, and thousands of
// tickers firing apart cost more wake-ups than one.
type keepalives struct {
	mu      sync.Mutex
	legs    map[*leg]time.Time // each leg's last ping (real clock: pings are periodic jobs)
	started bool
	loop    sync.WaitGroup // the loop, joined by Close
}

// keep registers l with the loop, starting it with the first leg. It
// reports false once the relay is closing (the leg is then not kept).
func (rl *Relay) keep(l *leg) bool {
	k := &rl.keepers
	k.mu.Lock()
	defer k.mu.Unlock()
	if rl.ctx.Err() != nil {
		return false
	}
	if k.legs == nil {
		k.legs = make(map[*leg]time.Time)
	}
	k.legs[l] = time.Now()
	if !k.started {
		k.started = true
		k.loop.Go(rl.keepaliveLoop)
	}
	return true
}

// unkeep takes l out of the loop and waits for its pings still waiting
// for their pongs (the leg's connection is closed by then, which ends
// them).
func (rl *Relay) unkeep(l *leg) {
	k := &rl.keepers
	k.mu.Lock()
	delete(k.legs, l)
	k.mu.Unlock()
	l.pings.Wait()
}

// keepaliveLoop looks at every leg four times a ping interval, so that a
// silent leg ends within a quarter interval of the timeout.
func (rl *Relay) keepaliveLoop() {
	cfg := &rl.cfg
	t := time.NewTicker(min(cfg.PingInterval, cfg.SilenceTimeout) / 4)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-rl.ctx.Done():
			return
		}
		rl.keepaliveSweep()
	}
}

// keepaliveSweep pings the legs whose interval has passed and ends the
// silent ones. A ping waits for its pong on a goroutine of its own (on a
// dead path it never comes), counted in the leg's pings while the leg is
// still registered, so that unkeep's wait covers it.
func (rl *Relay) keepaliveSweep() {
	cfg := &rl.cfg
	k := &rl.keepers
	now := time.Now()
	var silent, ping []*leg
	k.mu.Lock()
	for l, pinged := range k.legs {
		if l.holding.Load() {
			l.heard()
			continue
		}
		if cfg.Now().Sub(time.Unix(0, l.lastHeard.Load())) > cfg.SilenceTimeout {
			delete(k.legs, l)
			silent = append(silent, l)
			continue
		}
		if now.Sub(pinged) >= cfg.PingInterval {
			k.legs[l] = now
			l.pings.Add(1)
			ping = append(ping, l)
		}
	}
	k.mu.Unlock()
	for _, l := range silent {
		l.log.Info("relay: leg silent, closed")
		l.end(nil, websocket.StatusGoingAway, "silent too long")
		l.cancel()
	}
	for _, l := range ping {
		go func() {
			defer l.pings.Done()
			ctx, cancel := context.WithTimeout(l.ctx, cfg.SilenceTimeout)
			defer cancel()
			if l.conn.Ping(ctx) == nil {
				l.heard()
			}
		}()
	}
}
