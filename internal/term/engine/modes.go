package engine

import (
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term"
)

// setANSIModes is SM/RM: only IRM (4) is implemented.
func (e *Engine) setANSIModes(on bool) {
	p := &e.p
	for i := range p.nparams {
		if p.params[i] == 4 {
			e.mode.insert = on
		}
	}
}

// setDECModes is DECSET/DECRST for each parameter.
func (e *Engine) setDECModes(on bool) {
	p := &e.p
	for i := range p.nparams {
		e.setDECMode(int(p.params[i]), on)
	}
}

func (e *Engine) setDECMode(mode int, on bool) {
	m := &e.mode
	switch mode {
	case 1:
		m.appCursor = on
	case 5:
		m.reverse = on
	case 6:
		e.cur.origin = on
		e.moveToOrigin(0, 0)
	case 7:
		m.autowrap = on
		if !on {
			e.cur.wrapPending = false
		}
	case 12:
		m.cursorBlink = on
	case 25:
		m.cursorVisible = on
	case 66:
		m.appKeypad = on
	case 47, 1047:
		e.switchScreen(on, false)
	case 1049:
		e.switchScreen(on, true)
	case 1048:
		if on {
			e.saveCursor()
		} else {
			e.restoreCursor()
		}
	case 1000, 1001, 1002, 1003:
		// One tracking mode at a time; resetting any of them turns
		// tracking off, as xterm and tmux do.
		m.mouse = 0
		if on {
			m.mouse = attachwire.MouseProto(mode - 999)
		}
	case 1004:
		m.focus = on
	case 1005:
		m.mouseUTF8 = on
	case 1006:
		m.mouseSGR = on
	case 1015:
		m.mouseURXVT = on
	case 2004:
		m.bracketedPaste = on
	case 2026:
		m.sync = on
	}
}

// switchScreen enters or leaves the alternate screen. Entering clears it
// in the default background (tmux does, for 47, 1047 and 1049 alike);
// with saveCursor (1049) the cursor is saved on entry into its own slot
// and restored on exit, even when the alternate screen was not active,
// as xterm and tmux do.
func (e *Engine) switchScreen(on, saveCursor bool) {
	if on == e.altActive {
		if !on && saveCursor && e.altSaved.valid {
			e.restoreFrom(e.altSaved)
		}
		return
	}
	if on {
		if saveCursor {
			e.altSaved = savedCursor{cursor: e.cur, valid: true}
		}
		e.altReturnRow, e.altReturnCol = e.cur.row, e.cur.col
		if e.alt == nil {
			e.alt = newBuffer(e.cols, e.rows)
		}
		e.alt.top = 0
		e.alt.clear(0)
		e.scr = e.alt
		e.altActive = true
		return
	}
	e.scr = e.prim
	e.altActive = false
	if saveCursor && e.altSaved.valid {
		e.restoreFrom(e.altSaved)
	}
}

// reportMode answers DECRQM with the state of the modes this engine
// implements, 0 (not recognized) for the rest.
func (e *Engine) reportMode(mode int, private bool) {
	state := term.ModeNotRecognized
	set := func(b bool) {
		state = term.ModeReset
		if b {
			state = term.ModeSet
		}
	}
	m := &e.mode
	if !private {
		if mode == 4 {
			set(m.insert)
		}
		e.answer(term.AppendDECRPM(e.answerBuf, mode, state, false))
		return
	}
	switch mode {
	case 1:
		set(m.appCursor)
	case 5:
		set(m.reverse)
	case 6:
		set(e.cur.origin)
	case 7:
		set(m.autowrap)
	case 12:
		set(m.cursorBlink)
	case 25:
		set(m.cursorVisible)
	case 66:
		set(m.appKeypad)
	case 47, 1047, 1049:
		set(e.altActive)
	case 1000, 1001, 1002, 1003:
		set(m.mouse == attachwire.MouseProto(mode-999))
	case 1004:
		set(m.focus)
	case 1005:
		set(m.mouseUTF8)
	case 1006:
		set(m.mouseSGR)
	case 1015:
		set(m.mouseURXVT)
	case 2004:
		set(m.bracketedPaste)
	case 2026:
		set(m.sync)
	}
	e.answer(term.AppendDECRPM(e.answerBuf, mode, state, true))
}
