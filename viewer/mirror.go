package viewer

import (
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/repaint"
	"github.com/ptyhost/ptyhost/internal/term"
	termengine "github.com/ptyhost/ptyhost/internal/term/engine"
)

// mirror is the session's screen as this viewer knows it: a terminal
// engine loaded from a Snapshot and fed the stream after it, as the leg's
// engine applies them. It never answers queries (no Answer callback). Not
// safe for concurrent use: the Client guards it with its lock.
type mirror struct {
	scrollback int
	emu        *termengine.Engine
	// final is the screen as close found it, encoded, once the engine is
	// released: a Client that has ended still shows its last screen.
	final []byte
}

// load replaces the mirror with scr.
func (m *mirror) load(scr *attachwire.Screen) {
	if m.emu != nil {
		m.emu.Close()
	}
	m.emu = termengine.New(term.Options{Cols: scr.Cols, Rows: scr.Rows, Scrollback: m.scrollback})
	m.emu.Write(repaint.AppendScreen(nil, scr, repaint.Options{Scrollback: m.scrollback > 0, InputModes: true}))
}

// write applies an Output frame's payload.
func (m *mirror) write(p []byte) {
	if m.emu != nil {
		m.emu.Write(p)
	}
}

// resize applies a Resize frame.
func (m *mirror) resize(cols, rows, pxWidth, pxHeight int) {
	if m.emu != nil {
		m.emu.Resize(cols, rows, pxWidth, pxHeight)
	}
}

// screen returns a copy of the mirror's screen, stamped with the epoch
// and echo flag the stream gave it; ok is false before the first
// Snapshot. After close it is the screen close kept.
func (m *mirror) screen(epoch uint64, echo attachwire.EchoMode) (attachwire.Screen, bool) {
	var scr attachwire.Screen
	switch {
	case m.emu != nil:
		m.emu.Screen(&scr)
		scr.Epoch, scr.Echo = epoch, echo
		return scr, true
	case m.final != nil:
		// Encoded by us from a valid screen: decoding cannot fail.
		if err := scr.UnmarshalBinary(m.final); err != nil {
			return attachwire.Screen{}, false
		}
		return scr, true
	}
	return scr, false
}

// close releases the engine, keeping its last screen for screen.
func (m *mirror) close(epoch uint64, echo attachwire.EchoMode) {
	if m.emu == nil {
		return
	}
	scr, _ := m.screen(epoch, echo)
	m.final, _ = scr.MarshalBinary()
	m.emu.Close()
	m.emu = nil
}
