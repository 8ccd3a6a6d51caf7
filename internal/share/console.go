package share

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/ptyhost/ptyhost/attachclient"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/attachui"
	"github.com/ptyhost/ptyhost/internal/status"
)

// controlTimeout bounds one control sent from the menu.
const controlTimeout = 5 * time.Second

// ConsoleConfig is what a Console drives.
type ConsoleConfig struct {
	// Display is the sharer's terminal, with its status line. Required.
	Display *attachui.Display
	// Prefix is the prefix key (attachui.DefaultPrefix if zero).
	Prefix byte
	// Controls send the host's controls; Revoker ends links (nil: the
	// menu says revoking is not available).
	Controls *attachclient.HostControls
	Revoker  Revoker
	// RestoreSize sets the session to the sharer's terminal size; it is
	// called when nobody drives from afar any more. Must not block.
	RestoreSize func()
	// StopSharing ends the sharing; the program goes on. Must not block.
	StopSharing func()
	// Decide approves or rejects a waiting input proposal as the sharer
	// (Share.Decide); nil: the share takes no proposals.
	Decide func(id string, approve bool, reason string) bool
	// Rekey starts a new room key and returns what to tell the sharer
	// (where the new links are). Nil: the menu says the room has no key
	// to change. It runs in the background.
	Rekey func() (string, error)
}

// Console is share's side of the sharer's terminal: it shows joins,
// leaves and the pen's changes on the status line (Room, Link), and reads
// the prefix menu out of the sharer's keys (Keys): who is here, kick,
// revoke a link, take the pen back, read-only, stop sharing. It is safe
// for concurrent use.
type Console struct {
	cfg    ConsoleConfig
	people People

	mu      sync.Mutex
	keys    attachui.ShareKeys
	link    status.Link
	menu    menuKind
	choices []string // what 1..9 pick in the open menu
	stopped bool
	props   attachui.Proposals // input proposals waiting for a decision
	shown   attachui.Shown     // the one the panel shows, which y and n decide
	bg      sync.WaitGroup     // controls sent in the background
}

// menuKind is the menu waiting for a key.
type menuKind uint8

const (
	menuNone menuKind = iota
	menuPeople
	menuKick
	menuRevoke
)

// NewConsole returns a Console for cfg.
func NewConsole(cfg ConsoleConfig) *Console {
	if cfg.Prefix == 0 {
		cfg.Prefix = attachui.DefaultPrefix
	}
	if cfg.RestoreSize == nil {
		cfg.RestoreSize = func() {}
	}
	if cfg.StopSharing == nil {
		cfg.StopSharing = func() {}
	}
	return &Console{cfg: cfg, keys: attachui.ShareKeys{Prefix: cfg.Prefix}}
}

// People returns what the Console knows of the room's people.
func (c *Console) People() *People { return &c.people }

// Room takes a control the relay sent the host (Config.OnRoom).
func (c *Console) Room(ctl attachwire.Control) {
	ch := c.people.Apply(ctl)
	c.showState()
	if ch.Text != "" {
		c.cfg.Display.Message(ch.Text)
	}
	if ch.RestoreSize {
		c.cfg.RestoreSize()
	}
}

// Link takes the state of the host's leg to the relay (Config.OnLink).
func (c *Console) Link(up bool) {
	c.mu.Lock()
	if up {
		c.link = status.Connected
	} else {
		c.link = status.Reconnecting
	}
	c.mu.Unlock()
	c.showState()
}

// Stopped says that the sharing has ended on its own while the program
// goes on (Carry returned, for example because the relay no longer knows
// the room): a panel with why, as the sharer must read it, and no more
// status line.
func (c *Console) Stopped(why string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return
	}
	c.stopped = true
	c.openLocked(menuPeople, "sharing stopped (any key closes)", []string{why, "The program goes on here."}, nil)
}

// showState puts what is known on the status line.
func (c *Console) showState() {
	st := c.people.Status()
	c.mu.Lock()
	stopped := c.stopped
	if c.link != status.Connected {
		st.Link = c.link
	}
	c.mu.Unlock()
	if stopped {
		return // the program goes on: no lasting line over its bottom row
	}
	c.cfg.Display.SetState(st)
}

// Keys takes one read of the sharer's terminal and returns the bytes
// meant for the session; prefix commands are carried out.
func (c *Console) Keys(p []byte) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []byte
	rest := c.keys.Feed(nil, p, func(send []byte, cmd attachui.ShareCommand, key byte) []byte {
		out = append(out, send...)
		c.commandLocked(cmd, key)
		return send[:0]
	})
	return append(out, rest...)
}

// help is the prefix menu's help line.
const help = "Ctrl-] then: w who is here, k kick, x revoke a link, p take the pen, o read-only, e new key, y/n approve/reject a proposal, s stop sharing, Ctrl-] send Ctrl-]"

