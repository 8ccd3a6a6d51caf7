package engine

import "slices"

// Reflow rewraps the screen and the scrollback lines kept as cells (the
// rawLines newest, see scrollback), nothing older: a resize then costs
// O(cols·(rows+rawLines)) time and memory however long the scrollback
// is, and touches no encoded line. Encoded lines keep the width they
// were written at (a Screen's scrollback lines may be shorter or longer
// than Cols); a logical line that began in one is rewrapped from its
// first raw row on.

// reflow rewraps the primary screen and its raw scrollback to a new
// width: rows joined by soft wraps form logical lines, which are cut
// again at cols (a wide glyph that would straddle the edge moves to the
// next row). The cursor keeps its place in its logical line. The row
// count does not change here; Resize adjusts it afterwards. Resize calls
// it only while the primary screen is active and both widths are at
// least 2.
func (e *Engine) reflow(cols int) {
	cells, ends, curLine, target := e.logicalLines()
	// At most ceil(len/(cols-1)) rows a line: a row loses at most one
	// cell to a wide glyph moving down.
	est := len(cells)/(cols-1) + len(ends) + 1
	out := make([]cell, 0, est*cols)
	wrapped := make([]bool, 0, est)
	curRow, curCol, pending := 0, 0, false
	lineStart := 0
	for li, end := range ends {
		lc := cells[lineStart:end]
		lineStart = end
		start := 0
		for {
			n := min(cols, len(lc)-start)
			if n == cols && start+n < len(lc) && lc[start+n-1].c&wideBit != 0 {
				n-- // the glyph would straddle the edge: it moves down
			}
			out = slices.Grow(out, cols)
			row := out[len(out) : len(out)+cols]
			out = out[:len(out)+cols]
			copy(row, lc[start:start+n])
			fill(row[n:], cell{c: ' '})
			if li == curLine && target >= start && target < start+n {
				curRow, curCol = len(wrapped), target-start
			}
			w := start+n < len(lc)
			wrapped = append(wrapped, w)
			e.work += uint64(cols)
			if !w {
				if li == curLine && target == len(lc) {
					// After the content: on its last row, or waiting at
					// the edge when that row is full.
					curRow, curCol = len(wrapped)-1, n
					if n == cols {
						curCol, pending = cols-1, true
					}
				}
				break
			}
			start += n
		}
	}
	e.placeReflowed(out, wrapped, curRow, curCol, pending, cols)
}

// logicalLines joins the raw scrollback and the screen (down to the
// cursor or the last row with content) into logical lines, stored one
// after another in cells, line i ending at ends[i]; trailing blanks of
// each are dropped, except up to the cursor. It says where the cursor
// is: line index and cell offset (after the character at the edge when
// a wrap is pending).
func (e *Engine) logicalLines() (cells []cell, ends []int, curLine, target int) {
	old := e.prim
	last := e.cur.row
	for r := old.rows - 1; r > last; r-- {
		if !isBlankRow(old.row(r)) {
			last = r
			break
		}
	}
	n := old.cols * (last + 1)
	for i := range e.sb.rawN {
		n += len(e.sb.raw[ringIndex(e.sb.rawStart, i, len(e.sb.raw))].cells)
	}
	cells = make([]cell, 0, n+old.cols)
	ends = make([]int, 0, e.sb.rawN+last+1)
	lineStart := 0
	curLine = -1
	add := func(l *line, wrapped bool) {
		rowStart := len(cells)
		cells = appendLine(cells, l)
		if k := len(cells); wrapped && k > rowStart && cells[k-1].c&padBit != 0 {
			cells = cells[:k-1] // padding before a wrapped wide glyph
		}
		if wrapped {
			return
		}
		// Trailing blanks go, whatever their background (tmux drops
		// them too).
		end := len(cells)
		for end > rowStart && cells[end-1].c == ' ' && cells[end-1].fg == 0 {
			end--
		}
		cells = cells[:end]
		if len(ends) == curLine {
			// Blanks up to the cursor stay (a prompt's trailing space
			// is content; tmux knows which cells were written, the
			// engine does not).
			for len(cells) < lineStart+target {
				cells = append(cells, cell{c: ' '})
			}
		}
		ends = append(ends, len(cells))
		lineStart = len(cells)
	}
	for i := range e.sb.rawN {
		l := &e.sb.raw[ringIndex(e.sb.rawStart, i, len(e.sb.raw))]
		add(l, l.wrapped)
	}
	for r := 0; r <= last; r++ {
		if r == e.cur.row {
			curLine, target = len(ends), len(cells)-lineStart+e.cur.col
			if e.cur.wrapPending {
				target++ // the cursor waits after the character at the edge
			}
		}
		l := old.line(r)
		add(l, l.wrapped && r < last)
	}
	return cells, ends, curLine, target
}

// appendLine appends the cells of l, its implicit tail included.
func appendLine(dst []cell, l *line) []cell {
	n := min(l.n, len(l.cells))
	dst = append(dst, l.cells[:n]...)
	for range len(l.cells) - n {
		dst = append(dst, l.fill)
	}
	return dst
}

// placeReflowed puts reflowed rows (cols cells each in out) back onto a
// new primary buffer, the rows above it into raw scrollback, after the
// encoded lines. The cursor stays on its screen row when there is enough
// content above it (tmux keeps it so); otherwise the content starts at
// the top.
func (e *Engine) placeReflowed(out []cell, wrapped []bool, curRow, curCol int, pending bool, cols int) {
	row := func(i int) line {
		return line{cells: out[i*cols : (i+1)*cols : (i+1)*cols], n: cols, fill: cell{c: ' '}, wrapped: wrapped[i]}
	}
	start := max(0, curRow-e.cur.row)
	nb := newBuffer(cols, e.rows)
	for r := range e.rows {
		if start+r < len(wrapped) {
			l := row(start + r)
			copyRow(nb.line(r), &l)
		}
	}
	e.sb.resetRaw()
	for i := max(0, start-e.sb.max); i < start; i++ {
		e.sb.place(row(i), &e.ct)
	}
	e.prim, e.scr = nb, nb
	e.cur.row, e.cur.col, e.cur.wrapPending = curRow-start, curCol, pending
}
