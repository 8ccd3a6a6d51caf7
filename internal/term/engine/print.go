package engine

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// printASCII prints the run of printable ASCII bytes b starts with and
// returns its length: the hot path, which scans and stores in one pass.
// Runs that need per-character care (a non-ASCII charset, insert mode, a
// pending joiner) go through printRune.
func (e *Engine) printASCII(b []byte) int {
	if e.mode.insert || e.joinNext || e.cur.charsets[e.cur.gl] != charsetASCII {
		i := 0
		for ; i < len(b) && b[i]-0x20 < 0x5f; i++ {
			e.printRune(rune(b[i]))
		}
		return i
	}
	if k := e.printSpans(b); k > 0 {
		return k
	}
	if e.cur.wrapPending {
		return e.printRun(b)
	}
	// The usual run: appended at the end of the line's stored cells
	// and ending before the right margin, so nothing around it needs
	// care. Up to the cell before the margin is stored here; a run
	// reaching that far goes on in printRun, which wraps.
	l := e.scr.line(e.cur.row)
	col := e.cur.col
	room := e.cols - 1 - col
	if l.spanned || col != l.n || room < 8 || len(b) < 8 {
		return e.printRun(b)
	}
	n := min(room, len(b))
	k := appendASCII(l.cells[col:col+n], b[:n], e.cur.pen.cellFor(0))
	l.n = col + k
	e.cur.col = col + k
	if k == n && k < len(b) && b[k]-0x20 < 0x5f {
		return k + e.printRun(b[k:])
	}
	e.lastRune = rune(b[k-1])
	return k
}

// printRun is printASCII for the runs that need care: from a pending
// wrap, over stored cells (a wide glyph may be cut), short, or reaching
// the right margin.
func (e *Engine) printRun(b []byte) int {
	cols := e.cols
	base := e.cur.pen.cellFor(0)
	i := 0
	for {
		if e.cur.wrapPending {
			e.wrapOrStay()
		}
		l := e.scr.line(e.cur.row)
		e.scr.unspan(l)
		row := l.cells
		col := e.cur.col
		if col > l.n {
			e.scr.extend(l, col)
		}
		src := b[i:min(len(b), i+cols-col)]
		if col < l.n {
			splitWideDefault(row, col)
		}
		dst := row[col : col+len(src)]
		var k int
		switch {
		case len(src) < 8:
			// Short runs (between escape sequences) skip the call.
			for ; k < len(src) && src[k]-0x20 < 0x5f; k++ {
				dst[k] = cell{base.c | uint32(src[k]), base.fg, base.bg}
			}
		case col == l.n:
			k = appendASCII(dst, src, base)
		default:
			k = storeASCII(dst, src, base)
		}
		if end := col + k; end < l.n && row[end].isCont() {
			row[end] = cell{c: ' '} // its base was overwritten
		} else if end > l.n {
			l.n = end
		}
		i += k
		col += k
		if col < cols {
			e.cur.col = col
			break // a non-printable byte or the end of b
		}
		e.cur.col = cols - 1
		if e.mode.autowrap {
			e.cur.wrapPending = true
			if i == len(b) || b[i]-0x20 >= 0x5f {
				break
			}
			continue
		}
		// Without autowrap the rest of the run overwrites the last
		// column; only its last character remains.
		j := i
		for j < len(b) && b[j]-0x20 < 0x5f {
			j++
		}
		if j > i {
			row[cols-1] = cell{c: base.c | uint32(b[j-1]), fg: base.fg, bg: base.bg}
		}
		i = j
		break
	}
	e.lastRune = rune(b[i-1])
	return i
}

// storeASCII stores the leading printable bytes of src into dst (as long
// as src) and returns how many it stored. Eight bytes at a time are
// checked with one word test.
func storeASCII(dst []cell, src []byte, base cell) int {
	c, fg, bg := base.c, base.fg, base.bg
	k := 0
	for ; k+8 <= len(src) && k+8 <= len(dst); k += 8 {
		if unprintable(binary.LittleEndian.Uint64(src[k:])) != 0 {
			break // a byte below 0x20 or at/above 0x7F
		}
		s := (*[8]byte)(src[k : k+8])
		d := (*[8]cell)(dst[k : k+8])
		d[0] = cell{c | uint32(s[0]), fg, bg}
		d[1] = cell{c | uint32(s[1]), fg, bg}
		d[2] = cell{c | uint32(s[2]), fg, bg}
		d[3] = cell{c | uint32(s[3]), fg, bg}
		d[4] = cell{c | uint32(s[4]), fg, bg}
		d[5] = cell{c | uint32(s[5]), fg, bg}
		d[6] = cell{c | uint32(s[6]), fg, bg}
		d[7] = cell{c | uint32(s[7]), fg, bg}
	}
	for ; k < len(src) && k < len(dst); k++ {
		ch := src[k]
		if ch-0x20 >= 0x5f {
			break
		}
		dst[k] = cell{c | uint32(ch), fg, bg}
	}
	return k
}

