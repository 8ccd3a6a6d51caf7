package engine

// resetTabs sets a tab stop every 8 columns.
func (e *Engine) resetTabs() {
	if len(e.tabs) != e.cols {
		e.tabs = make([]bool, e.cols)
	}
	for i := range e.tabs {
		e.tabs[i] = i > 0 && i%8 == 0
	}
}

// tabForward moves to the n-th next tab stop (or the last column); n is
// clamped to the width so the scan is O(cols).
func (e *Engine) tabForward(n int) {
	if e.cur.wrapPending {
		return // past the last column already, as tmux sees it
	}
	col := e.cur.col
	for n = min(n, e.cols); n > 0 && col < e.cols-1; n-- {
		col++
		for col < e.cols-1 && !e.tabs[col] {
			col++
		}
	}
	e.work += uint64(col - e.cur.col)
	e.cur.col = col
}

// tabBackward moves to the n-th previous tab stop (or column 0).
func (e *Engine) tabBackward(n int) {
	e.cur.wrapPending = false
	col := e.cur.col
	for n = min(n, e.cols); n > 0 && col > 0; n-- {
		col--
		for col > 0 && !e.tabs[col] {
			col--
		}
	}
	e.work += uint64(e.cur.col - col)
	e.cur.col = col
}

// clearTabs is TBC: 0 clears the stop at the cursor, 3 clears all.
func (e *Engine) clearTabs(mode int) {
	switch mode {
	case 0:
		e.tabs[e.cur.col] = false
	case 3:
		clear(e.tabs)
		e.work += uint64(e.cols)
	}
}
