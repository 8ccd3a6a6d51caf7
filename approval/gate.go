package approval

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
)

// Defaults and bounds of Config.
const (
	// DefaultTimeout is how long a proposal waits for a decision.
	DefaultTimeout = 2 * time.Minute
	// MaxTimeout bounds Config.Timeout and a proposal's own.
	MaxTimeout = time.Hour
	// MaxPending is the most proposals one gate holds at once.
	MaxPending = 16
)

// Errors of Propose.
var (
	// ErrNoApprover: the gate has nobody to ask (no Announce: the
	// session is not shared) and no rule approves the input.
	ErrNoApprover = errors.New("approval: nobody can approve this input: share the session so a person can")
	// ErrTooManyPending: MaxPending proposals are waiting already.
	ErrTooManyPending = errors.New("approval: too many proposals are waiting for a decision")
	// ErrBadText: the text is empty, not UTF-8 or too long.
	ErrBadText = errors.New("approval: bad proposal text")
	// ErrClosed: the gate was closed (the session ended).
	ErrClosed = errors.New("approval: the session has ended")
)

// Person is who proposed or decided: a user id and a display name.
type Person struct {
	UserID string
	Name   string
}

// String is the name, else the user id.
func (p Person) String() string {
	if p.Name != "" {
		return p.Name
	}
	return p.UserID
}

// Outcome is how a proposal ended.
type Outcome struct {
	// ID is the proposal's id.
	ID string
	// State is approved, edited, rejected, expired or withdrawn.
	State attachwire.ProposalState
	// Text is what was written to the program (approved or edited), else
	// empty.
	Text string
	// By is who decided (empty for expired and withdrawn); Rule is the
	// auto-approve rule that approved it, if one did.
	By   Person
	Rule string
	// Reason is a rejection's reason, if the decider gave one.
	Reason string
}

// Written reports whether the outcome wrote input to the program.
func (o Outcome) Written() bool {
	return o.State == attachwire.ProposalApproved || o.State == attachwire.ProposalEdited
}

// Config configures a Gate.
type Config struct {
	// Write writes approved input to the program. Required.
	Write func(ctx context.Context, text string) error
	// Announce sends a proposal, or its outcome, to the room (a host's
	// attachclient.HostControls.Send). Nil: not shared, and Propose
	// refuses what no rule approves. An error (the relay leg is down)
	// leaves the proposal pending: call Reannounce when the leg is back.
	Announce func(ctx context.Context, p attachwire.Proposal) error
	// Record notes an outcome in the session's record (a marker). Nil:
	// not recorded.
	Record func(label string)
	// AutoApprove are rules: input that one matches whole (as if written
	// \A(?:rule)\z) is written at once, recorded as approved by the
	// rule. Input with a control character other than one final Enter
	// (CR) is never auto-approved: a rule's . or \s would let
	// "ls\rrm -rf ~\r" through as one line.
	AutoApprove []*regexp.Regexp
	// Timeout is how long a proposal waits. Zero: DefaultTimeout; at
	// most MaxTimeout.
	Timeout time.Duration
	// Now is the clock. Nil: time.Now.
	Now func() time.Time
}

// Gate holds proposals until they are decided. Its methods are safe for
// concurrent use.
type Gate struct {
	cfg Config

	mu       sync.Mutex
	announce func(context.Context, attachwire.Proposal) error
	waiting  map[string]*waiter
	order    []string // ids of waiting, oldest first
	closed   bool
	rules    []rule

	// sending serializes announcements, so that a re-announcement never
	// follows the outcome it would contradict.
	sending sync.Mutex
}

// waiter is one pending proposal and the Propose call waiting on it.
type waiter struct {
	p    attachwire.Proposal
	done chan attachwire.Decision // cap 1: the decision, once
}