// commandLocked carries out one prefix command or menu choice.
func (c *Console) commandLocked(cmd attachui.ShareCommand, key byte) {
	d := c.cfg.Display
	if cmd == attachui.SharePick {
		c.pickLocked(key)
		return
	}
	if c.stopped && cmd != attachui.ShareHelp {
		d.Message("not sharing any more: the program goes on here")
		return
	}
	if c.cfg.Controls == nil && (cmd == attachui.ShareKick || cmd == attachui.ShareTakePen || cmd == attachui.ShareReadOnly) {
		d.Message("the host's controls are not available")
		return
	}
	switch cmd {
	case attachui.SharePeople:
		c.openLocked(menuPeople, "who is here (any key closes)", c.peopleLines(), nil)
	case attachui.ShareKick:
		ms := c.people.Members()
		if len(ms) == 0 {
			d.Message("nobody to remove")
			return
		}
		ids := make([]string, len(ms))
		for i, m := range ms {
			ids[i] = m.ConnID
		}
		c.openLocked(menuKick, "remove whom? (a number; any other key cancels)", c.peopleLines(), ids)
	case attachui.ShareRevoke:
		c.revokeMenuLocked()
	case attachui.ShareTakePen:
		if !c.people.Driving() {
			d.Message("the pen is yours already")
			return
		}
		c.send("take the pen", func(ctx context.Context) error { return c.cfg.Controls.TakePen(ctx) })
	case attachui.ShareReadOnly:
		on := !c.people.ReadOnly()
		c.send("read-only", func(ctx context.Context) error { return c.cfg.Controls.SetReadOnly(ctx, on) })
	case attachui.ShareApprove, attachui.ShareReject:
		c.decideLocked(cmd == attachui.ShareApprove)
	case attachui.ShareRekey:
		if c.cfg.Rekey == nil {
			d.Message("the room is not end-to-end encrypted: no key to change")
			return
		}
		c.bg.Go(func() {
			msg, err := c.cfg.Rekey()
			if err != nil {
				d.Message("new key: " + strings.TrimPrefix(err.Error(), "share: "))
				return
			}
			// A panel, not the status line: the joins and leaves the new
			// key causes would push a message off at once, and the sharer
			// needs to read where the new links are.
			c.mu.Lock()
			defer c.mu.Unlock()
			c.openLocked(menuPeople, "new room key (any key closes)", []string{msg}, nil)
		})
	case attachui.ShareStop:
		c.stopped = true
		c.cfg.StopSharing()
		d.Message("sharing stopped: viewers are gone, the program goes on here")
	default:
		d.Message(help)
	}
}

// openLocked shows a menu panel and makes the next key its choice.
func (c *Console) openLocked(kind menuKind, title string, lines, choices []string) {
	c.menu, c.choices = kind, choices
	c.cfg.Display.ShowPanel(title, lines)
	c.keys.Pick()
}

// pickLocked takes the key after a menu opened: a number picks, any
// other key closes it.
func (c *Console) pickLocked(key byte) {
	kind, choices := c.menu, c.choices
	c.menu, c.choices = menuNone, nil
	c.cfg.Display.HidePanel()
	defer c.showProposalsLocked()
	i := int(key) - '1'
	if kind == menuPeople || i < 0 || i >= len(choices) || i > 8 {
		return
	}
	id := choices[i]
	switch kind {
	case menuKick:
		c.send("remove", func(ctx context.Context) error { return c.cfg.Controls.Kick(ctx, id, "removed by the sharer") })
	case menuRevoke:
		c.send("revoke", func(ctx context.Context) error { return c.cfg.Revoker.Revoke(ctx, id) })
	}
}

// revokeMenuLocked lists the links to revoke.
func (c *Console) revokeMenuLocked() {
	if c.cfg.Revoker == nil {
		c.cfg.Display.Message("this share's links cannot be revoked")
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), controlTimeout)
	defer cancel()
	links, err := c.cfg.Revoker.Links(ctx)
	if err != nil {
		c.cfg.Display.Message("revoke: " + err.Error())
		return
	}
	if len(links) == 0 {
		c.cfg.Display.Message("no link left to revoke")
		return
	}
	lines := make([]string, 0, len(links))
	ids := make([]string, 0, len(links))
	for i, l := range links {
		if i == 9 {
			break
		}
		lines = append(lines, fmt.Sprintf("%d  %s (%s)", i+1, l.Label, l.Role))
		ids = append(ids, l.ID)
	}
	c.openLocked(menuRevoke, "revoke which link? (a number; any other key cancels)", lines, ids)
}

// peopleLines lists who is here, numbered: name, guest mark, role and
// who drives.
func (c *Console) peopleLines() []string {
	st := c.people.Status()
	if len(st.Members) == 0 {
		return []string{"   nobody but you"}
	}
	lines := make([]string, 0, len(st.Members))
	for i, m := range st.Members {
		var b strings.Builder
		if i < 9 {
			fmt.Fprintf(&b, "%d  ", i+1)
		} else {
			b.WriteString("   ")
		}
		b.WriteString(status.Label(m, st.Members))
		b.WriteString("  " + roleWord(m.Role))
		if m.ConnID != "" && m.ConnID == st.PenConn {
			b.WriteString(", driving")
		}
		lines = append(lines, b.String())
	}
	if st.PenConn == "" {
		lines = append(lines, "   you drive")
	}
	return lines
}

// send runs a control in the background (the keys are read meanwhile)
// and says so if it failed.
func (c *Console) send(what string, f func(context.Context) error) {
	c.bg.Go(func() {
		ctx, cancel := context.WithTimeout(context.Background(), controlTimeout)
		defer cancel()
		if err := f(ctx); err != nil {
			c.cfg.Display.Message(what + ": " + strings.TrimPrefix(err.Error(), "attachclient: "))
		}
	})
}

// Close waits for the controls sent in the background.
func (c *Console) Close() { c.bg.Wait() }
