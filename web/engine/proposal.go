package engine

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/sanitize"
	"github.com/ptyhost/ptyhost/attachwire/seal"
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
	ID      string
	State   string
	Input   string
	Visible string
	// Cut reports a Visible cut short (a proposal over maxVisibleInput):
	// a viewer must not offer to approve what it cannot show whole.
	// Editable is the whole visible text, which InputFromVisible reads
	// back exactly: what an editor starts from.
	Cut       bool
	Editable  string
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
	if e.room != nil {
		// A sealed room's proposal texts travel sealed: one that does
		// not open was made under another key or altered, and is
		// shown as nothing.
		text, err := e.room.OpenText(seal.TextProposal, c.ID, c.Text)
		reason, rerr := e.room.OpenText(seal.TextReason, c.ID, c.Reason)
		if err != nil || rerr != nil {
			return nil
		}
		c.Text, c.Reason = text, reason
	}
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
		Visible:  attachwire.VisibleInput(c.Text, maxVisibleInput),
		Editable: attachwire.VisibleInput(c.Text, 0),
		From:     sanitize.UIString(from, maxNameRunes), By: sanitize.UIString(by, maxNameRunes),
		Reason: sanitize.UIString(c.Reason, maxMessageRunes), ExpiresAt: c.ExpiresAt,
	}.cut(), true
}

// cut sets Cut from Visible and Editable.
func (p Proposal) cut() Proposal {
	p.Cut = p.Visible != p.Editable
	return p
}

// Propose returns the propose control for text: what a proposing driver
// (its token's prop claim) sends instead of typing. The answer is the
// host's proposal, as a ProposalChanged event.
func (e *Engine) Propose(text string) (attachwire.Frame, error) {
	p := attachwire.Propose{Text: text}
	if err := attachwire.ValidatePropose(p); err != nil {
		return attachwire.Frame{}, err
	}
	if err := attachwire.CheckProposalPlain(text, ""); err != nil {
		return attachwire.Frame{}, err
	}
	if e.room != nil {
		p.Text = e.room.SealText(seal.TextPropose, "", p.Text)
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
	if err := attachwire.CheckProposalPlain(text, reason); err != nil {
		return attachwire.Frame{}, err
	}
	if e.room != nil {
		d.Text = e.room.SealText(seal.TextDecision, d.ID, d.Text)
		d.Reason = e.room.SealText(seal.TextReason, d.ID, d.Reason)
	}
	return controlFrame(d), nil
}

// InputFromVisible reads back what attachwire.VisibleInput wrote, the
// form a person edits a proposal in: "⏎" is Enter (CR), "␤" a line feed,
// "⇥" Tab, "␛" Escape, "^C" caret notation (a control character, "^?"
// DEL), and "<U+XXXX>" the character U+XXXX. Anything else is itself, so
// VisibleInput's whole (uncut) text reads back exactly.
func InputFromVisible(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '⏎':
			b.WriteByte('\r')
		case r == '␤':
			b.WriteByte('\n')
		case r == '⇥':
			b.WriteByte('\t')
		case r == '␛':
			b.WriteByte(0x1b)
		case r == '^' && i+1 < len(s) && s[i+1] == '?':
			b.WriteByte(0x7f)
			n = 2
		case r == '^' && i+1 < len(s) && s[i+1] >= '@' && s[i+1] <= '_':
			b.WriteByte(s[i+1] - '@')
			n = 2
		case r == '<':
			if c, m, ok := codePoint(s[i:]); ok {
				b.WriteRune(c)
				n = m
				break
			}
			b.WriteRune(r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// codePoint reads "<U+XXXX>" (4 to 6 hex digits) at the start of s.
func codePoint(s string) (rune, int, bool) {
	if !strings.HasPrefix(s, "<U+") {
		return 0, 0, false
	}
	end := strings.IndexByte(s, '>')
	if end < 7 || end > 9 {
		return 0, 0, false
	}
	v, err := strconv.ParseUint(s[3:end], 16, 32)
	if err != nil || v > unicode.MaxRune || v >= 0xd800 && v < 0xe000 {
		return 0, 0, false
	}
	return rune(v), end + 1, true
}
