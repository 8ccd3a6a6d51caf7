package share

import (
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/attachui"
	"github.com/ptyhost/ptyhost/web/engine"
)

// maxProposalRows bounds the proposals panel.
const maxProposalRows = 5

// Proposal takes an input proposal or its outcome (Config.OnProposal):
// what waits shows in a panel, an outcome on the message line.
func (c *Console) Proposal(ctl attachwire.Proposal) {
	p, ok := engine.ProposalOf(ctl)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.props.Update(p) {
		return
	}
	if !p.Pending() {
		c.cfg.Display.Message(attachui.Outcome(p))
	}
	c.showProposalsLocked()
}

// showProposalsLocked draws the proposals panel unless a menu is open
// (it comes back when the menu closes), or hides it once none waits.
func (c *Console) showProposalsLocked() {
	if c.menu != menuNone || c.stopped {
		return
	}
	if c.props.Len() == 0 {
		c.cfg.Display.HidePanel()
		return
	}
	c.cfg.Display.ShowPanel("waiting for your approval: Ctrl-] y approves the first, n rejects it",
		c.props.Lines(1<<16, maxProposalRows))
}

// decideLocked approves or rejects the oldest proposal waiting.
func (c *Console) decideLocked(approve bool) {
	p, ok := c.props.Oldest()
	if !ok || c.cfg.Decide == nil || !c.cfg.Decide(p.ID, approve, "") {
		c.cfg.Display.Message("no proposal waits for a decision")
	}
}