// appendASCII is storeASCII for a run starting at the end of a line's
// stored cells, the usual case: the cells past the run are not stored
// (line.n), so it writes whole groups of eight and counts the printable
// ones afterwards, instead of branching per byte where the run ends.
func appendASCII(dst []cell, src []byte, base cell) int {
	c, fg, bg := base.c, base.fg, base.bg
	n := min(len(src), len(dst))
	src, dst = src[:n], dst[:n]
	k := 0
	for ; k <= n-8; k += 8 {
		// The bytes are stored from memory, which takes fewer
		// instructions than shifting them out of the word. (The same
		// eight stores as storeASCII's, written out in both: a function
		// holding them is too big for the compiler to inline.)
		s := (*[8]byte)(src[k : k+8])
		d := (*[8]cell)(dst[k : k+8])
		d[0] = cell{c | uint32(s[0]), fg, bg}
		d[1] = cell{c | uint32(s[1]), fg, bg}
		d[2] = cell{c | uint32(s[2]), fg, bg}
		d[3] = cell{c | uint32(s[3]), fg, bg}
		d[4] = cell{c | uint32(s[4]), fg, bg}
		d[5] = cell{c | uint32(s[5]), fg, bg}
		d[6] = cell{c | uint32(s[6]), fg, bg}
		d[7] = cell{c | uint32(s[7]), fg, bg}
		w := binary.LittleEndian.Uint64(s[:])
		if m := unprintable(w); m != 0 {
			return k + bits.TrailingZeros64(m)/8
		}
	}
	for ; k < len(src) && k < len(dst); k++ {
		ch := src[k]
		if ch-0x20 >= 0x5f {
			break
		}
		dst[k] = cell{c | uint32(ch), fg, bg}
	}
	return k
}

// unprintable returns a mask whose lowest set bit is the high bit of the
// first byte of w (little-endian) below 0x20 or at/above 0x7F, and 0 when
// all eight are printable. Bits above the lowest may be wrong (borrows
// and carries cross bytes), so callers use only the lowest.
func unprintable(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	return ((w-0x20*ones)&^w | (w + ones | w)) & highs
}

// wrapOrStay resolves a pending wrap before printing: it moves to the
// start of the next line (scrolling if needed) when autowrap is on.
func (e *Engine) wrapOrStay() {
	e.cur.wrapPending = false
	if !e.mode.autowrap {
		return
	}
	e.scr.line(e.cur.row).wrapped = true
	e.cur.col = 0
	e.indexBg(0)
}

// printRune prints one character (already decoded, not a control).
func (e *Engine) printRune(r rune) {
	last := rune(-1) // REP repeats only ASCII (before charset mapping), as tmux does
	if r < 0x80 {
		last = r
		r = e.mapCharset(byte(r))
	}
	w := 1
	if r >= 0x80 {
		w = e.width(r)
	}
	if e.joinNext || w == 0 {
		e.joinNext = r == zwj
		e.lastRune = -1
		e.combine(r)
		return
	}
	e.lastRune = last
	if w > e.cols {
		return
	}
	if e.mode.insert && !e.cur.wrapPending && e.cur.col+w <= e.cols {
		// tmux makes room before it wraps: a character that wraps is
		// written on the next line without inserting.
		e.insertCells(e.scr.row(e.cur.row), e.cur.col, w)
	}
	if e.cur.wrapPending {
		e.wrapOrStay()
	}
	if w == 2 && e.cur.col == e.cols-1 {
		if e.mode.autowrap {
			// The glyph does not fit: the last cell becomes a default
			// blank (tmux pads it so) and the glyph goes to the next line.
			row := e.scr.row(e.cur.row)
			splitWideDefault(row, e.cols-1)
			row[e.cols-1] = cell{c: ' ' | padBit}
			e.scr.line(e.cur.row).wrapped = true
			e.cur.col = 0
			e.indexBg(0)
		} else {
			return // no room and no wrap: tmux drops the glyph
		}
	}
	// Only the cells up to the glyph are stored: a row that was fresh
	// or in span form does not take a whole row of fill first.
	l := e.scr.line(e.cur.row)
	col := e.cur.col
	e.scr.extend(l, col+w)
	row := l.cells
	splitWideDefault(row[:l.n], col)
	splitWideDefault(row[:l.n], col+w)
	c := e.cur.pen.cellFor(uint32(r))
	if w == 2 {
		c.c |= wideBit
		row[col+1] = cell{c: contStyle, fg: c.fg, bg: c.bg}
	}
	row[col] = c
	if col+w < e.cols {
		e.cur.col = col + w
		return
	}
	e.cur.col = e.cols - 1
	e.cur.wrapPending = e.mode.autowrap
}

