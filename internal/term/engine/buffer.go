package engine

import "github.com/ptyhost/ptyhost/attachwire"

// wideBit marks the base cell of a wide glyph (its right neighbour is the
// continuation cell). It lives below the style bits, so it never reaches
// a Screen.
const wideBit = 1 << 22

// padBit marks the blank left in the last column when a wide glyph did
// not fit there and wrapped: reflow drops it.
const padBit = 1 << 23

// line is one row of a buffer.
type line struct {
	cells []cell
	// n is how many leading cells are stored: cells[n:] all equal fill
	// whatever they hold, so clearing a line (in any background), a
	// DECALN or scrolling a fresh line in is O(1). row materializes a
	// line before random access.
	n    int
	fill cell
	// wrapped is set when printing wrapped from this line onto the next
	// (a soft wrap); it travels with the line into scrollback.
	wrapped bool
	// spanned marks the span form (span.go): the row is text styled by
	// spans, then fill; n is 0 and cells unused until extend turns it
	// back into cells. text and spans keep their capacity either way.
	spanned bool
	text    []byte
	spans   []span
}

// buffer is one screen (primary or alternate): a ring of rows. Logical row
// i is lines[(top+i) mod rows]; a full-screen scroll only advances top.
type buffer struct {
	lines      []line
	top        int
	cols, rows int
	// scratch holds row headers while a scroll region is rotated.
	scratch []line
	// blank is a row of default blanks: clearing copies it (a memmove).
	blank []cell
	// work counts cells touched, for the engine's work bound.
	work uint64
}

func newBuffer(cols, rows int) *buffer {
	b := &buffer{cols: cols, rows: rows, lines: make([]line, rows), scratch: make([]line, rows)}
	backing := make([]cell, cols*(rows+1))
	for i := range backing {
		backing[i] = cell{c: ' '}
	}
	b.blank = backing[cols*rows:]
	for i := range b.lines {
		b.lines[i] = line{cells: backing[i*cols : (i+1)*cols : (i+1)*cols], fill: cell{c: ' '}}
	}
	return b
}

// phys maps a logical row to its index in lines.
func (b *buffer) phys(i int) int {
	j := b.top + i
	if j >= b.rows {
		j -= b.rows
	}
	return j
}

func (b *buffer) line(i int) *line { return &b.lines[b.phys(i)] }

// row returns the cells of logical row i, materialized for random access.
func (b *buffer) row(i int) []cell {
	l := &b.lines[b.phys(i)]
	b.materialize(l)
	return l.cells
}

// materialize stores the implicit cells of l.
func (b *buffer) materialize(l *line) {
	b.extend(l, len(l.cells))
}

// extend stores l's implicit cells up to column to, turning a row in
// span form back into cells first.
func (b *buffer) extend(l *line, to int) {
	b.unspan(l)
	if l.n < to {
		b.work += uint64(to - l.n)
		b.fillWith(l.cells[l.n:to], l.fill)
		l.n = to
	}
}

// fillWith sets every cell of dst to c; the default blank is a memmove.
func (b *buffer) fillWith(dst []cell, c cell) {
	if len(dst) <= 4 {
		fill(dst, c) // printing stores a glyph's cell or two: no memmove call
		return
	}
	if c == (cell{c: ' '}) && len(dst) <= len(b.blank) {
		copy(dst, b.blank)
		return
	}
	fill(dst, c)
}

// clearLine blanks a whole line in background bg: O(1).
func (b *buffer) clearLine(l *line, bg attachwire.Color) {
	l.wrapped = false
	l.n = 0
	l.spanned = false
	l.fill = blankCell(bg)
}

func fill(cells []cell, c cell) {
	for i := range cells {
		cells[i] = c
	}
}

// fillBlank blanks cells in background bg.
func (b *buffer) fillBlank(cells []cell, bg attachwire.Color) {
	b.fillWith(cells, blankCell(bg))
}

// clear blanks every row.
func (b *buffer) clear(bg attachwire.Color) {
	for i := range b.lines {
		b.clearLine(&b.lines[i], bg)
	}
	b.work += uint64(len(b.lines))
}

