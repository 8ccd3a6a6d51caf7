package engine

import (
	"encoding/binary"
	"math/bits"
)

// Span form. Most rows of real output hold plain ASCII in a few colors,
// so a row can also be kept as its printed text, one byte a column, and
// a short list of style runs; the cells past the text all equal fill, as
// in the cell form. Printing plain ASCII there copies bytes and edits
// runs (a gap between the text's end and the cursor takes the fill's
// byte and pen), where the cell form stores 12 bytes a character, and a
// snapshot or the scrollback encodes such a row straight from its bytes.
//
// A row enters span form only when it stores no cells (n == 0: cleared
// or fresh) and its fill is a plain printable ASCII cell. Every access
// that needs cells goes through buffer.extend (so buffer.row and
// materialize), which turns the row back into cells first: wide,
// combining and non-ASCII printing, erasing inside the content, ICH and
// DCH, resize. Only printSpans, eraseCells to the end of a row, clearing
// and scrolling (which move or reset whole rows), and the readers that
// encode rows (Screen, AppendSnapshot, scrollback) work on the span form
// itself.

// maxSpans bounds the style runs of a row in span form: a row painted in
// more colors goes back to cells, so that editing the runs stays cheap.
const maxSpans = 32

// span is one style run: the columns from at up to the next run's at (or
// the end of the text) show pen p.
type span struct {
	// at is an int32 so that a run takes 16 bytes, not 24: a fresh
	// row's runs are written into memory not touched since the row
	// last left the scrollback.
	at int32
	p  pen
}

// printableFill reports whether c is a plain printable ASCII cell, which
// span form can hold as a byte and a pen.
func printableFill(c cell) bool {
	r := c.c & (runeMask | clusterBit | wideBit | padBit)
	return r-0x20 < 0x5f && c.c&contStyle == 0
}

// fillPen returns the pen of a cell printableFill accepts.
func fillPen(c cell) pen {
	return pen{style: c.style(), fg: c.fg, bg: c.bg}
}

// spanForm puts l in span form when it can be (see above) and reports
// whether it is in span form.
func (l *line) spanForm() bool {
	if l.spanned {
		return true
	}
	if l.n != 0 || !printableFill(l.fill) {
		return false
	}
	if cap(l.text) < len(l.cells)+8 {
		// Eight bytes of slack: appendRun stores whole words.
		l.text = make([]byte, 0, len(l.cells)+8)
	}
	if cap(l.spans) < maxSpans {
		// Full size at once: growing by appends would allocate now and
		// then for as long as rows cycle through the scrollback.
		l.spans = make([]span, 0, maxSpans)
	}
	l.text, l.spans, l.spanned = l.text[:0], l.spans[:0], true
	return true
}

// runEnd returns the column where run k of l ends.
func (l *line) runEnd(k int) int {
	if k+1 < len(l.spans) {
		return int(l.spans[k+1].at)
	}
	return len(l.text)
}

// spanCells writes the cells of l's text (span form) into dst, which is
// at least as long.
func (l *line) spanCells(dst []cell) {
	for k, s := range l.spans {
		base := s.p.cellFor(0)
		end := l.runEnd(k)
		for j, ch := range l.text[s.at:end] {
			dst[int(s.at)+j] = cell{base.c | uint32(ch), base.fg, base.bg}
		}
	}
}

// unspan turns a row in span form back into cells and returns the cells
// it stored.
func (l *line) unspan() int {
	if !l.spanned {
		return 0
	}
	l.spanCells(l.cells)
	l.n = len(l.text)
	l.spanned = false
	l.text, l.spans = l.text[:0], l.spans[:0]
	return l.n
}

// unspan is line.unspan counting the work.
func (b *buffer) unspan(l *line) {
	if l.spanned {
		b.work += uint64(l.unspan())
	}
}

// truncate cuts the text of a row in span form at column at.
func (l *line) truncate(at int) {
	l.text = l.text[:at]
	k := len(l.spans)
	for k > 0 && int(l.spans[k-1].at) >= at {
		k--
	}
	l.spans = l.spans[:k]
}

