package engine

import (
	"unicode/utf8"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term"
)

// asciiStrings holds every 7-bit character so that a cell's content can be
// a substring of it, with no allocation.
const asciiStrings = "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f" +
	"\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f" +
	" !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~\x7f"

func asciiContent(c byte) string { return asciiStrings[c : c+1] }

// Screen fills dst with the current screen. It leaves dst.Epoch and
// dst.Echo alone and reuses dst's slices (including the cell contents
// already there) where it can.
func (e *Engine) Screen(dst *attachwire.Screen) {
	e.screenHeader(dst)
	dst.Primary = e.gridCells(dst.Primary, e.prim)
	if e.altActive {
		dst.Alt = e.gridCells(dst.Alt, e.alt)
	} else {
		dst.Alt = nil
	}
	n := e.sb.len()
	if cap(dst.Scrollback) < n {
		dst.Scrollback = append(dst.Scrollback[:cap(dst.Scrollback)], make([][]attachwire.Cell, n-cap(dst.Scrollback))...)
	}
	dst.Scrollback = dst.Scrollback[:n]
	for i := range n {
		dst.Scrollback[i] = e.scrollbackCells(i, dst.Scrollback[i])
	}
}

// scrollbackCells converts scrollback line i (oldest first) into out,
// reusing its storage and cell contents where it can.
func (e *Engine) scrollbackCells(i int, out []attachwire.Cell) []attachwire.Cell {
	l := e.sb.rawLine(i)
	if l == nil {
		_, enc, _ := e.sb.line(i)
		return decodeLine(out[:0], enc)
	}
	var stored []cell
	text, fills := 0, 0
	if l.spanned {
		text, fills = l.spanContent()
	} else {
		stored, fills = lineCells(l)
	}
	n := text + len(stored) + fills
	if cap(out) < n {
		out = make([]attachwire.Cell, n)
	}
	out = out[:n]
	screenSpans(out[:text], l)
	for j := text; j < n; j++ {
		c := l.fill
		if j < len(stored) {
			c = stored[j]
		}
		out[j] = e.screenCell(c, out[j].Content)
	}
	return out
}

// screenHeader fills the fields of dst before the grids, except Epoch
// and Echo.
func (e *Engine) screenHeader(dst *attachwire.Screen) {
	dst.Cols, dst.Rows = e.cols, e.rows
	dst.Active = attachwire.BufferPrimary
	if e.altActive {
		dst.Active = attachwire.BufferAlternate
	}
	dst.CursorRow, dst.CursorCol = e.cur.row, e.cur.col
	dst.CursorVisible = e.mode.cursorVisible
	dst.CursorShape = term.CursorShape(e.mode.cursorStyle)
	dst.Modes, dst.Mouse = e.screenModes()
	dst.SavedCursorRow, dst.SavedCursorCol = e.cur.row, e.cur.col
	if e.altActive {
		dst.SavedCursorRow, dst.SavedCursorCol = e.altReturnRow, e.altReturnCol
	}
}

func (e *Engine) screenModes() (attachwire.Modes, attachwire.MouseProto) {
	var m attachwire.Modes
	if e.mode.bracketedPaste {
		m |= attachwire.ModeBracketedPaste
	}
	if e.mode.appCursor {
		m |= attachwire.ModeAppCursorKeys
	}
	if e.cur.wrapPending {
		m |= attachwire.ModePendingWrap
	}
	if e.mode.focus {
		m |= attachwire.ModeFocus
	}
	if e.mode.mouse == 0 {
		return m, 0
	}
	proto := e.mode.mouse
	switch {
	case e.mode.mouseSGR:
		proto |= attachwire.MouseEncSGR
	case e.mode.mouseUTF8:
		proto |= attachwire.MouseEncUTF8
	}
	return m | attachwire.ModeMouse, proto
}

// gridCells converts a buffer to rows*cols cells, row-major.
func (e *Engine) gridCells(dst []attachwire.Cell, b *buffer) []attachwire.Cell {
	n := e.rows * e.cols
	if cap(dst) < n {
		dst = make([]attachwire.Cell, n)
	}
	dst = dst[:n]
	for i := range e.rows {
		e.rowCells(dst[i*e.cols:(i+1)*e.cols], b.line(i))
	}
	return dst
}

// rowCells converts a row of the screen into out, cols cells.
func (e *Engine) rowCells(out []attachwire.Cell, l *line) {
	start := 0
	if l.spanned {
		start = min(len(l.text), e.cols)
		screenSpans(out[:start], l)
	}
	for j := start; j < len(out); j++ {
		c := l.fill
		if j < l.n {
			c = l.cells[j]
		}
		out[j] = e.screenCell(c, out[j].Content)
	}
}

// screenSpans converts the first len(out) cells of a row in span form.
func screenSpans(out []attachwire.Cell, l *line) {
	for k, s := range l.spans {
		end := min(l.runEnd(k), len(out))
		for j := int(s.at); j < end; j++ {
			out[j] = attachwire.Cell{Content: asciiContent(l.text[j]), Style: s.p.style, Fg: s.p.fg, Bg: s.p.bg}
		}
	}
}

// screenCell converts a cell; old is the content previously in the
// destination, reused when it is the same character.
func (e *Engine) screenCell(c cell, old string) attachwire.Cell {
	out := attachwire.Cell{Style: c.style(), Fg: c.fg, Bg: c.bg}
	switch {
	case c.isCont():
		out.Style = attachwire.StyleWideCont
	case c.c&clusterBit != 0:
		out.Content = e.ct.get(c.c & runeMask)
	default:
		out.Content = runeContent(rune(c.c&runeMask), old)
	}
	return out
}

func runeContent(r rune, old string) string {
	if r < utf8.RuneSelf {
		if r < 0x20 || r == 0x7F {
			return " "
		}
		return asciiContent(byte(r))
	}
	if or, n := utf8.DecodeRuneInString(old); n > 0 && or == r && n == len(old) {
		return old
	}
	return string(r)
}
