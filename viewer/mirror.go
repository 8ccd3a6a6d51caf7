package viewer

import (
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/repaint"
	"github.com/ptyhost/ptyhost/internal/term"
	"github.com/ptyhost/ptyhost/internal/term/engine"
)

// mirror is the session's screen as this viewer knows it: a terminal
// engine fed the stream from a Snapshot on, and the stream position. It
// never answers queries (no Answer callback). Not safe for concurrent use:
// the Client guards it with its lock.
type mirror struct {
	scrollback int
	emu        *engine.Engine
	has        bool   // a Snapshot was applied: last and epoch mean something
	last       uint64 // the last host seq applied
	epoch      uint64 // the epoch of the last Snapshot applied
	echo       attachwire.EchoMode
	// final is the screen as close found it, encoded, once the engine is
	// released: a Client that has ended still shows its last screen.
	final []byte
}

// load replaces the mirror with scr, which shows the stream up to last.
func (m *mirror) load(scr *attachwire.Screen, last uint64) {
	if m.emu != nil {
		m.emu.Close()
	}
	m.emu = engine.New(term.Options{Cols: scr.Cols, Rows: scr.Rows, Scrollback: m.scrollback})
	m.emu.Write(repaint.AppendScreen(nil, scr, repaint.Options{Scrollback: m.scrollback > 0, InputModes: true}))
	m.has, m.last, m.epoch, m.echo = true, last, scr.Epoch, scr.Echo
}

// screen returns a copy of the mirror's screen; ok is false before the
// first Snapshot. After close it is the screen close kept.
func (m *mirror) screen() (attachwire.Screen, bool) {
	var scr attachwire.Screen
	switch {
	case !m.has:
		return scr, false
	case m.emu == nil:
		// Encoded by us from a valid screen: decoding cannot fail.
		if err := scr.UnmarshalBinary(m.final); err != nil {
			return attachwire.Screen{}, false
		}
		return scr, true
	}
	m.emu.Screen(&scr)
	scr.Epoch, scr.Echo = m.epoch, m.echo
	return scr, true
}

// close releases the engine, keeping its last screen for screen.
func (m *mirror) close() {
	if m.emu == nil {
		return
	}
	if scr, ok := m.screen(); ok {
		m.final, _ = scr.MarshalBinary()
		if m.final == nil {
			m.has = false
		}
	}
	m.emu.Close()
	m.emu = nil
}
