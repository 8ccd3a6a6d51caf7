package attachclient

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/ptyhost/ptyhost/attachwire"
)

// ErrNoLeg is returned by a HostControls method while RunHost has no leg
// bound to the relay (before the first, between two, after the last).
var ErrNoLeg = errors.New("attachclient: no leg to the relay")

// HostControls sends the host's own controls (docs/protocol.md §6, "Host
// controls") on whichever leg RunHost has up: set it as
// HostConfig.Controls. Its methods are safe for concurrent use, from any
// goroutine; each writes one control and returns once it is written, or
// ErrNoLeg. A relay that predates the controls ignores them.
type HostControls struct {
	mu  sync.Mutex
	leg *leg
}

// Kick asks the relay to close the participant whose connection is
// connID (a presence member's ConnID) and to refuse its token until it
// expires. reason goes to the relay's log only.
func (hc *HostControls) Kick(ctx context.Context, connID, reason string) error {
	return hc.Send(ctx, attachwire.Kick{ConnID: connID, Reason: reason})
}

// TakePen takes the pen back from whoever holds it.
func (hc *HostControls) TakePen(ctx context.Context) error {
	return hc.Send(ctx, attachwire.PenTake{})
}

// SetReadOnly turns the session's read-only mode on or off.
func (hc *HostControls) SetReadOnly(ctx context.Context, on bool) error {
	return hc.Send(ctx, attachwire.ReadOnly{On: on})
}

// Send writes c, which must be a host control (attachwire.IsHostControl),
// on the current leg.
func (hc *HostControls) Send(ctx context.Context, c attachwire.Control) error {
	if !attachwire.IsHostControl(c) {
		return fmt.Errorf("%w: %T is not a host control", ErrInvalidConfig, c)
	}
	hc.mu.Lock()
	l := hc.leg
	hc.mu.Unlock()
	if l == nil {
		return ErrNoLeg
	}
	return l.writeControl(ctx, c)
}

// bind makes l the leg the controls go to; unbind forgets it if it still
// is. A nil HostControls does nothing.
func (hc *HostControls) bind(l *leg) {
	if hc == nil {
		return
	}
	hc.mu.Lock()
	hc.leg = l
	hc.mu.Unlock()
}

func (hc *HostControls) unbind(l *leg) {
	if hc == nil {
		return
	}
	hc.mu.Lock()
	if hc.leg == l {
		hc.leg = nil
	}
	hc.mu.Unlock()
}

// roomControl hands a control about the room's people to the Room hook.
func (h *host) roomControl(c attachwire.Control) {
	if h.cfg.Room != nil {
		h.cfg.Room(c)
	}
}

// linkChanged tells the Link hook whether a leg is up.
func (h *host) linkChanged(up bool) {
	if h.cfg.Link != nil {
		h.cfg.Link(up)
	}
}
