package attachui

import (
	"strings"
	"unicode/utf8"

	"github.com/ptyhost/ptyhost/web/engine"
)

// Proposals is what `ptyhost attach` knows of the input proposals waiting
// in the room (docs/protocol.md §6, "Input proposals"), oldest first: the
// prefix then y, n or e decides the oldest. It is not safe for concurrent
// use.
type Proposals struct {
	waiting []engine.Proposal
}

// Update takes a proposal's new state and reports whether the list
// changed.
func (ps *Proposals) Update(p engine.Proposal) bool {
	for i := range ps.waiting {
		if ps.waiting[i].ID != p.ID {
			continue
		}
		if p.Pending() {
			ps.waiting[i] = p
		} else {
			ps.waiting = append(ps.waiting[:i], ps.waiting[i+1:]...)
		}
		return true
	}
	if !p.Pending() {
		return false
	}
	ps.waiting = append(ps.waiting, p)
	return true
}

// Oldest returns the proposal a decision key applies to.
func (ps *Proposals) Oldest() (engine.Proposal, bool) {
	if len(ps.waiting) == 0 {
		return engine.Proposal{}, false
	}
	return ps.waiting[0], true
}

// Len is how many proposals wait.
func (ps *Proposals) Len() int { return len(ps.waiting) }

// Lines are the panel's lines: one per proposal, each cut to width
// cells, at most max of them.
func (ps *Proposals) Lines(width, max int) []string {
	var out []string
	for i, p := range ps.waiting {
		if i == max {
			break
		}
		from := p.From
		if from == "" {
			from = "someone"
		}
		out = append(out, fit(from+": "+p.Visible, width))
	}
	return out
}

// Outcome says what became of a proposal, for the message line.
func Outcome(p engine.Proposal) string {
	who := p.From
	if who == "" {
		who = "someone"
	}
	by := ""
	if p.By != "" {
		by = " by " + p.By
	}
	switch p.State {
	case "approved":
		return who + "'s input was approved" + by
	case "edited":
		return who + "'s input was edited" + by + " and typed"
	case "rejected":
		s := who + "'s input was rejected" + by
		if p.Reason != "" {
			s += ": " + p.Reason
		}
		return s
	case "expired":
		return who + "'s input expired: nobody decided in time"
	}
	return who + "'s input was withdrawn"
}

// LineEdit is the one-line editor the prefix then e opens on a proposal:
// the proposal's visible text without its final Enter, which is added
// back when the edit is sent. It takes printable text, Backspace (DEL or
// ^H) and Ctrl-U; Enter sends, Escape or Ctrl-C cancels.
type LineEdit struct {
	ID    string
	buf   []rune
	enter bool // the proposal ended with Enter: the edited line does too
}

// NewLineEdit opens an editor on p.
func NewLineEdit(p engine.Proposal) *LineEdit {
	v := p.Visible
	enter := strings.HasSuffix(v, "⏎")
	return &LineEdit{ID: p.ID, buf: []rune(strings.TrimSuffix(v, "⏎")), enter: enter}
}

// EditResult is what a read of keys did to a LineEdit.
type EditResult uint8

// Edit results.
const (
	EditGoing EditResult = iota
	EditSend
	EditCancel
)

// Feed applies keys; on EditSend, Input is the input to write.
func (e *LineEdit) Feed(p []byte) EditResult {
	for len(p) > 0 {
		r, n := utf8.DecodeRune(p)
		p = p[n:]
		switch {
		case r == '\r' || r == '\n':
			return EditSend
		case r == 0x1b || r == 0x03:
			return EditCancel
		case r == 0x7f || r == 0x08:
			if len(e.buf) > 0 {
				e.buf = e.buf[:len(e.buf)-1]
			}
		case r == 0x15:
			e.buf = e.buf[:0]
		case r < 0x20 || r == utf8.RuneError:
		default:
			e.buf = append(e.buf, r)
		}
	}
	return EditGoing
}

// NewProposeEdit opens an empty editor for a line to propose: the input
// it makes ends with Enter.
func NewProposeEdit() *LineEdit { return &LineEdit{enter: true} }

// Proposing reports an editor opened by NewProposeEdit, whose line is a
// new proposal rather than an edit of one.
func (e *LineEdit) Proposing() bool { return e.ID == "" }

// Text is the line as typed so far.
func (e *LineEdit) Text() string { return string(e.buf) }

// Input is the edited line as input for the program: the visible marks
// read back (engine.InputFromVisible), and Enter at the end when the
// proposal had it.
func (e *LineEdit) Input() string {
	s := engine.InputFromVisible(string(e.buf))
	if e.enter {
		s += "\r"
	}
	return s
}