// New returns a Gate. It panics without Config.Write.
func New(cfg Config) *Gate {
	if cfg.Write == nil {
		panic("approval: Config.Write is nil")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	cfg.Timeout = min(cfg.Timeout, MaxTimeout)
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	g := &Gate{cfg: cfg, announce: cfg.Announce, waiting: make(map[string]*waiter)}
	for _, re := range cfg.AutoApprove {
		g.rules = append(g.rules, rule{source: re.String(), re: regexp.MustCompile(`\A(?:` + re.String() + `)\z`)})
	}
	return g
}

// rule is an auto-approve rule, anchored at both ends.
type rule struct {
	source string
	re     *regexp.Regexp
}

// SetAnnounce sets where proposals are announced (a session shared after
// the gate was made), and announces those waiting. Nil stops announcing.
func (g *Gate) SetAnnounce(ctx context.Context, fn func(context.Context, attachwire.Proposal) error) {
	g.mu.Lock()
	g.announce = fn
	g.mu.Unlock()
	g.Reannounce(ctx)
}

// Reannounce sends every waiting proposal to the room again: after the
// relay leg comes back up, since a relay forgets them when a host binds.
func (g *Gate) Reannounce(ctx context.Context) {
	g.sending.Lock()
	defer g.sending.Unlock()
	g.mu.Lock()
	fn := g.announce
	ps := make([]attachwire.Proposal, 0, len(g.order))
	for _, id := range g.order {
		ps = append(ps, g.waiting[id].p)
	}
	g.mu.Unlock()
	if fn == nil {
		return
	}
	for _, p := range ps {
		// An outcome waits for sending: one decided meanwhile is still
		// here, and is told after this.
		fn(ctx, p) //nolint:errcheck // a failure waits for the next Reannounce
	}
}

// Pending returns the proposals waiting, oldest first.
func (g *Gate) Pending() []attachwire.Proposal {
	g.mu.Lock()
	defer g.mu.Unlock()
	ps := make([]attachwire.Proposal, 0, len(g.order))
	for _, id := range g.order {
		ps = append(ps, g.waiting[id].p)
	}
	return ps
}

// Request is one proposal: what to type and who proposes it.
type Request struct {
	Text string
	From Person
	// Timeout overrides Config.Timeout for this proposal when not zero
	// (at most MaxTimeout).
	Timeout time.Duration
}

// Propose asks for req.Text to be approved and returns how it ended: it
// is written to the program only on an approved or edited outcome (the
// edited text then). A proposal that times out is expired; one whose ctx
// ends first is withdrawn (and the room told), and Propose returns the
// outcome with ctx's error. An error from Write is returned with the
// outcome that called for it.
func (g *Gate) Propose(ctx context.Context, req Request) (Outcome, error) {
	if req.Text == "" || len(req.Text) > attachwire.MaxProposalText {
		return Outcome{}, fmt.Errorf("%w: it must be 1..%d bytes", ErrBadText, attachwire.MaxProposalText)
	}
	if err := attachwire.ValidateProposal(attachwire.Proposal{ID: "x", State: attachwire.ProposalPending, Text: req.Text}); err != nil {
		return Outcome{}, fmt.Errorf("%w: %v", ErrBadText, err)
	}
	id := newID()
	if rule := g.rule(req.Text); rule != "" {
		o := Outcome{ID: id, State: attachwire.ProposalApproved, Text: req.Text, Rule: rule}
		g.record(req.From, o)
		return o, g.cfg.Write(ctx, req.Text)
	}
	timeout := g.cfg.Timeout
	if req.Timeout > 0 {
		timeout = min(req.Timeout, MaxTimeout)
	}
	w := &waiter{done: make(chan attachwire.Decision, 1), p: attachwire.Proposal{
		ID: id, State: attachwire.ProposalPending, Text: req.Text,
		FromUserID: req.From.UserID, FromName: req.From.Name,
		ExpiresAt: uint64(g.cfg.Now().Add(timeout).UnixMilli()),
	}}
	g.mu.Lock()
	switch {
	case g.closed:
		g.mu.Unlock()
		return Outcome{}, ErrClosed
	case g.announce == nil:
		g.mu.Unlock()
		return Outcome{}, ErrNoApprover
	case len(g.order) >= MaxPending:
		g.mu.Unlock()
		return Outcome{}, ErrTooManyPending
	}
	g.waiting[id] = w
	g.order = append(g.order, id)
	fn := g.announce
	g.mu.Unlock()
	fn(ctx, w.p) //nolint:errcheck // pending until Reannounce reaches the room

	t := time.NewTimer(timeout)
	defer t.Stop()
	var o Outcome
	var err error
	select {
	case d, ok := <-w.done:
		if !ok {
			o, err = Outcome{ID: id, State: attachwire.ProposalWithdrawn}, ErrClosed
			break
		}
		o = outcomeOf(w.p, d)
	case <-t.C:
		if g.forget(id) {
			o = Outcome{ID: id, State: attachwire.ProposalExpired}
		} else {
			o, err = g.late(w) // decided, or closed, as the timer fired
		}
	case <-ctx.Done():
		if g.forget(id) {
			o, err = Outcome{ID: id, State: attachwire.ProposalWithdrawn}, ctx.Err()
		} else {
			o, err = g.late(w)
		}
	}
	g.record(req.From, o)
	// The room learns the outcome before the write, which may wait for a
	// program that does not read.
	g.tell(ctx, w.p, o)
	if o.Written() {
		// Written even when ctx ended meanwhile: the person approved it.
		// Bounded: a program that never reads gets the rest in order,
		// and the proposer hears so (Write's error).
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
		err = g.cfg.Write(wctx, o.Text)
		cancel()
	}
	return o, err
}

// writeTimeout bounds the wait for a program to take approved input.
const writeTimeout = 10 * time.Second

// late is the outcome of a proposal that something else took off the
// waiting list just as its wait ended: a decision, or Close.
func (g *Gate) late(w *waiter) (Outcome, error) {
	d, ok := <-w.done
	if !ok {
		return Outcome{ID: w.p.ID, State: attachwire.ProposalWithdrawn}, ErrClosed
	}
	return outcomeOf(w.p, d), nil
}

// Decide applies a decision from the room (a host's Room hook). A
// decision on a proposal not waiting, or a malformed one, is ignored.
func (g *Gate) Decide(d attachwire.Decision) {
	if attachwire.ValidateDecision(d) != nil {
		return
	}
	g.mu.Lock()
	w, ok := g.waiting[d.ID]
	if ok {
		g.removeLocked(d.ID)
	}
	g.mu.Unlock()
	if ok {
		w.done <- d
	}
}

// Close withdraws every waiting proposal: their Propose calls return
// ErrClosed. Later proposals are refused.
func (g *Gate) Close() {
	g.mu.Lock()
	g.closed = true
	ws := make([]*waiter, 0, len(g.order))
	for _, id := range g.order {
		ws = append(ws, g.waiting[id])
	}
	g.waiting, g.order = map[string]*waiter{}, nil
	g.mu.Unlock()
	for _, w := range ws {
		close(w.done)
	}
}

// forget removes a waiting proposal; false when a decision took it first.
func (g *Gate) forget(id string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.waiting[id]; !ok {
		return false
	}
	g.removeLocked(id)
	return true
}

func (g *Gate) removeLocked(id string) {
	delete(g.waiting, id)
	if i := slices.Index(g.order, id); i >= 0 {
		g.order = slices.Delete(g.order, i, i+1)
	}
}

// rule returns the first auto-approve rule that matches text whole, ""
// for none or for text with a control character before its end (a final
// CR alone is allowed: the Enter of one line).
func (g *Gate) rule(text string) string {
	body := strings.TrimSuffix(text, "\r")
	for _, r := range body {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ""
		}
	}
	for _, r := range g.rules {
		if r.re.MatchString(text) {
			return r.source
		}
	}
	return ""
}

