package main

import (
	"github.com/ptyhost/ptyhost/internal/attachui"
	"github.com/ptyhost/ptyhost/viewer"
)

// maxProposalRows bounds the proposals panel.
const maxProposalRows = 5

// proposal takes a proposal's new state: the panel shows what waits, and
// the message line what became of one.
func (a *attacher) proposal(p viewer.Proposal) {
	a.mu.Lock()
	changed := a.props.Update(p)
	if !p.Pending() && a.edit != nil && a.edit.ID == p.ID {
		a.edit = nil
	}
	a.mu.Unlock()
	if !changed {
		return
	}
	if !p.Pending() {
		a.disp.Message(attachui.Outcome(p))
	}
	a.showProposals()
}

// showProposals draws the proposals panel, or gives the screen back to
// the commands panel (or the session) once none waits.
func (a *attacher) showProposals() {
	a.mu.Lock()
	n := a.props.Len()
	lines := a.props.Lines(1<<16, maxProposalRows)
	edit, driving, cmdsUp := a.edit, a.driving, a.cmdsUp
	a.mu.Unlock()
	switch {
	case edit != nil && edit.Proposing():
		a.disp.ShowPanel("propose a line (Enter sends it, with Enter; Esc cancels): "+edit.Text()+"▌", lines)
		return
	case n == 0 && cmdsUp:
		a.showCommands()
		return
	case n == 0:
		a.disp.HidePanel()
		return
	}
	title := "waiting for approval: Ctrl-] y approves the first, n rejects it, e edits it"
	if !driving {
		title = "waiting for approval by the pen holder (Ctrl-] g takes the pen)"
	}
	if edit != nil {
		title = "edit the first (Enter sends, Esc cancels, ⏎ is Enter): " + edit.Text() + "▌"
	}
	a.disp.ShowPanel(title, lines)
}

// decide applies a decision key to the oldest proposal waiting.
func (a *attacher) decide(c *viewer.Client, cmd attachui.Command) {
	a.mu.Lock()
	p, ok := a.props.Oldest()
	driving := a.driving
	if ok && driving && cmd == attachui.CmdEdit {
		a.edit = attachui.NewLineEdit(p)
	}
	a.mu.Unlock()
	switch {
	case !ok:
		a.disp.Message("no proposal waits for a decision")
		return
	case !driving:
		a.disp.Message("only the pen holder decides proposals: Ctrl-] g takes the pen")
		return
	case cmd == attachui.CmdEdit:
		a.showProposals()
		return
	}
	verdict := "approve"
	if cmd == attachui.CmdReject {
		verdict = "reject"
	}
	if err := c.Decide(p.ID, verdict, "", ""); err != nil {
		a.disp.Message("not sent: " + err.Error())
	}
}

// propose opens the editor for a line to propose (a proposer's token).
func (a *attacher) propose(c *viewer.Client) {
	if !c.Proposer() {
		a.disp.Message("this link types directly (Ctrl-] g takes the pen): it does not propose")
		return
	}
	a.mu.Lock()
	a.edit = attachui.NewProposeEdit()
	a.mu.Unlock()
	a.showProposals()
}

// editing feeds keys to the proposal editor while one is open, and
// reports whether it took them.
func (a *attacher) editing(c *viewer.Client, p []byte) bool {
	a.mu.Lock()
	e := a.edit
	if e == nil {
		a.mu.Unlock()
		return false
	}
	res := e.Feed(p)
	if res != attachui.EditGoing {
		a.edit = nil
	}
	a.mu.Unlock()
	switch res {
	case attachui.EditSend:
		input := e.Input()
		switch {
		case e.Proposing() && input == "\r":
			a.disp.Message("nothing proposed: the line is empty")
		case e.Proposing():
			if err := c.Propose(input); err != nil {
				a.disp.Message("not sent: " + err.Error())
			}
		case input == "" || input == "\r":
			a.disp.Message("the edited line is empty: Ctrl-] n rejects instead")
		default:
			if err := c.Decide(e.ID, "edit", input, ""); err != nil {
				a.disp.Message("not sent: " + err.Error())
			}
		}
	case attachui.EditCancel:
		a.disp.Message("cancelled")
	}
	a.showProposals()
	return true
}
