package engine

// reflow rewraps the primary screen and its scrollback to a new width:
// rows joined by soft wraps form logical lines, which are cut again at
// cols (a wide glyph that would straddle the edge moves to the next row).
// The cursor keeps its place in its logical line. The row count does not
// change here; Resize adjusts it afterwards. Resize calls it only while
// the primary screen is active and both widths are at least 2.
func (e *Engine) reflow(cols int) {
	logical, curLine, curOff := e.logicalLines()
	if c := logical[curLine]; curOff >= len(c) {
		// The cursor sits past the line's content: keep its cell.
		logical[curLine] = append(c, blankRun(curOff+1-len(c))...)
	}
	var rows []line
	curRow, curCol := 0, 0
	for li, cells := range logical {
		for start := 0; ; {
			n := min(cols, len(cells)-start)
			if n == cols && start+n < len(cells) && cells[start+n-1].c&wideBit != 0 {
				n-- // the glyph would straddle the edge: it moves down
			}
			row := line{cells: make([]cell, cols), n: cols, fill: cell{c: ' '}}
			copy(row.cells, cells[start:start+n])
			fill(row.cells[n:], cell{c: ' '})
			if li == curLine && curOff >= start && curOff < start+n {
				curRow, curCol = len(rows), curOff-start
			}
			start += n
			row.wrapped = start < len(cells)
			rows = append(rows, row)
			e.work += uint64(cols)
			if !row.wrapped {
				break
			}
		}
	}
	e.placeReflowed(rows, curRow, curCol, cols)
}

func blankRun(n int) []cell {
	s := make([]cell, n)
	fill(s, cell{c: ' '})
	return s
}

// logicalLines joins scrollback and the screen (down to the cursor or the
// last row with content) into logical lines, trailing blanks of each
// dropped, and says where the cursor is: line index and cell offset.
func (e *Engine) logicalLines() (logical [][]cell, curLine, curOff int) {
	old := e.prim
	last := e.cur.row
	for r := old.rows - 1; r > last; r-- {
		if !isBlankRow(old.row(r)) {
			last = r
			break
		}
	}
	var cur []cell
	add := func(cells []cell, wrapped bool) {
		if n := len(cells); wrapped && n > 0 && cells[n-1].c&padBit != 0 {
			cells = cells[:n-1] // padding before a wrapped wide glyph
		}
		if !wrapped {
			end := len(cells)
			for end > 0 && cells[end-1] == (cell{c: ' '}) {
				end--
			}
			cells = cells[:end]
		}
		cur = append(cur, cells...)
		if !wrapped {
			logical = append(logical, cur)
			cur = nil
		}
	}
	for i := range e.sb.len() {
		if l := e.sb.rawLine(i); l != nil {
			tmp := line{cells: make([]cell, len(l.cells))}
			copyRow(&tmp, l)
			add(tmp.cells, l.wrapped)
			continue
		}
		_, enc, wrapped := e.sb.line(i)
		tmp := make([]cell, len(decodeLine(nil, enc)))
		e.cellsFromLine(tmp, enc)
		add(tmp, wrapped)
	}
	for r := 0; r <= last; r++ {
		if r == e.cur.row {
			curLine, curOff = len(logical), len(cur)+e.cur.col
		}
		add(append([]cell(nil), old.row(r)...), old.line(r).wrapped && r < last)
	}
	return logical, curLine, curOff
}

// placeReflowed puts reflowed rows back: the last screenful (keeping the
// cursor row on it) onto a new primary buffer, the rows above into
// scrollback.
func (e *Engine) placeReflowed(rows []line, curRow, curCol, cols int) {
	start := min(max(0, len(rows)-e.rows), curRow)
	nb := newBuffer(cols, e.rows)
	for r := range e.rows {
		if start+r < len(rows) {
			copyRow(nb.line(r), &rows[start+r])
		}
	}
	e.sb.reset()
	for i := max(0, start-e.sb.max); i < start; i++ {
		e.sb.push(&rows[i], &e.ct)
	}
	e.prim, e.scr = nb, nb
	e.cur.row = curRow - start
	switch {
	case !e.cur.wrapPending:
		e.cur.col = curCol
	case curCol == cols-1:
		e.cur.col = curCol // still waiting at the edge
	default:
		// The character the wrap was pending after is no longer at the
		// edge: the cursor goes right after it.
		e.cur.col, e.cur.wrapPending = curCol+1, false
	}
}
