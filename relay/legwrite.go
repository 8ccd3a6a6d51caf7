package relay

import (
	"context"
	"sync/atomic"
	"time"

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
// with one context and one timer for the leg's life, re-armed per write,
// where a context with its own timeout per write would allocate one and
// register it with the leg's context every time. Only the leg's writer
// uses it.
type writeDeadline struct {
	ctx      context.Context
	cancel   context.CancelFunc
	timer    *time.Timer
	timedOut atomic.Bool
}

// arm returns the context the next write runs under, its deadline
// WriteTimeout from now.
func (w *writeDeadline) arm(parent context.Context, d time.Duration) context.Context {
	if w.timer == nil {
		w.ctx, w.cancel = context.WithCancel(parent)
		w.timer = time.AfterFunc(d, func() {
			w.timedOut.Store(true)
			w.cancel() // the library closes the connection
		})
		return w.ctx
	}
	w.timer.Reset(d)
	return w.ctx
}

// disarm stops the timer after a write; it reports whether the deadline
// passed (then the connection is closed, or about to be).
func (w *writeDeadline) disarm() bool {
	w.timer.Stop()
	return w.timedOut.Load()
}

// stop releases the context and the timer once the writer is done.
func (w *writeDeadline) stop() {
	if w.timer != nil {
		w.timer.Stop()
		w.cancel()
	}
}
