package termdriver

import (
	"context"
	"errors"
	"fmt"

	"github.com/ptyhost/ptyhost/approval"
	"github.com/ptyhost/ptyhost/attachwire"
)

// ErrNeedsApproval is Type's refusal in a session that requires approval:
// its input goes through Propose.
var ErrNeedsApproval = errors.New("termdriver: this session's input needs approval: propose it")

// RequireApproval puts the session in approval mode: from now on Type
// refuses and Propose holds input until a person decides (package
// approval). cfg.Write is set to the session's own writer and cfg.Record
// to a marker in its stream, so every outcome is in the session's
// recording; the caller connects the gate to a room (SetAnnounce, and
// Decide from the host's Room hook). It returns the gate; a second call
// returns the first gate unchanged.
func (s *Session) RequireApproval(cfg approval.Config) *approval.Gate {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gate != nil {
		return s.gate
	}
	cfg.Write = func(ctx context.Context, text string) error { return s.write(ctx, []byte(text)) }
	cfg.Record = func(label string) { s.host.EmitMarker(label) } //nolint:errcheck // after exit nothing is written either
	s.gate = approval.New(cfg)
	go func() {
		<-s.host.Done()
		s.gate.Close()
	}()
	return s.gate
}

// Gate returns the session's approval gate, nil when it does not require
// approval.
func (s *Session) Gate() *approval.Gate {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gate
}

// Propose encodes text and keys as Type does and, in approval mode, holds
// them until a person decides; the outcome says what was written, if
// anything. Without approval mode it types at once and reports the input
// approved by no one.
func (s *Session) Propose(ctx context.Context, from approval.Person, text string, keys ...Key) (approval.Outcome, error) {
	p := s.encode(text, keys)
	g := s.Gate()
	if g == nil {
		if err := s.write(ctx, p); err != nil {
			return approval.Outcome{}, err
		}
		return approval.Outcome{State: attachwire.ProposalApproved, Text: string(p)}, nil
	}
	o, err := g.Propose(ctx, approval.Request{Text: string(p), From: from})
	if err != nil && !o.Written() {
		return o, fmt.Errorf("termdriver: propose to %s: %w", s.id, err)
	}
	return o, err
}
