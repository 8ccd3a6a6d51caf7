package viewer

import (
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/sanitize"
)

// apply handles one frame from the relay, on the connection loop. An
// error ends the leg: a refusal is final, anything else redials.
func (c *Client) apply(f attachwire.Frame) error {
	switch f.Type {
	case attachwire.TypeControl:
		return c.applyControl(f.Payload)
	case attachwire.TypeSnapshot:
		c.applySnapshot(f)
		return nil
	case attachwire.TypeOutput, attachwire.TypeResize, attachwire.TypeMarker, attachwire.TypeExit:
		c.applyStream(f)
		return nil
	}
	return nil // Input never comes from a relay; ignore it
}

// position says whether to apply stream frame seq: only the next one.
// Frames already applied, and any before the first Snapshot, are dropped;
// a gap asks the relay to resume from the mirror's position once, and
// frames wait for the answer (the missing frame, or a Snapshot).
func (c *Client) position(seq uint64) (apply bool) {
	c.mu.Lock()
	has, last := c.mirror.has, c.mirror.last
	epoch := c.mirror.epoch
	c.mu.Unlock()
	switch {
	case !has || seq <= last:
		return false
	case seq == last+1:
		c.resyncing = false
		return true
	case c.resyncing:
		return false
	}
	// A conformant relay never makes a gap, but a mirror that skipped
	// frames would be wrong for good.
	c.resyncing = true
	c.control(attachwire.ResumeFrom{Seq: last, Epoch: &epoch})
	return false
}

// applyStream applies an Output, Resize, Marker or Exit frame.
func (c *Client) applyStream(f attachwire.Frame) {
	if !c.position(f.Seq) {
		return
	}
	ev := Event{Seq: f.Seq}
	c.mu.Lock()
	switch f.Type {
	case attachwire.TypeOutput:
		c.mirror.emu.Write(f.Payload)
		ev.Kind, ev.Data = EventOutput, c.san.Append(nil, f.Payload)
	case attachwire.TypeResize:
		rs, err := attachwire.DecodeResize(f.Payload)
		if err == nil && rs.Cols <= attachwire.MaxScreenDim && rs.Rows <= attachwire.MaxScreenDim {
			c.mirror.emu.Resize(int(rs.Cols), int(rs.Rows), int(rs.PxWidth), int(rs.PxHeight))
			c.san.SetSize(int(rs.Cols), int(rs.Rows))
			ev.Kind, ev.Cols, ev.Rows = EventResize, int(rs.Cols), int(rs.Rows)
		}
	case attachwire.TypeMarker:
		if m, err := attachwire.DecodeMarker(f.Payload); err == nil {
			ev.Kind, ev.Text = EventMarker, sanitize.UIString(m.Label, maxUIRunes)
		}
	case attachwire.TypeExit:
		if ex, err := attachwire.DecodeExit(f.Payload); err == nil {
			ex.Signal = sanitize.UIString(ex.Signal, maxUIRunes)
			c.exit, c.ended = &ex, true
			c.closeLeg = true
			ev.Kind, ev.Exit = EventExit, ex
		}
	}
	c.mirror.last = f.Seq
	c.mu.Unlock()
	if ev.Kind != 0 {
		c.emit(ev)
	}
}

// applySnapshot applies a Snapshot. One that continues the mirror's own
// stream (an in-stream Snapshot at last+1 of the same epoch) only moves
// the position: the engine already holds that screen and more (the pen,
// margins, charsets a Screen does not carry). Any other replaces the
// mirror, and restarts this leg's sanitizer.
func (c *Client) applySnapshot(f attachwire.Frame) {
	sn, err := attachwire.DecodeSnapshot(f.Payload)
	if err != nil {
		return
	}
	scr, err := sn.DecodeScreen()
	if err != nil {
		return // the relay validates snapshots; a bad one is dropped
	}
	last := max(f.Seq, sn.AtSeq)
	c.mu.Lock()
	m := &c.mirror
	if m.has && last <= m.last && scr.Epoch == m.epoch {
		c.mu.Unlock()
		return // already past it
	}
	if m.has && !c.resyncing && sn.AtSeq == m.last && scr.Epoch == m.epoch {
		m.last, m.echo = last, scr.Echo
		c.mu.Unlock()
		return
	}
	m.load(&scr, last)
	c.checkEndedLocked()
	c.mu.Unlock()
	c.resyncing = false
	c.resetSanitizer(c.sanDriver, scr.Cols, scr.Rows)
	c.emit(Event{Kind: EventSnapshot, Seq: last, Screen: &scr})
}

// resetSanitizer starts a fresh sanitizer with the profile for driving or
// viewing.
func (c *Client) resetSanitizer(driving bool, cols, rows int) {
	p := sanitize.Viewer
	if driving {
		p = sanitize.Driver
	}
	c.sanDriver = driving
	c.san = sanitize.New(sanitize.Options{Profile: p, Cols: cols, Rows: rows})
}
