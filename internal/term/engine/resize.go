package engine

import (
	"unicode/utf8"

	"github.com/ptyhost/ptyhost/attachwire"
)

// Resize changes the grid size, keeping content: a width change rewraps
// soft-wrapped lines of the primary screen and its scrollback (see
// reflow; the alternate screen is cut or padded); when rows shrink,
// blank rows below the cursor go first, then top rows move into
// scrollback; when rows grow, lines come back from scrollback, as tmux
// does. Sizes are clamped to [1, max].
func (e *Engine) Resize(cols, rows, pxWidth, pxHeight int) {
	cols = min(max(cols, 1), maxCols)
	rows = min(max(rows, 1), maxRows)
	e.pxW, e.pxH = max(pxWidth, 0), max(pxHeight, 0)
	if cols == e.cols && rows == e.rows {
		return
	}
	e.unspanAll()
	if cols != e.cols && !e.altActive && cols >= 2 && e.cols >= 2 {
		e.reflow(cols)
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
	// Popped lines interned clusters, reflowed rows left some: compact
	// the table for the new size (O(cols·(rows+rawLines)), as the
	// resize itself).
	e.collectClusters()
}

// unspanAll turns every row in span form, on the screens and in raw
// scrollback, back into cells: resizing and reflowing work on cells.
func (e *Engine) unspanAll() {
	for _, b := range [...]*buffer{e.prim, e.alt} {
		if b != nil {
			for i := range b.lines {
				b.unspan(&b.lines[i])
			}
		}
	}
	for i := range e.sb.raw {
		e.work += uint64(e.sb.raw[i].unspan())
	}
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
		raw, enc, wrapped, _ := e.sb.popNewest()
		dst := nb.line(shift - 1 - i)
		if raw != nil {
			copyRow(dst, raw)
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
		copyRow(nb.line(r), old.line(src))
	}
	e.prim = nb
	return shift
}

// resized copies a buffer into a new size, keeping the top rows.
func (e *Engine) resized(old *buffer, cols, rows int, shift int) *buffer {
	nb := newBuffer(cols, rows)
	for r := range min(rows, old.rows) {
		copyRow(nb.line(r), old.line(r+shift))
	}
	return nb
}

// copyRow copies src into a fresh row of another width: stored cells
// first (a wide glyph cut at the edge is blanked), then src's implicit
// fill up to src's width, then default blanks.
func copyRow(dst, src *line) {
	n := min(len(dst.cells), src.n)
	copy(dst.cells, src.cells[:n])
	if n < src.n {
		fixLastCell(dst.cells[:n])
	}
	w := min(len(dst.cells), len(src.cells))
	if n < w {
		fill(dst.cells[n:w], src.fill)
	}
	if w < len(dst.cells) {
		fill(dst.cells[w:], cell{c: ' '})
	}
	dst.n, dst.fill = len(dst.cells), cell{c: ' '}
	dst.wrapped = src.wrapped && len(dst.cells) >= len(src.cells)
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
// interning its clusters without collecting (dst is not in a buffer yet;
// Resize collects at its end). A cluster the full table cannot take
// becomes U+FFFD.
func (e *Engine) cellsFromLine(dst []cell, b []byte) {
	cells := decodeLine(nil, b)
	for i, c := range cells[:min(len(cells), len(dst))] {
		x := cell{c: uint32(c.Style) << styleShift, fg: c.Fg, bg: c.Bg}
		switch r, n := utf8.DecodeRuneInString(c.Content); {
		case c.Style&attachwire.StyleWideCont != 0:
			x.c = contStyle
			if i > 0 {
				dst[i-1].c |= wideBit
			}
		case n == len(c.Content):
			x.c |= uint32(r)
		default:
			if k, ok := e.ct.internString(c.Content); ok {
				x.c |= clusterBit | k
			} else {
				x.c |= replacementChar
			}
		}
		dst[i] = x
	}
	fixLastCell(dst[:min(len(cells), len(dst))])
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
