package engine

import (
	"unicode/utf8"

	"github.com/ptyhost/ptyhost/attachwire"
)

// Resize changes the grid size, keeping content: columns are cut or
// padded (no reflow); when rows shrink, blank rows below the cursor go
// first, then top rows move into scrollback; when rows grow, lines come
// back from scrollback, as tmux does. Sizes are clamped to [1, max].
func (e *Engine) Resize(cols, rows, pxWidth, pxHeight int) {
	cols = min(max(cols, 1), maxCols)
	rows = min(max(rows, 1), maxRows)
	e.pxW, e.pxH = max(pxWidth, 0), max(pxHeight, 0)
	if cols == e.cols && rows == e.rows {
		return
	}
	shift := e.resizePrimary(cols, rows)
	if e.altActive {
		e.altReturnRow = min(max(e.altReturnRow+shift, 0), rows-1)
		e.altReturnCol = min(e.altReturnCol, cols-1)
		e.alt = e.resized(e.alt, cols, rows, 0)
		e.scr = e.alt
	} else {
		e.cur.row += shift
		e.alt = nil
		e.scr = e.prim
	}
	for _, s := range [...]*savedCursor{&e.saved, &e.altSaved} {
		s.row = min(max(s.row+shift, 0), rows-1)
		s.col = min(s.col, cols-1)
	}
	e.cols, e.rows = cols, rows
	e.cur.row = min(max(e.cur.row, 0), rows-1)
	if e.cur.col >= cols {
		e.cur.col = cols - 1
	}
	if e.cur.wrapPending && e.cur.col != cols-1 {
		e.cur.wrapPending = false
	}
	e.top, e.bot = 0, rows-1
	e.resizeTabs(cols)
	e.ct.next = max(e.ct.next, 2*len(e.ct.strs)+e.clusterBudget())
}

// resizePrimary resizes the primary buffer and returns how far its content
// moved down (negative: up).
func (e *Engine) resizePrimary(cols, rows int) int {
	old := e.prim
	cursorRow := e.cur.row
	if e.altActive {
		cursorRow = e.altReturnRow
	}
	shift := 0
	switch {
	case rows < old.rows:
		excess := old.rows - rows
		// Blank rows below the cursor go first.
		for r := old.rows - 1; excess > 0 && r > cursorRow && isBlankRow(old.row(r)); r-- {
			excess--
		}
		for i := range excess {
			e.sb.push(old.line(i), &e.ct)
		}
		shift = -excess
	case rows > old.rows:
		shift = min(rows-old.rows, e.sb.len())
	}
	nb := newBuffer(cols, rows)
	for i := range shift {
		cells, enc, wrapped, _ := e.sb.popNewest()
		dst := nb.line(shift - 1 - i)
		if cells != nil {
			copyRow(dst, &line{cells: cells, n: len(cells), wrapped: wrapped})
		} else {
			e.cellsFromLine(dst.cells, enc)
			dst.n = len(dst.cells)
			dst.wrapped = wrapped
		}
	}
	for r := range rows {
		src := r - max(shift, 0) - min(shift, 0)
		if r < shift || src < 0 || src >= old.rows {
			continue
		}
		old.row(src) // materialize
		copyRow(nb.line(r), old.line(src))
	}
	e.prim = nb
	return shift
}

// resized copies a buffer into a new size, keeping the top rows.
func (e *Engine) resized(old *buffer, cols, rows int, shift int) *buffer {
	nb := newBuffer(cols, rows)
	for r := range min(rows, old.rows) {
		old.row(r + shift) // materialize
		copyRow(nb.line(r), old.line(r+shift))
	}
	return nb
}

func copyRow(dst, src *line) {
	n := copy(dst.cells, src.cells[:src.n])
	if n < src.n {
		fixLastCell(dst.cells[:n])
	}
	dst.n = len(dst.cells) // the rest was blank already
	dst.wrapped = src.wrapped && n == len(src.cells)
}

func isBlankRow(cells []cell) bool {
	for _, c := range cells {
		if c != (cell{c: ' '}) {
			return false
		}
	}
	return true
}

// cellsFromLine decodes an encoded scrollback line back into grid cells,
// interning its clusters.
func (e *Engine) cellsFromLine(dst []cell, b []byte) {
	var tmp [1]attachwire.Cell
	i := 0
	var cur attachwire.Cell
	for len(b) > 0 && i < len(dst) {
		if b[0] == sbAttr {
			if len(b) < 2 {
				return
			}
			cur.Style = attachwire.Style(b[1])
			cur.Fg, b = readColor(b[2:])
			cur.Bg, b = readColor(b)
			continue
		}
		var n int
		c := cell{c: uint32(cur.Style) << styleShift, fg: cur.Fg, bg: cur.Bg}
		switch b[0] {
		case sbCont:
			c.c = contStyle
			if i > 0 {
				dst[i-1].c |= wideBit
			}
			n = 1
		case sbCluster:
			if len(b) < 2 || len(b) < 2+int(b[1]) {
				return
			}
			n = 2 + int(b[1])
			c.c |= clusterBit | e.ct.intern(b[2:n])
		default:
			r, size := utf8.DecodeRune(b)
			c.c |= uint32(r)
			n = size
		}
		dst[i] = c
		i++
		b = b[n:]
	}
	_ = tmp
	fixLastCell(dst[:i])
}

func (e *Engine) resizeTabs(cols int) {
	tabs := make([]bool, cols)
	for i := range tabs {
		if i < len(e.tabs) {
			tabs[i] = e.tabs[i]
		} else {
			tabs[i] = i%8 == 0
		}
	}
	e.tabs = tabs
}