// splitWide makes sure no wide glyph straddles the boundary before column
// at: a glyph cut in two by an edit is blanked on both halves, each
// keeping its background (tmux does so for erases and shifts).
func splitWide(row []cell, at int) {
	if at <= 0 || at >= len(row) || !row[at].isCont() {
		return
	}
	row[at-1] = blankCell(row[at-1].bg)
	row[at] = blankCell(row[at].bg)
}

// splitWideDefault is splitWide for printing over half a glyph: tmux
// blanks the other half in the default background.
func splitWideDefault(row []cell, at int) {
	if at <= 0 || at >= len(row) || !row[at].isCont() {
		return
	}
	row[at-1] = cell{c: ' '}
	row[at] = cell{c: ' '}
}

// fixLastCell blanks a wide base left in the last column without its
// continuation (after cells were shifted right).
func fixLastCell(row []cell) {
	if n := len(row); n > 0 && row[n-1].c&wideBit != 0 {
		row[n-1] = cell{c: ' '}
	}
}

// eraseCells blanks cells [from, to) of row r.
func (b *buffer) eraseCells(r, from, to int, bg attachwire.Color) {
	from, to = max(from, 0), min(to, b.cols)
	if from >= to {
		return
	}
	if l := b.line(r); to == b.cols {
		// Erasing to the end only changes the implicit part: O(1), or
		// O(from - n) when the cells before from were implicit in
		// another fill.
		if l.spanned && from <= len(l.text) {
			l.truncate(from)
		} else if from < l.n {
			splitWide(l.cells, from)
			l.n = from
		} else if nf := blankCell(bg); nf != l.fill {
			b.extend(l, from)
		}
		l.fill = blankCell(bg)
		b.work++
		return
	}
	row := b.row(r)
	splitWide(row, from)
	splitWide(row, to)
	b.work += uint64(to - from)
	b.fillBlank(row[from:to], bg)
}

// scrollUp moves rows top..bot (inclusive) up by n, blanking the n rows
// that enter at the bottom. Rows leaving the top go to sb when it is not
// nil. It rotates row headers only: O(rows) plus O(cols) per blanked row.
func (b *buffer) scrollUp(top, bot, n int, bg attachwire.Color, sb *scrollback, ct *clusters) int {
	n = min(n, bot-top+1)
	if n <= 0 {
		return 0
	}
	if top == 0 && bot == b.rows-1 {
		for range n {
			l := &b.lines[b.top]
			if sb != nil {
				sb.push(l, ct)
			}
			b.clearLine(l, bg)
			b.top++
			if b.top == b.rows {
				b.top = 0
			}
		}
		return n
	}
	for i := range n {
		l := b.line(top + i)
		if sb != nil {
			sb.push(l, ct)
		}
		b.clearLine(l, bg)
	}
	b.rotate(top, bot, n)
	return n
}

// scrollOne is scrollUp(0, rows-1, 1, bg, sb, ct), what a line feed at
// the bottom of the screen does, in one short call.
func (b *buffer) scrollOne(bg attachwire.Color, sb *scrollback, ct *clusters) {
	l := &b.lines[b.top]
	if sb != nil {
		sb.push(l, ct)
	}
	b.clearLine(l, bg)
	if b.top++; b.top == b.rows {
		b.top = 0
	}
}

// scrollDown moves rows top..bot down by n, blanking the n rows that enter
// at the top.
func (b *buffer) scrollDown(top, bot, n int, bg attachwire.Color) int {
	n = min(n, bot-top+1)
	if n <= 0 {
		return 0
	}
	h := bot - top + 1
	for i := range n {
		b.clearLine(b.line(bot-i), bg)
	}
	if top == 0 && bot == b.rows-1 {
		b.top = (b.top + b.rows - n) % b.rows
		return n
	}
	b.rotate(top, bot, h-n)
	return n
}

// rotate rotates the row headers of top..bot so that row top+n becomes row
// top.
func (b *buffer) rotate(top, bot, n int) {
	h := bot - top + 1
	b.work += uint64(2 * h)
	s := b.scratch[:h]
	for i := range h {
		s[i] = *b.line(top + i)
	}
	for i := range h {
		*b.line(top + i) = s[(i+n)%h]
	}

}
