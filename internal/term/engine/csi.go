package engine

// csiDispatch runs a complete control sequence. Every count is clamped to
// the screen before use.
func (e *Engine) csiDispatch(final byte) {
	p := &e.p
	if p.badInter {
		e.lastRune = -1
		return
	}
	if p.prefix != 0 || p.ninter != 0 {
		e.csiPrivate(final)
		return
	}
	if final == 'm' { // the most frequent sequence by far
		e.lastRune = -1
		e.sgr()
		return
	}
	n := p.arg(0, 1)
	last := e.lastRune
	e.lastRune = -1 // REP repeats only a character printed right before it
	switch final {
	case '@': // ICH (with a pending wrap the cursor is past the line: no-op)
		if e.cur.wrapPending {
			break
		}
		e.insertCells(e.scr.row(e.cur.row), e.cur.col, min(n, e.cols))
	case 'A': // CUU
		e.moveRows(-min(n, e.rows))
	case 'B', 'e': // CUD, VPR
		e.moveRows(min(n, e.rows))
	case 'C', 'a': // CUF, HPR
		e.moveTo(e.cur.row, e.cur.col+min(n, e.cols))
	case 'D': // CUB (from a pending wrap, counted from past the last column, as tmux does)
		e.moveTo(e.cur.row, e.effCol()-min(n, e.cols))
	case 'E': // CNL
		e.moveRows(min(n, e.rows))
		e.cur.col = 0
	case 'F': // CPL
		e.moveRows(-min(n, e.rows))
		e.cur.col = 0
	case 'G', '`': // CHA, HPA
		e.moveTo(e.cur.row, min(n, e.cols)-1)
	case 'H', 'f': // CUP, HVP
		e.moveToOrigin(min(n, e.rows)-1, min(p.arg(1, 1), e.cols)-1)
	case 'I': // CHT
		e.tabForward(n)
	case 'J': // ED
		e.eraseDisplay(p.arg0(0))
	case 'K': // EL
		e.eraseLine(p.arg0(0))
	case 'L': // IL
		e.insertLines(n)
	case 'M': // DL
		e.deleteLines(n)
	case 'P': // DCH
		if e.cur.wrapPending {
			break
		}
		e.deleteCells(min(n, e.cols))
	case 'S': // SU
		if p.nparams <= 1 {
			e.scrollUp(min(n, e.rows))
		}
	case 'T': // SD (with more parameters it is a mouse-tracking request)
		if p.nparams <= 1 {
			e.scrollDown(min(n, e.rows))
		}
	case 'X': // ECH
		if e.cur.wrapPending {
			break
		}
		e.scr.eraseCells(e.cur.row, e.cur.col, e.cur.col+min(n, e.cols), e.cur.pen.bg)
	case 'Z': // CBT
		e.tabBackward(n)
	case 'b': // REP
		e.repeat(last, n)
		e.lastRune = -1
	case 'c': // DA1
		if p.arg0(0) == 0 {
			e.answer(append(e.answerBuf, daPrimary...))
		}
	case 'd': // VPA: the column, and a pending wrap, stay (as in tmux)
		pending := e.cur.wrapPending
		e.moveToOrigin(min(n, e.rows)-1, e.cur.col)
		e.cur.wrapPending = pending
	case 'g': // TBC
		e.clearTabs(p.arg0(0))
	case 'h', 'l': // SM, RM
		e.setANSIModes(final == 'h')
	case 'n':
		e.deviceStatus(false)
	case 'r': // DECSTBM
		e.setRegion(p.arg(0, 1), p.arg(1, e.rows))
	case 's': // SCOSC
		e.saveCursor()
	case 't':
		e.windowOp(p.arg0(0))
	case 'u': // SCORC
		e.restoreCursor()
	}
}

// csiPrivate runs the sequences with a private marker or intermediates.
func (e *Engine) csiPrivate(final byte) {
	p := &e.p
	e.lastRune = -1
	var inter byte
	if p.ninter == 1 {
		inter = p.inter[0]
	} else if p.ninter > 1 {
		return
	}
	switch {
	case p.prefix == '?' && inter == 0:
		switch final {
		case 'h', 'l':
			e.setDECModes(final == 'h')
		case 'J': // DECSED, taken as ED
			e.eraseDisplay(p.arg0(0))
		case 'K': // DECSEL, taken as EL
			e.eraseLine(p.arg0(0))
		case 'n':
			e.deviceStatus(true)
		}
		// CSI ? u (kitty keyboard query) is deliberately not answered.
	case p.prefix == '>' && inter == 0:
		switch final {
		case 'c': // DA2
			if p.arg0(0) == 0 {
				e.answer(append(e.answerBuf, daSecondary...))
			}
		case 'q': // XTVERSION
			if p.arg0(0) == 0 {
				e.answer(appendXTVERSION(e.answerBuf, e.version))
			}
		}
	case p.prefix == 0 && inter == ' ' && final == 'q': // DECSCUSR
		if ps := p.arg0(0); ps <= 6 {
			e.mode.cursorStyle = ps
		}
	case p.prefix == 0 && inter == '!' && final == 'p': // DECSTR
		e.softReset()
	case inter == '$' && final == 'p' && (p.prefix == 0 || p.prefix == '?'): // DECRQM
		e.reportMode(p.arg0(0), p.prefix == '?')
	}
}