// printSpan writes the printable ASCII src at column col of a row in span
// form, col+len(src) being at most the row's width. When col is past the
// text's end, the cells in between hold the fill, which becomes text.
func (l *line) printSpan(col int, src []byte, p pen) {
	if t := len(l.text); col > t {
		l.text = l.text[:col]
		ch := byte(l.fill.c & runeMask)
		for j := t; j < col; j++ {
			l.text[j] = ch
		}
		l.paint(t, col, fillPen(l.fill), t)
	}
	old := len(l.text)
	end := col + len(src)
	if end > old {
		l.text = l.text[:end]
	}
	copy(l.text[col:], src)
	l.paint(col, end, p, old)
}

// appendRun copies the run of printable ASCII bytes src starts with, up
// to len(dst)-8 bytes, to dst and returns its length: copying and
// scanning in one pass, a word at a time. Bytes past the run may be
// stored too, up to eight.
func appendRun(dst, src []byte) int {
	room := len(dst) - 8
	k := 0
	for ; k < room && k+8 <= len(src); k += 8 {
		w := binary.LittleEndian.Uint64(src[k : k+8])
		binary.LittleEndian.PutUint64(dst[k:k+8], w)
		if m := unprintable(w); m != 0 {
			return min(k+bits.TrailingZeros64(m)/8, room)
		}
	}
	for ; k < room && k < len(src) && src[k]-0x20 < 0x5f; k++ {
		dst[k] = src[k]
	}
	return min(k, room)
}

// paint sets the pen of columns [a, b) to p; old is the text's length
// before the columns were written (a ≤ old), so the run covering b, if
// any, goes on after b.
func (l *line) paint(a, b int, p pen, old int) {
	s := l.spans
	i := len(s)
	for i > 0 && int(s[i-1].at) >= a {
		i--
	}
	if i == len(s) && b >= old && (i == 0 || s[i-1].p != p) {
		l.spans = append(s, span{int32(a), p}) // after the last run
		return
	}
	j := i
	for j < len(s) && int(s[j].at) < b {
		j++
	}
	// s[i:j] start inside [a, b) and are replaced by at most two runs:
	// p from a (unless the run before already shows p), and the pen
	// that covered b from b on (unless a run starts there or it is p).
	var buf [2]span
	rep := buf[:0]
	if i == 0 || s[i-1].p != p {
		rep = append(rep, span{int32(a), p})
	}
	switch {
	case j < len(s) && int(s[j].at) == b:
		if s[j].p == p {
			j++ // merged into p's run
		}
	case b < old && s[j-1].p != p:
		rep = append(rep, span{int32(b), s[j-1].p})
	}
	l.spans = replaceSpans(s, i, j, rep)
}

// replaceSpans replaces s[i:j] with rep (at most two runs).
func replaceSpans(s []span, i, j int, rep []span) []span {
	d := len(rep) - (j - i)
	switch {
	case d > 0:
		for range d {
			s = append(s, span{})
		}
		copy(s[j+d:], s[j:len(s)-d])
	case d < 0:
		copy(s[j+d:], s[j:])
		s = s[:len(s)+d]
	}
	copy(s[i:], rep)
	return s
}

// spanContent returns how many leading cells of a row in span form are
// content and how many fill cells follow, as lineCells counts them for a
// row of cells: trailing default blanks are dropped.
func (l *line) spanContent() (end, fills int) {
	if l.fill != (cell{c: ' '}) {
		return len(l.text), len(l.cells) - len(l.text)
	}
	end = len(l.text)
	for k := len(l.spans) - 1; k >= 0 && l.spans[k].p == (pen{}); k-- {
		for end > int(l.spans[k].at) && l.text[end-1] == ' ' {
			end--
		}
		if end > int(l.spans[k].at) {
			break
		}
	}
	return end, 0
}

// asciiRun returns the length of the run of printable ASCII bytes b
// starts with, eight bytes at a time.
func asciiRun(b []byte) int {
	k := 0
	for ; k+8 <= len(b); k += 8 {
		if m := unprintable(binary.LittleEndian.Uint64(b[k:])); m != 0 {
			return k + bits.TrailingZeros64(m)/8
		}
	}
	for ; k < len(b) && b[k]-0x20 < 0x5f; k++ {
	}
	return k
}

