package engine

// reflow rewraps the primary screen and its scrollback to a new width:
// rows joined by soft wraps form logical lines, which are cut again at
// cols (a wide glyph that would straddle the edge moves to the next row).
// The cursor keeps its place in its logical line. The row count does not
// change here; Resize adjusts it afterwards. Resize calls it only while
// the primary screen is active and both widths are at least 2.
func (e *Engine) reflow(cols int) {
	logical, curLine, target := e.logicalLines()
	if e.cur.wrapPending {
		target++ // the cursor waits after the character at the edge
	}
	// Blanks up to the cursor stay (a prompt's trailing space is
	// content; tmux knows which cells were written, the engine does not).
	if l := logical[curLine]; target > len(l) {
		for range target - len(l) {
			l = append(l, cell{c: ' '})
		}
		logical[curLine] = l
	}
	var rows []line
	curRow, curCol, pending := 0, 0, false
	for li, cells := range logical {
		start := 0
		for {
			n := min(cols, len(cells)-start)
			if n == cols && start+n < len(cells) && cells[start+n-1].c&wideBit != 0 {
				n-- // the glyph would straddle the edge: it moves down
			}
			row := line{cells: make([]cell, cols), n: cols, fill: cell{c: ' '}}
			copy(row.cells, cells[start:start+n])
			fill(row.cells[n:], cell{c: ' '})
			if li == curLine && target >= start && target < start+n {
				curRow, curCol = len(rows), target-start
			}
			row.wrapped = start+n < len(cells)
			rows = append(rows, row)
			e.work += uint64(cols)
			if !row.wrapped {
				if li == curLine && target == len(cells) {
					// After the content: on its last row, or waiting at
					// the edge when that row is full.
					curRow, curCol = len(rows)-1, n
					if n == cols {
						curCol, pending = cols-1, true
					}
				}
				break
			}
			start += n
		}
	}
	e.placeReflowed(rows, curRow, curCol, pending, cols)
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
			// Trailing blanks go, whatever their background (tmux
			// drops them too).
			end := len(cells)
			for end > 0 && cells[end-1].c == ' ' && cells[end-1].fg == 0 {
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

// placeReflowed puts reflowed rows back onto a new primary buffer, the
// rows above it into scrollback. The cursor stays on its screen row when
// there is enough content above it (tmux keeps it so); otherwise the
// content starts at the top.
func (e *Engine) placeReflowed(rows []line, curRow, curCol int, pending bool, cols int) {
	start := max(0, curRow-e.cur.row)
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
	e.cur.row, e.cur.col, e.cur.wrapPending = curRow-start, curCol, pending
}