// effCol is the cursor column erase operations start from: one past the
// last column while a wrap is pending (tmux's model, where the cursor
// really sits there).
func (e *Engine) effCol() int {
	if e.cur.wrapPending {
		return e.cols
	}
	return e.cur.col
}

func (e *Engine) eraseDisplay(mode int) {
	bg := e.cur.pen.bg
	row, col := e.cur.row, e.effCol()
	switch mode {
	case 0:
		e.scr.eraseCells(row, col, e.cols, bg)
		for i := row + 1; i < e.rows; i++ {
			e.scr.eraseCells(i, 0, e.cols, bg)
		}
		e.scr.line(row).wrapped = false
		e.work += uint64(e.rows - row)
	case 1:
		for i := range row {
			e.scr.eraseCells(i, 0, e.cols, bg)
			e.scr.line(i).wrapped = false
		}
		e.scr.eraseCells(row, 0, col+1, bg)
		e.work += uint64(row + 1)
	case 2:
		for i := range e.rows {
			e.scr.eraseCells(i, 0, e.cols, bg)
			e.scr.line(i).wrapped = false
		}
		e.work += uint64(e.rows)
	case 3:
		if !e.altActive {
			e.sb.reset()
		}
	}
}

func (e *Engine) eraseLine(mode int) {
	bg := e.cur.pen.bg
	switch mode {
	case 0:
		e.scr.eraseCells(e.cur.row, e.effCol(), e.cols, bg)
		e.scr.line(e.cur.row).wrapped = false
	case 1:
		e.scr.eraseCells(e.cur.row, 0, e.effCol()+1, bg)
	case 2:
		e.scr.eraseCells(e.cur.row, 0, e.cols, bg)
		e.scr.line(e.cur.row).wrapped = false
	}
	e.work++
}

// insertCells shifts cells right from col by n (ICH, insert mode),
// dropping what passes the right edge.
func (e *Engine) insertCells(row []cell, col, n int) {
	n = min(n, e.cols-col)
	if n <= 0 {
		return
	}
	splitWide(row, col)
	copy(row[col+n:], row[col:e.cols-n])
	fill(row[col:col+n], blankCell(e.cur.pen.bg))
	fixLastCell(row)
	e.work += uint64(e.cols - col)
}

// deleteCells is DCH: remove n cells at the cursor, shifting the rest left.
func (e *Engine) deleteCells(n int) {
	row := e.scr.row(e.cur.row)
	col := e.cur.col
	n = min(n, e.cols-col)
	splitWide(row, col)
	splitWide(row, col+n)
	copy(row[col:], row[col+n:])
	fill(row[e.cols-n:], blankCell(e.cur.pen.bg))
	e.work += uint64(e.cols - col)
}

// insertLines is IL: inside the scroll region only (outside it xterm
// ignores it and tmux is erratic). The cursor does not move, as in tmux.
func (e *Engine) insertLines(n int) {
	if e.cur.row < e.top || e.cur.row > e.bot {
		return
	}
	e.work += uint64(e.scr.scrollDown(e.cur.row, e.bot, min(n, e.rows), e.cur.pen.bg))
}

// deleteLines is DL (see insertLines); nothing goes to scrollback.
func (e *Engine) deleteLines(n int) {
	if e.cur.row < e.top || e.cur.row > e.bot {
		return
	}
	e.work += uint64(e.scr.scrollUp(e.cur.row, e.bot, min(n, e.rows), e.cur.pen.bg, nil, &e.ct))
}

// repeat is REP: the ASCII character printed just before it (r, -1 for
// none) n more times, clamped (as tmux does) to the cells left on the
// line.
func (e *Engine) repeat(r rune, n int) {
	if r < 0 {
		return
	}
	n = min(n, e.cols-e.cur.col)
	e.work += uint64(n)
	b := [1]byte{byte(r)}
	for range n {
		e.printASCII(b[:])
	}
}

// setRegion is DECSTBM (1-based, inclusive); the cursor goes home.
func (e *Engine) setRegion(top, bot int) {
	top, bot = min(top, e.rows), min(bot, e.rows)
	if top >= bot {
		return
	}
	e.top, e.bot = top-1, bot-1
	e.moveTo(0, 0) // the absolute home, even in origin mode, as tmux does
}

