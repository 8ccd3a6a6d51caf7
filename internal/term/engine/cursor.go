package engine

import "github.com/ptyhost/ptyhost/attachwire"

// moveTo puts the cursor at an absolute position, clamped to the screen,
// and clears a pending wrap.
func (e *Engine) moveTo(row, col int) {
	e.cur.row = min(max(row, 0), e.rows-1)
	e.cur.col = min(max(col, 0), e.cols-1)
	e.cur.wrapPending = false
}

// moveToOrigin handles CUP/HVP/VPA rows: relative to the scroll region and
// confined to it in origin mode.
func (e *Engine) moveToOrigin(row, col int) {
	if e.cur.origin {
		row = min(max(row+e.top, e.top), e.bot)
	}
	e.moveTo(row, col)
}

// moveRows moves the cursor up (n < 0) or down, stopping at the scroll
// region's edge when the cursor starts inside it.
func (e *Engine) moveRows(n int) {
	row := e.cur.row + n
	switch {
	case n < 0 && e.cur.row >= e.top:
		row = max(row, e.top)
	case n > 0 && e.cur.row <= e.bot:
		row = min(row, e.bot)
	}
	e.moveTo(row, e.cur.col)
}

// index moves down one line, scrolling the region when at its bottom.
func (e *Engine) index() { e.indexBg(e.cur.pen.bg) }

// indexBg is index with the background a scrolled-in line gets: the pen's
// for LF and IND, the default for an autowrap (tmux does so).
func (e *Engine) indexBg(bg attachwire.Color) {
	switch {
	case e.cur.row == e.bot && e.top == 0 && e.bot == e.rows-1:
		// The usual line feed: the whole screen scrolls by one.
		var sb *scrollback
		if !e.altActive {
			sb = &e.sb
		}
		e.scr.scrollOne(bg, sb, &e.ct)
		e.work++
	case e.cur.row == e.bot:
		e.scrollUpBg(1, bg)
	case e.cur.row < e.rows-1:
		e.cur.row++
	}
}

// reverseIndex moves up one line, scrolling the region down at its top.
func (e *Engine) reverseIndex() {
	switch {
	case e.cur.row == e.top:
		e.scrollDown(1)
	case e.cur.row > 0:
		e.cur.row--
	}
}

// scrollUp scrolls the region up by n lines (n ≤ its height); lines leave
// the primary screen into scrollback when the region starts at the top.
func (e *Engine) scrollUp(n int) { e.scrollUpBg(n, e.cur.pen.bg) }

func (e *Engine) scrollUpBg(n int, bg attachwire.Color) {
	var sb *scrollback
	if !e.altActive && e.top == 0 {
		sb = &e.sb
	}
	e.work += uint64(e.scr.scrollUp(e.top, e.bot, n, bg, sb, &e.ct))
}

func (e *Engine) scrollDown(n int) {
	e.work += uint64(e.scr.scrollDown(e.top, e.bot, n, e.cur.pen.bg))
}

// backspace moves left; from a pending wrap it only cancels the wrap (the
// cursor was past the last column, as tmux sees it).
func (e *Engine) backspace() {
	if e.cur.wrapPending {
		e.cur.wrapPending = false
		return
	}
	if e.cur.col > 0 {
		e.cur.col--
	}
}

// saveCursor is DECSC: position, pen, pending wrap, origin mode and
// charsets go into the one save slot, shared by both screens (tmux keeps
// it with the parser, not the screen).
func (e *Engine) saveCursor() {
	e.saved = savedCursor{cursor: e.cur, valid: true}
}

// restoreCursor is DECRC; without a saved state it homes the cursor and
// resets the pen.
func (e *Engine) restoreCursor() {
	e.restoreFrom(e.saved)
}

func (e *Engine) restoreFrom(s savedCursor) {
	if !s.valid {
		e.cur.pen = pen{}
		e.cur.origin = false
		e.cur.charsets, e.cur.gl = [2]charset{}, 0
		e.moveTo(0, 0)
		return
	}
	e.cur = s.cursor
	e.cur.row = min(e.cur.row, e.rows-1)
	e.cur.col = min(e.cur.col, e.cols-1)
	e.cur.wrapPending = false // tmux restores onto the last column
}