// printSpans prints the run of printable ASCII bytes b starts with, up to
// the right margin, onto the cursor's row in span form, and returns how
// many bytes it consumed: 0 when the row holds cells (then printRun
// prints) or autowrap is off. The caller has ruled out insert mode,
// charsets and pending joiners, and calls again for the rest of a run
// that wraps. When the run ends the row's text, printing goes on in
// appendSpans.
func (e *Engine) printSpans(b []byte) int {
	if !e.mode.autowrap || e.noSpans {
		return 0
	}
	if e.cur.wrapPending {
		e.wrapOrStay()
	}
	l := e.scr.line(e.cur.row)
	if !l.spanned && !l.spanForm() {
		return 0
	}
	cols, col := e.cols, e.cur.col
	switch {
	case col == len(l.text) && len(l.spans) < maxSpans:
		return e.appendSpans(b, l)
	case len(l.spans)+3 > maxSpans:
		e.scr.unspan(l)
		return 0
	}
	n := asciiRun(b[:min(len(b), cols-col)])
	l.printSpan(col, b[:n], e.cur.pen)
	col += n
	if col < cols {
		e.cur.col = col
	} else {
		e.cur.col = cols - 1
		e.cur.wrapPending = true
	}
	e.lastRune = rune(b[n-1])
	return n
}

// appendSpans is printSpans's usual case, the run appended at the end of
// the text of l, the cursor's row: a log line. It goes on as long as the
// stream does what such lines are made of, with the row and the column
// kept at hand: further runs appended, SGRs between them, a CR LF onto
// a fresh row, which it appends to in turn, and a CR then EL (a redrawn
// progress bar), after which the row is appended to from its start. It
// stops at anything else (leaving it to Write), at the right margin, at
// a run that would not append, and when l holds maxSpans runs. The cursor and lastRune are brought up to date before
// anything outside the loop can read them.
func (e *Engine) appendSpans(b []byte, l *line) int {
	col := e.cur.col
	last := e.lastRune
	n := 0
	for n < len(b) {
		c := b[n]
		switch {
		case c-0x20 < 0x5f:
			if len(l.spans) == maxSpans || col != len(l.text) {
				goto out // not appending (after a CR), or no run left
			}
			k := appendRun(l.text[col:e.cols+8], b[n:]) // spanForm's slack
			l.text = l.text[:col+k]
			if s := l.spans; len(s) == 0 || s[len(s)-1].p != e.cur.pen {
				// Made at full size (spanForm) and not full: a
				// reslice stores only the length, where append
				// stores the whole header behind a write barrier.
				l.spans = l.spans[:len(s)+1]
				l.spans[len(s)] = span{int32(col), e.cur.pen}
			}
			n, col = n+k, col+k
			last = rune(b[n-1])
			if col == e.cols {
				e.cur.col = col - 1
				e.cur.wrapPending = true
				e.lastRune = last
				return n
			}
		case c == 0x1B && n+2 < len(b) && b[n+1] == '[':
			// A CSI: an SGR changes only the pen, an EL at most the
			// text's length and the fill; after anything else Write
			// goes on.
			if v, next, ok := shortSGR(b, n+2); ok {
				sgrOps[v].apply(&e.cur.pen) // as in ground
				n, last = next, -1
				continue
			}
			if b[n+2] == 'K' && col <= len(l.text) {
				// "ESC [ K", a progress bar's redraw after its CR:
				// what eraseLine(0) does to this row, without the
				// parser (the SGR shortcut's reasoning holds).
				l.truncate(col)
				l.fill = blankCell(e.cur.pen.bg)
				l.wrapped = false
				e.scr.work++
				e.work++
				n, last = n+3, -1
				continue
			}
			e.cur.col, e.lastRune = col, last
			e.clearSeq(stEscape)
			p := &e.p
			p.state = stCSIEntry
			next := e.csiFast(b, n+2)
			if f := b[next-1]; p.state != stGround || f != 'm' && f != 'K' || p.badInter || p.prefix != 0 || p.ninter != 0 || !l.spanned || e.cur.wrapPending {
				return next
			}
			n, col, last = next, e.cur.col, e.lastRune
		case c == '\r':
			// The wrap is not pending: the loop returns at the margin.
			n, col, last = n+1, 0, -1
			if n == len(b) || b[n] != '\n' {
				continue
			}
			e.cur.col, e.lastRune = 0, -1
			e.index()
			n++
			l = e.scr.line(e.cur.row)
			if !l.spanned && !l.spanForm() {
				return n
			}
		default:
			goto out
		}
	}
out:
	e.cur.col, e.lastRune = col, last
	return n
}