// softReset is DECSTR.
func (e *Engine) softReset() {
	e.mode.insert = false
	e.mode.autowrap = true
	e.mode.cursorVisible = true
	e.mode.appCursor = false
	e.mode.appKeypad = false
	e.top, e.bot = 0, e.rows-1
	e.cur.pen = pen{}
	e.cur.origin = false
	e.cur.charsets = [2]charset{}
	e.cur.gl = 0
	e.cur.wrapPending = false
	e.saved = savedCursor{}
}

// csiFast parses the plain-parameter part of a CSI sequence starting at
// b[i] in one loop, with the current parameter in a register, and
// dispatches it when its final byte follows. It stops (handing its state
// to the state machine) at anything else: a private marker, an
// intermediate, a ':', a control, the end of b. Its callers have tried
// shortSGR at b[i] already.
func (e *Engine) csiFast(b []byte, i int) int {
	p := &e.p
	start := i
	seq := b[:min(len(b), i+maxCSILen)]
	n := 0
	var v uint64
	has := false
	for ; i < len(seq); i++ {
		c := seq[i]
		if d := c - '0'; d < 10 {
			v = min(v*10+uint64(d), 1<<40)
			has = true
			continue
		}
		if c == ';' && n+1 < maxParams {
			p.params[n] = int32(min(v, maxParamVal))
			p.badInter = p.badInter || v > 1<<31-1
			n++
			v, has = 0, true
			continue
		}
		if c >= 0x40 && c < 0x7F {
			if has {
				p.params[n] = int32(min(v, maxParamVal))
				p.badInter = p.badInter || v > 1<<31-1
				n++
			}
			p.nparams, p.hasParam = n, has
			p.state = stGround
			if c == 'm' && !p.badInter {
				// SGR, the most frequent sequence by far: Write cleared
				// the sequence, so it has no private marker,
				// intermediate or sub-parameter.
				e.lastRune = -1
				if n == 1 && v < uint64(len(sgrOps)) && sgrOps[v].kind == sgrSimple {
					sgrOps[v].apply(&e.cur.pen) // one code, as most SGRs
				} else {
					e.plainSGR()
				}
			} else {
				e.csiDispatch(c)
			}
			return i + 1
		}
		break
	}
	if has {
		p.params[n] = int32(min(v, maxParamVal))
		p.badInter = p.badInter || v > 1<<31-1
		p.nparams, p.hasParam, p.raw = n+1, true, v
		p.state = stCSIParam
	}
	p.seqLen = i - start
	return i
}

// shortSGR recognizes the commonest sequence of all at b[i:], just after
// its "ESC [": an SGR of one code of one or two digits ("\x1b[0m",
// "\x1b[32m"), which goes straight to the table: alone, without
// sub-parameters, even the codes sgrFrom reads further (4, 38, 48, 58)
// do what their entry does. It returns the code and the index after the
// final 'm'.
func shortSGR(b []byte, i int) (v, next int, ok bool) {
	if i+2 >= len(b) || b[i]-'0' >= 10 {
		return 0, 0, false
	}
	// One digit or two, without a branch: which it is follows the
	// output's colors, not a pattern a predictor learns.
	d := int(b[i+1] - '0')
	two := (d - 10) >> 63 // -1 when b[i+1] is a digit, else 0
	v = int(b[i]-'0')*(1-9*two) + d&two
	next = i + 2 - two
	return v, next, b[next-1] == 'm'
}

func (e *Engine) csiByte(c byte) {
	p := &e.p
	if c < 0x20 {
		e.execute(c) // C0 inside CSI is executed; the sequence goes on
		return
	}
	if p.seqLen++; p.seqLen > maxCSILen && p.state != stCSIIgnore {
		p.state = stCSIIgnore
	}
	switch p.state {
	case stCSIIgnore:
		if c >= 0x40 && c < 0x7F {
			p.state = stGround
		}
	case stCSIEntry, stCSIParam:
		switch {
		case c >= '0' && c <= ';':
			e.param(c)
			p.state = stCSIParam
		case c >= '<' && c <= '?':
			if p.state == stCSIEntry {
				p.prefix = c
				p.state = stCSIParam
			} else {
				p.state = stCSIIgnore
			}
		case c < 0x30:
			e.collect(c)
			p.state = stCSIInter
		case c < 0x7F:
			p.state = stGround
			e.csiDispatch(c)
		}
	case stCSIInter:
		switch {
		case c < 0x30:
			e.collect(c)
		case c < 0x40:
			p.state = stCSIIgnore
		case c < 0x7F:
			p.state = stGround
			e.csiDispatch(c)
		}
	}
}
