package engine

import (
	"strings"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/sanitize"
)

// maxVisibleInput bounds a proposal's visible text: a page or a status
// line shows the start of a long paste, not all 64 KiB of it.
const maxVisibleInput = 4096

// Proposal is an input proposal as a viewer shows it (docs/protocol.md
// §6, "Input proposals"). Input is the input as the program would get it,
// for an editor to start from, never for a terminal; Visible is Input on
// one line with its control characters shown (attachwire.VisibleInput).
// From and By are names, Reason a rejection's words, all made displayable.
type Proposal struct {
	ID        string
	State     string
	Input     string
	Visible   string
	From      string
	By        string
	Reason    string
	ExpiresAt uint64 // unix milliseconds, while pending
}

// Pending reports whether the proposal waits for a decision.
func (p *Proposal) Pending() bool { return p.State == string(attachwire.ProposalPending) }

// proposal turns a proposal control into its event; a malformed one (the
// relay passes on only valid ones) is ignored.
func (e *Engine) proposal(c attachwire.Proposal) []Event {
	p, ok := ProposalOf(c)
	if !ok {
		return nil
	}
	return []Event{{Kind: ProposalChanged, Proposal: &p}}
}

// ProposalOf is a proposal control as a viewer shows it; false for a
// malformed one.
func ProposalOf(c attachwire.Proposal) (Proposal, bool) {
	if attachwire.ValidateProposal(c) != nil {
		return Proposal{}, false
	}
	from := c.FromName
	if from == "" {
		from = c.FromUserID
	}
	by := c.ByName
	if by == "" {
		by = c.ByUserID
	}
	return Proposal{
		ID: c.ID, State: string(c.State), Input: c.Text,
		Visible: attachwire.VisibleInput(c.Text, maxVisibleInput),
		From:    sanitize.UIString(from, maxNameRunes), By: sanitize.UIString(by, maxNameRunes),
		Reason: sanitize.UIString(c.Reason, maxMessageRunes), ExpiresAt: c.ExpiresAt,
	}, true
}

// Propose returns the propose control for text: what a proposing driver
// (its token's prop claim) sends instead of typing. The answer is the
// host's proposal, as a ProposalChanged event.
func (e *Engine) Propose(text string) (attachwire.Frame, error) {
	p := attachwire.Propose{Text: text}
	if err := attachwire.ValidatePropose(p); err != nil {
		return attachwire.Frame{}, err
	}
	return controlFrame(p), nil
}

// Decide returns the decide control for proposal id: verdict approve,
// edit (with text, the input to write instead) or reject (with an
// optional reason). Only the pen holder's is passed on by the relay; the
// answer is the proposal's outcome, as a ProposalChanged event.
func (e *Engine) Decide(id, verdict, text, reason string) (attachwire.Frame, error) {
	d := attachwire.Decision{ID: id, Verdict: attachwire.Verdict(verdict), Text: text, Reason: reason}
	if err := attachwire.ValidateDecision(d); err != nil {
		return attachwire.Frame{}, err
	}
	return controlFrame(d), nil
}

// InputFromVisible reverses the marks attachwire.VisibleInput gives the
// keys a person edits a command line with: "⏎" is Enter (CR), "␤" a line
// feed, "⇥" Tab and "␛" Escape. Caret notation stays text: "^C" typed in
// an editor is two characters, not Ctrl-C.
func InputFromVisible(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '⏎':
			b.WriteByte('\r')
		case '␤':
			b.WriteByte('\n')
		case '⇥':
			b.WriteByte('\t')
		case '␛':
			b.WriteByte(0x1b)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
