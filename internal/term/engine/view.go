package engine

import "github.com/ptyhost/ptyhost/attachwire"

// The methods here serve a renderer that shows the engine's screen on
// another terminal (the browser viewer draws it with xterm.js) and
// repaints only what changed: the visible grids without the scrollback,
// which Screen copies whole, the scrollback's growth as a count, and the
// width the engine gives a character, so that the renderer's terminal
// draws each glyph across the cells the engine gave it.

// RuneWidth returns the cells the engine gives r when it prints it: 1 or
// 2, or 0 for a character that joins the cell before it (a combining
// mark, a variation selector, a joiner). A character printed right after
// a zero-width joiner joins that cell too, whatever its width, and a
// cluster keeps the width of its first character. Controls (C0, DEL, C1)
// are never printed and have width 0.
func RuneWidth(r rune) int {
	switch {
	case r < 0x20, r >= 0x7F && r < 0xA0:
		return 0
	case r < 0x7F:
		return 1
	}
	return runeWidth(r)
}

// Visible fills dst as Screen does, without the scrollback: dst.Scrollback
// is left empty (its storage kept). It costs O(cols·rows) whatever the
// scrollback holds.
func (e *Engine) Visible(dst *attachwire.Screen) {
	e.screenHeader(dst)
	dst.Primary = e.gridCells(dst.Primary, e.prim)
	if e.altActive {
		dst.Alt = e.gridCells(dst.Alt, e.alt)
	} else {
		dst.Alt = nil
	}
	dst.Scrollback = dst.Scrollback[:0]
}

// History returns how many lines the scrollback holds, how many lines
// have ever been pushed into it, and a count of its changes other than
// pushes (erased by ED 3, lines pulled back onto the screen or rewrapped
// by a resize). While changed stays the same, the lines pushed since a
// count p are the newest pushed-p (when that is at most lines).
func (e *Engine) History() (lines int, pushed, changed uint64) {
	return e.sb.len(), e.sb.pushed, e.sb.changed
}

// ScrollbackLine returns scrollback line i (0 the oldest, as Screen
// orders them) in dst's storage: its cells with trailing default blanks
// dropped, so it may be shorter than the screen, or longer after a
// resize left it at an older width. It returns dst[:0] when i is out of
// range.
func (e *Engine) ScrollbackLine(i int, dst []attachwire.Cell) []attachwire.Cell {
	if i < 0 || i >= e.sb.len() {
		return dst[:0]
	}
	return e.scrollbackCells(i, dst)
}

// RowCache remembers, raw, the rows VisibleChanges last converted, so
// that the next call converts only the rows that changed since: a typed
// character costs a comparison of each row's stored cells, not the
// conversion of the whole screen. The zero value is empty; a RowCache
// belongs to one Engine and one destination Screen.
type RowCache struct {
	cols, rows  int
	collections uint64
	prim, alt   []rawRow
	altValid    bool
	changed     []bool // rows, then the alternate screen's rows
}

// rawRow is a copy of what a row shows: its stored cells, fill and span
// form.
type rawRow struct {
	valid   bool
	n       int
	fill    cell
	spanned bool
	cells   []cell
	text    []byte
	spans   []span
}

// same reports whether l shows what r remembers.
func (r *rawRow) same(l *line) bool {
	if !r.valid || r.n != l.n || r.fill != l.fill || r.spanned != l.spanned {
		return false
	}
	if l.spanned {
		return string(r.text) == string(l.text) && slicesEqual(r.spans, l.spans)
	}
	return slicesEqual(r.cells, l.cells[:l.n])
}

func (r *rawRow) keep(l *line) {
	r.valid, r.n, r.fill, r.spanned = true, l.n, l.fill, l.spanned
	if l.spanned {
		r.text = append(r.text[:0], l.text...)
		r.spans = append(r.spans[:0], l.spans...)
		r.cells = r.cells[:0]
		return
	}
	r.cells = append(r.cells[:0], l.cells[:l.n]...)
	r.text, r.spans = r.text[:0], r.spans[:0]
}

func slicesEqual[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Changed reports whether VisibleChanges converted row i of the primary
// screen (alt false) or of the alternate one.
func (c *RowCache) Changed(alt bool, i int) bool {
	if alt {
		i += c.rows
	}
	return i >= 0 && i < len(c.changed) && c.changed[i]
}

// VisibleChanges fills dst as Visible does, but converts only the rows
// whose content changed since the last call with c, and records which in
// c (Changed). dst must be the Screen that call filled: the other rows
// are left as they are. A new size, a renumbering of the engine's
// cluster table or a return to the alternate screen converts every row
// concerned.
func (e *Engine) VisibleChanges(dst *attachwire.Screen, c *RowCache) {
	e.screenHeader(dst)
	n := e.rows * e.cols
	if c.cols != e.cols || c.rows != e.rows || c.collections != e.ct.collections || len(dst.Primary) != n {
		c.cols, c.rows, c.collections = e.cols, e.rows, e.ct.collections
		c.prim = make([]rawRow, e.rows)
		c.alt = make([]rawRow, e.rows)
		c.altValid = false
		c.changed = make([]bool, 2*e.rows)
	}
	if cap(dst.Primary) < n {
		dst.Primary = make([]attachwire.Cell, n)
	}
	dst.Primary = dst.Primary[:n]
	clear(c.changed)
	e.changedRows(dst.Primary, e.prim, c.prim, c.changed[:e.rows])
	if !e.altActive {
		dst.Alt = nil
		c.altValid = false
	} else {
		if !c.altValid || len(dst.Alt) != n {
			if cap(dst.Alt) < n {
				dst.Alt = make([]attachwire.Cell, n)
			}
			dst.Alt = dst.Alt[:n]
			for i := range c.alt {
				c.alt[i].valid = false
			}
			c.altValid = true
		}
		e.changedRows(dst.Alt, e.alt, c.alt, c.changed[e.rows:])
	}
	dst.Scrollback = dst.Scrollback[:0]
}

// changedRows converts into dst the rows of b that differ from rows.
func (e *Engine) changedRows(dst []attachwire.Cell, b *buffer, rows []rawRow, changed []bool) {
	for i := range e.rows {
		l := b.line(i)
		if rows[i].same(l) {
			continue
		}
		rows[i].keep(l)
		e.rowCells(dst[i*e.cols:(i+1)*e.cols], l)
		changed[i] = true
	}
}
