package termdriver

import (
	"context"
	"errors"
	"sync"

	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/attachwire"
)

// DefaultLogBytes is how much of a session's output text its log keeps
// when Options.LogBytes is 0.
const DefaultLogBytes = 1 << 20

// LogHoldTimeout bounds how long a session's output log may hold its
// program back in one stall (see ptyhost.Session.SubscribeHeld).
const LogHoldTimeout = 5 * ptyhost.StopGrace

// lostMark is written into a log where output did not reach it.
const lostMark = "\n[output lost here]\n"

// Output is a stretch of a session's output log: what the program
// printed, as text without control sequences, addressed by byte offsets
// that count from the program's first output.
type Output struct {
	// From and To are the offsets of Text; To is where the next read
	// starts.
	From, To int64
	Text     string
	// Dropped is how many bytes asked for (from the offset given to
	// Output on) had already left the log, which keeps at least its last
	// Options.LogBytes (and at most twice that).
	Dropped int64
	// More is set when the log holds more after To.
	More bool
	// Lost is set once some output never reached the log: the program
	// outran it past its hold's timeout (the text says where).
	Lost bool
	// Done is set once the log has everything the program wrote.
	Done bool
}

// outputLog keeps the last limit bytes of a session's output as text,
// fed by a held subscription so that nothing is skipped while the reader
// keeps up.
type outputLog struct {
	limit int
	done  chan struct{} // closed when the feeding goroutine returns

	mu      sync.Mutex
	buf     []byte // the last bytes of the text: offsets end-len(buf)..end
	end     int64
	lost    bool
	ps      plainState
	sub     *ptyhost.Subscription // the one feeding the log now
	stopped bool
}

// startLog subscribes to host and feeds a new log until the session ends
// or the subscription is closed.
func startLog(host *ptyhost.Session, limit int) (*outputLog, error) {
	sub, err := host.SubscribeHeld(0, ptyhost.HoldOptions{Timeout: LogHoldTimeout})
	if err != nil {
		return nil, err
	}
	l := &outputLog{limit: limit, done: make(chan struct{}), sub: sub}
	go l.run(host, sub)
	return l, nil
}

// stop ends the feeding goroutine and waits for it.
func (l *outputLog) stop() {
	l.mu.Lock()
	l.stopped = true
	l.sub.Close()
	l.mu.Unlock()
	<-l.done
}

// resubscribe replaces the log's subscription after a ring miss, unless
// the log is being stopped.
func (l *outputLog) resubscribe(host *ptyhost.Session) (*ptyhost.Subscription, bool) {
	_, at, err := host.Snapshot()
	if err != nil {
		return nil, false
	}
	sub, err := host.SubscribeHeld(at, ptyhost.HoldOptions{Timeout: LogHoldTimeout})
	if err != nil {
		return nil, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		sub.Close()
		return nil, false
	}
	l.sub = sub
	return sub, true
}

// run owns the subscription: it ends at the session's Exit frame or when
// Stop closes the subscription.
func (l *outputLog) run(host *ptyhost.Session, sub *ptyhost.Subscription) {
	defer close(l.done)
	for {
		f, err := sub.Next(context.Background())
		switch {
		case err == nil && f.Type == attachwire.TypeOutput:
			l.append(f.Payload)
			continue
		case err == nil:
			continue
		case errors.Is(err, attachwire.ErrRingMiss):
			// Released and overtaken: note the gap and go on from the
			// current frame, held again.
			sub.Close()
			l.markLost()
			var ok bool
			if sub, ok = l.resubscribe(host); ok {
				continue
			}
			return
		}
		sub.Close()
		return
	}
}

func (l *outputLog) append(p []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(l.buf)
	l.buf = l.ps.appendPlain(l.buf, p)
	l.end += int64(len(l.buf) - n)
	// Trimmed to limit once it holds twice that: each byte is moved at
	// most once, however small the chunks.
	if len(l.buf) > 2*l.limit {
		l.buf = append(l.buf[:0], l.buf[len(l.buf)-l.limit:]...)
	}
}

func (l *outputLog) markLost() {
	l.mu.Lock()
	l.lost, l.ps = true, plainState{}
	l.mu.Unlock()
	l.append([]byte(lostMark))
}

// read returns up to max bytes of the log from offset from on.
func (l *outputLog) read(from int64, max int) Output {
	l.mu.Lock()
	defer l.mu.Unlock()
	start := l.end - int64(len(l.buf))
	out := Output{Lost: l.lost}
	switch {
	case from < start:
		out.Dropped, from = start-from, start
	case from > l.end:
		from = l.end
	}
	to := min(l.end, from+int64(max))
	out.From, out.To = from, to
	out.Text = string(l.buf[from-start : to-start])
	out.More = to < l.end
	select {
	case <-l.done:
		out.Done = true
	default:
	}
	return out
}
