package ptyhost

import (
	"context"

	"github.com/ptyhost/ptyhost/agent"
	"github.com/ptyhost/ptyhost/attachwire"
)

// The adapter is the contract's implementation; the compile-time checks
// keep it one.
var (
	_ agent.InteractiveSession      = agentSession{}
	_ agent.InteractiveSubscription = (*Subscription)(nil)
)

// Agent returns s as the agent package's InteractiveSession, for carriers
// that depend on that contract alone. Every method is the Session's own;
// Subscribe's result is a *Subscription behind the interface. It is as
// safe for concurrent use as s.
func (s *Session) Agent() agent.InteractiveSession { return agentSession{s} }

// agentSession adapts a Session to agent.InteractiveSession: Session's own
// Subscribe returns the concrete *Subscription, which the interface cannot
// name. It forwards exactly the contract's methods.
type agentSession struct{ s *Session }

// Subscribe is Session.Subscribe with the interface result; a failed
// subscribe returns a nil interface, not a nil *Subscription in one.
func (a agentSession) Subscribe(after uint64) (agent.InteractiveSubscription, error) {
	sub, err := a.s.Subscribe(after)
	if err != nil {
		return nil, err
	}
	return sub, nil
}

func (a agentSession) WriteInput(p []byte) (int, error) { return a.s.WriteInput(p) }

func (a agentSession) Resize(cols, rows, pxWidth, pxHeight int) (uint64, error) {
	return a.s.Resize(cols, rows, pxWidth, pxHeight)
}

func (a agentSession) EmitMarker(label string) (uint64, error)      { return a.s.EmitMarker(label) }
func (a agentSession) Snapshot() (attachwire.Screen, uint64, error) { return a.s.Snapshot() }
func (a agentSession) EmitSnapshot() (attachwire.Frame, error)      { return a.s.EmitSnapshot() }

func (a agentSession) AppendSnapshot(dst []byte) ([]byte, uint64, error) {
	return a.s.AppendSnapshot(dst)
}
func (a agentSession) Stop(ctx context.Context) error { return a.s.Stop(ctx) }
func (a agentSession) Done() <-chan struct{}          { return a.s.Done() }
func (a agentSession) Exit() (attachwire.Exit, bool)  { return a.s.Exit() }
