package engine

// execute runs a C0 control.
func (e *Engine) execute(c byte) {
	e.lastRune = -1
	switch c {
	case 0x08: // BS
		e.backspace()
	case 0x09: // HT
		e.tabForward(1)
	case 0x0A, 0x0B, 0x0C: // LF, VT, FF (a pending wrap stays, as in tmux)
		e.index()
	case 0x0D: // CR
		e.cur.col = 0
		e.cur.wrapPending = false
	case 0x0E: // SO: G1 into GL
		e.cur.gl = 1
	case 0x0F: // SI: G0 into GL
		e.cur.gl = 0
	}
}

// escDispatch runs a complete escape sequence ESC [inter] final.
func (e *Engine) escDispatch(final byte) {
	p := &e.p
	e.lastRune = -1
	if p.badInter {
		return
	}
	if p.ninter == 1 {
		switch p.inter[0] {
		case '(':
			e.cur.charsets[0] = designate(final)
		case ')':
			e.cur.charsets[1] = designate(final)
		case '#':
			if final == '8' {
				e.alignmentTest()
			}
		}
		return
	}
	if p.ninter != 0 {
		return
	}
	switch final {
	case '7':
		e.saveCursor()
	case '8':
		e.restoreCursor()
	case 'D': // IND
		e.index()
	case 'E': // NEL
		e.cur.wrapPending = false
		e.cur.col = 0
		e.index()
	case 'H': // HTS
		e.tabs[e.cur.col] = true
	case 'M': // RI
		e.reverseIndex()
	case 'c': // RIS
		e.reset()
	case '=':
		e.mode.appKeypad = true
	case '>':
		e.mode.appKeypad = false
	}
}

// alignmentTest is DECALN: fill the screen with E, reset the margins and
// home the cursor.
func (e *Engine) alignmentTest() {
	for i := range e.rows {
		l := e.scr.line(i)
		e.scr.clearLine(l, 0)
		l.fill = cell{c: 'E'}
	}
	e.work += uint64(e.rows)
	e.top, e.bot = 0, e.rows-1
	e.cur.origin = false
	e.moveTo(0, 0)
}
