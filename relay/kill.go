package relay

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ptyhost/ptyhost/attachwire"
)

// ErrBadKill reports a Kill whose reason is not one of the protocol's
// three, or whose signal is not a signal name.
var ErrBadKill = errors.New("relay: bad kill")

// ErrClosed reports an operation on a Relay that Close has torn down.
var ErrClosed = errors.New("relay: closed")

// maxSignalName bounds a kill's signal name ("SIGRTMIN+15" is 11 bytes).
const maxSignalName = 16

// killOrder is a kill waiting for a host leg's writer, which writes it
// before anything else it has pending and reports on done whether the
// write succeeded.
type killOrder struct {
	wire []byte
	done chan bool // buffered: the writer never waits for the caller
}

// Kill asks the host of session sessionID in organisation orgID to end the
// session's process (docs/relay.md, "Kill"): a kill control {reason, signal} goes to
// the room's bound host leg ahead of any Input queued for it. signal is a
// name such as "SIGTERM", or empty to leave the choice to the host; the
// host treats it as a request, and its Exit follows as usual.
//
// delivered is true only when a live host leg took the frame: the write to
// its socket completed (ADR D6). A room without a bound host leg, or a leg
// that ends before the frame is written, gives false with a nil error: the
// kill is not kept for a later host, so the caller decides whether to try
// again. A bad reason or signal gives ErrBadKill, a closed relay ErrClosed;
// ctx bounds only the wait for the writer to take the frame (once taken,
// Kill waits for the write itself, which WriteTimeout bounds, so the answer
// is never a guess). A repeated kill is harmless: the host acts once.
//
// The relay serves no endpoint that calls Kill: whoever embeds the relay
// calls it from its own authenticated control plane (see docs/relay.md).
func (rl *Relay) Kill(ctx context.Context, orgID, sessionID string, reason attachwire.KillReason, signal string) (delivered bool, err error) {
	switch reason {
	case attachwire.KillStopped, attachwire.KillQuota, attachwire.KillRevoked:
	default:
		return false, fmt.Errorf("%w: reason %q is not stopped, quota or revoked", ErrBadKill, reason)
	}
	if !validSignalName(signal) {
		return false, fmt.Errorf("%w: signal %q is not a signal name", ErrBadKill, attachwire.CapMessage(signal))
	}
	wire, err := controlWire(attachwire.Kill{Reason: reason, Signal: signal})
	if err != nil {
		return false, fmt.Errorf("relay: kill: %w", err)
	}
	rl.mu.Lock()
	closed := rl.closed
	rm := rl.rooms[roomKey{org: orgID, session: sessionID}]
	rl.mu.Unlock()
	if closed {
		return false, ErrClosed
	}
	if rm == nil {
		return false, nil
	}
	o := &killOrder{wire: wire, done: make(chan bool, 1)}
	h := rm.queueKill(o)
	if h == nil {
		return false, nil
	}
	select {
	case ok := <-o.done:
		logKill(h, reason, signal, ok)
		return ok, nil
	case <-ctx.Done():
		if h.withdrawKill(o) {
			return false, ctx.Err()
		}
		ok := <-o.done // the writer has it: its write ends within WriteTimeout
		logKill(h, reason, signal, ok)
		return ok, nil
	}
}

func logKill(h *leg, reason attachwire.KillReason, signal string, delivered bool) {
	h.log.Info("relay: kill", "reason", string(reason), "signal", signal, "delivered", delivered)
}

// validSignalName accepts "" or SIG followed by upper-case letters and
// digits, with an optional +N or -N (real-time signals).
func validSignalName(s string) bool {
	if s == "" {
		return true
	}
	name, ok := strings.CutPrefix(s, "SIG")
	if !ok || name == "" || len(s) > maxSignalName {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= '0' && c <= '9' && i > 0:
		case (c == '+' || c == '-') && i > 0 && i < len(name)-1:
		default:
			return false
		}
	}
	return true
}

// queueKill hands o to the room's bound host leg and returns that leg, or
// nil when no host leg is bound or it is ending.
func (rm *room) queueKill(o *killOrder) *leg {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	h := rm.host
	if h == nil || rm.closed {
		return nil
	}
	h.mu.Lock()
	if h.ending || h.killsDone {
		h.mu.Unlock()
		return nil
	}
	h.kills = append(h.kills, o)
	h.mu.Unlock()
	h.signal()
	return h
}

// withdrawKill takes o back if the writer has not taken it yet.
func (l *leg) withdrawKill(o *killOrder) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, k := range l.kills {
		if k == o {
			l.kills = append(l.kills[:i], l.kills[i+1:]...)
			return true
		}
	}
	return false
}

// takeKills returns the kills waiting for the host writer.
func (l *leg) takeKills() []*killOrder {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := l.kills
	l.kills = nil
	return k
}

// writeKills writes the waiting kills and reports each outcome; it reports
// false when a write failed (the leg is then ending).
func (l *leg) writeKills() bool {
	kills := l.takeKills()
	for i, o := range kills {
		if err := l.write(o.wire); err != nil {
			for _, rest := range kills[i:] {
				rest.done <- false
			}
			l.writeFailed(err)
			return false
		}
		o.done <- true
	}
	return true
}

// failKills is the host writer's last act for kills: none is taken from
// now on, and those still waiting were not delivered.
func (l *leg) failKills() {
	l.mu.Lock()
	kills := l.kills
	l.kills, l.killsDone = nil, true
	l.mu.Unlock()
	for _, o := range kills {
		o.done <- false
	}
}
