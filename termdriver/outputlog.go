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
	// Output on) had already left the log, which keeps only its last
	// Options.LogBytes.
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

	mu   sync.Mutex
	buf  []byte // the last bytes of the text: offsets end-len(buf)..end
	end  int64
	lost bool
	ps   plainState
}

// startLog subscribes to host and feeds a new log until the session ends
// or the subscription is closed.
func startLog(host *ptyhost.Session, limit int) (*outputLog, *ptyhost.Subscription, error) {
	sub, err := host.SubscribeHeld(0, ptyhost.HoldOptions{Timeout: LogHoldTimeout})
	if err != nil {
		return nil, nil, err
	}
	l := &outputLog{limit: limit, done: make(chan struct{})}
	go l.run(host, sub)
	return l, sub, nil
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
			_, at, serr := host.Snapshot()
			if serr == nil {
				sub, serr = host.SubscribeHeld(at, ptyhost.HoldOptions{Timeout: LogHoldTimeout})
			}
			if serr == nil {
				continue
			}
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
	if over := len(l.buf) - l.limit; over > 0 {
		l.buf = append(l.buf[:0], l.buf[over:]...)
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
