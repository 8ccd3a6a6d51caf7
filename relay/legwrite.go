package relay

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/prometheus/client_golang/prometheus"
)

// legCounters are a leg's children of the relay's per-role counters,
// looked up once when the leg is made instead of at every message.
type legCounters struct {
	framesIn, bytesIn, framesOut, bytesOut prometheus.Counter
}

func newLegCounters(m *metrics, role string) legCounters {
	return legCounters{
		framesIn: m.framesIn.WithLabelValues(role), bytesIn: m.bytesIn.WithLabelValues(role),
		framesOut: m.framesOut.WithLabelValues(role), bytesOut: m.bytesOut.WithLabelValues(role),
	}
}

// writeDeadline bounds each of a leg's writes by the relay's WriteTimeout
// with one timer for the leg's life, re-armed per write, which closes the
// connection when it fires; the writes themselves run under a context
// that is never done. A context with a deadline per write would cost an
// allocation and a registration with the leg's context each time, and
// the WebSocket library registers a callback on any context that can be
// done, at every write. The leg's context ending closes the connection
// as well, as a write under it would have. Only the leg's writer uses it.
type writeDeadline struct {
	timer    *time.Timer
	timedOut atomic.Bool
	unhook   func() bool // stops closing the connection with the leg's context
}

// arm starts the deadline of the next write on c, d from now; the first
// call ties c to ctx.
func (w *writeDeadline) arm(ctx context.Context, c *websocket.Conn, d time.Duration) {
	if w.timer == nil {
		w.timer = time.AfterFunc(d, func() {
			w.timedOut.Store(true)
			c.CloseNow()
		})
		w.unhook = context.AfterFunc(ctx, func() { c.CloseNow() })
		return
	}
	w.timer.Reset(d)
}

// disarm stops the timer after a write; it reports whether the deadline
// passed (then the connection is closed).
func (w *writeDeadline) disarm() bool {
	w.timer.Stop()
	return w.timedOut.Load()
}

// stop releases the timer and the tie to the leg's context once the
// writer is done.
func (w *writeDeadline) stop() {
	if w.timer != nil {
		w.timer.Stop()
		w.unhook()
	}
}