// tell announces an outcome to the room, so every viewer clears it.
func (g *Gate) tell(ctx context.Context, p attachwire.Proposal, o Outcome) {
	g.mu.Lock()
	fn := g.announce
	g.mu.Unlock()
	if fn == nil {
		return
	}
	p.State, p.ExpiresAt = o.State, 0
	if o.Written() {
		p.Text = o.Text
	}
	p.ByUserID, p.ByName, p.Reason = o.By.UserID, o.By.Name, o.Reason
	g.sending.Lock()
	defer g.sending.Unlock()
	fn(context.WithoutCancel(ctx), p) //nolint:errcheck // a viewer that misses it is told again on its next join: nothing pending
}

// record notes the outcome: who proposed, what, who decided.
func (g *Gate) record(from Person, o Outcome) {
	if g.cfg.Record != nil {
		g.cfg.Record(Label(from, o))
	}
}

// Label is the record of an outcome, one displayable line:
// `proposal 3f2a… approved by Ada (guest-1a2b): ls -la⏎ (proposed by
// claude (agent))`. A name is self-chosen, so the record keeps the user
// id the relay vouches for beside it.
func Label(from Person, o Outcome) string {
	s := attachwire.ProposalLabelPrefix + o.ID + " " + string(o.State)
	switch {
	case o.Rule != "":
		s += " by rule " + attachwire.VisibleInput(o.Rule, 128)
	case o.By != (Person{}):
		s += " by " + recorded(o.By)
	}
	if o.Written() {
		s += ": " + attachwire.VisibleInput(o.Text, 512)
	}
	if o.Reason != "" {
		s += " (" + attachwire.VisibleInput(o.Reason, 256) + ")"
	}
	return s + " (proposed by " + recorded(from) + ")"
}

// recorded is a person as a record names them: the name, and the user id
// beside it when they differ.
func recorded(p Person) string {
	s := attachwire.VisibleInput(p.String(), 64)
	if p.Name != "" && p.UserID != "" && p.Name != p.UserID {
		s += " (" + attachwire.VisibleInput(p.UserID, 64) + ")"
	}
	return s
}

// outcomeOf turns a decision on p into its outcome.
func outcomeOf(p attachwire.Proposal, d attachwire.Decision) Outcome {
	o := Outcome{ID: p.ID, By: Person{UserID: d.ByUserID, Name: d.ByName}, Reason: d.Reason}
	switch d.Verdict {
	case attachwire.VerdictApprove:
		o.State, o.Text = attachwire.ProposalApproved, p.Text
	case attachwire.VerdictEdit:
		o.State, o.Text = attachwire.ProposalEdited, d.Text
	default:
		o.State = attachwire.ProposalRejected
	}
	return o
}

// newID returns a proposal id: 16 hex digits.
func newID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