// printText prints the text b starts with, a non-ASCII character, onto
// the cursor's row when it appends there: whole UTF-8 characters one or
// two cells wide and printable ASCII, up to the cell before the right
// margin. It returns how many bytes it consumed, 0 when printRune must
// print the first character. Appending is what a line of mixed scripts
// does; checking the modes, the row and the cells after the glyph once
// for the whole run, instead of once a character as printRune does, is
// what this saves. It leaves everything that needs care to printRune
// and printASCII: zero-width characters (they join a cluster), the last
// column (wrap, padding), overwriting stored cells (a wide glyph may be
// cut), insert mode, a pending joiner or wrap, another charset.
func (e *Engine) printText(b []byte) int {
	col := e.cur.col
	if col+1 >= e.cols || e.mode.insert || e.joinNext || e.cur.wrapPending || e.noSpans || e.cur.charsets[e.cur.gl] != charsetASCII {
		return 0
	}
	l := e.scr.line(e.cur.row)
	if stored := l.n; l.spanned && col < len(l.text) || !l.spanned && col < stored {
		return 0
	}
	// The cells from the end of the stored ones (or the span form's
	// text) to the cursor take the fill, as printRune would store them.
	e.scr.extend(l, col)
	row := l.cells[:e.cols-1]
	base := e.cur.pen.cellFor(0)
	start, last := col, e.lastRune
	widths := &e.widths
	i := 0
	for i < len(b) && col < len(row) {
		c := b[i]
		if c-0x20 < 0x5f {
			row[col] = cell{base.c | uint32(c), base.fg, base.bg}
			i, col, last = i+1, col+1, rune(c)
			continue
		}
		var r rune
		var size int
		switch {
		case c-0xC2 < 0xE0-0xC2 && i+1 < len(b) && b[i+1]&0xC0 == 0x80:
			// Two bytes (accents, Greek, Cyrillic) without a call.
			r, size = rune(c&0x1F)<<6|rune(b[i+1]&0x3F), 2
		case c-0xC2 < 0xF5-0xC2:
			r, size = decodeText(b[i:])
		}
		if size <= 1 || r < 0xA0 {
			break // incomplete or invalid: the decoder's; C1
		}
		// width's cache hit, written out: the call would spill the
		// loop's values.
		w := int(widths[uint8(r)] & 3)
		if widths[uint8(r)]>>2 != uint32(r) {
			w = e.width(r)
		}
		if w == 0 || col+w > len(row) {
			break
		}
		content := base.c | uint32(r)
		if w == 2 {
			content |= wideBit
			row[col+1] = cell{c: contStyle, fg: base.fg, bg: base.bg}
		}
		row[col] = cell{content, base.fg, base.bg}
		i, col, last = i+size, col+w, -1
	}
	l.n = col
	e.scr.work += uint64(col - start)
	e.cur.col, e.lastRune = col, last
	return i
}

// combine appends a zero-width character (a combining mark, a variation
// selector, a joiner, or what follows a joiner) to the cell left of the
// cursor, as tmux does: the cluster keeps the base's width.
func (e *Engine) combine(r rune) {
	col := e.cur.col - 1
	if e.cur.wrapPending {
		col = e.cur.col
	}
	if col < 0 {
		return
	}
	// Only the cells up to the one joined are stored, as in printRune.
	l := e.scr.line(e.cur.row)
	e.scr.extend(l, col+1)
	row := l.cells
	if row[col].isCont() && col > 0 {
		col--
	}
	c := row[col]
	if c.isCont() {
		return // an orphaned half has nothing to combine with
	}
	var buf [maxCluster + 4]byte
	n := 0
	if c.c&clusterBit != 0 {
		n = copy(buf[:], e.ct.get(c.c&runeMask))
	} else {
		n = utf8.EncodeRune(buf[:], rune(c.c&runeMask))
	}
	if n+4 > maxCluster {
		return
	}
	n += utf8.EncodeRune(buf[n:], r)
	e.work += uint64(n)
	idx, ok := e.internCluster(buf[:n]) // may collect: row[col] is reread
	content := clusterBit | idx
	if !ok {
		content = replacementChar
	}
	row[col].c = row[col].c&^(runeMask|clusterBit) | content
}
