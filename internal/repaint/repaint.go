package repaint

import (
	"strconv"

	"github.com/ptyhost/ptyhost/attachwire"
)

// Options selects what AppendScreen paints beyond the visible screen. The zero value paints the screen, cursor and display modes only.
type Options struct {
	// Scrollback paints the scrollback lines first and scrolls them off the
	// top, so that they land in the terminal's own scrollback above the
	// screen. Lines longer than Cols are split into rows of Cols columns.
	// Default false: the terminal's scrollback is left alone.
	Scrollback bool
	// InputModes also restores the input-generating modes for a terminal
	// whose input goes to the program: bracketed paste (?2004),
	// application cursor keys (?1), focus reporting (?1004) and mouse
	// tracking (?1000/?1002/?1003 with ?1005/?1006). These are
	// Driver-profile sequences: a Viewer-profile sanitizer drops the mouse,
	// focus and paste ones. Highlight tracking (?1001) needs replies the
	// sanitizer never passes and is restored as ?1000. Default false.
	InputModes bool
}

// AppendScreen appends a repaint of s: escape sequences that, written to a
// terminal of s's size, show what s holds: every cell's text, wide glyphs,
// attributes and colors, the alternate screen over the primary when it is
// active (leaving it restores the saved cursor), the cursor's position
// (including the pending-wrap state), visibility and shape, and, per opts,
// the scrollback and the input modes.
//
// The output uses only what a Viewer-profile sanitizer passes unchanged
// (see attachwire/sanitize): printable text, CR, LF, SGR with ';'
// parameters, CUP, CHA, ED 2, DECSTBM reset, IRM reset, DEC modes 6, 7,
// 25 and 1049 and DECSCUSR, plus the Driver-profile input modes when
// opts.InputModes is set. It starts by leaving the alternate screen and
// resetting margins, insert, origin and pen before clearing the screen, so
// a repaint also replaces an earlier one. It ends with the default pen
// (SGR 0), since a Screen does not record the program's pen, and with
// autowrap on.
//
// Cells are painted with autowrap off and every row is addressed with CUP,
// so no glyph, not even one in the bottom-right cell that the terminal
// finds wider than s does, can wrap and scroll the screen. Trailing blank
// cells are skipped, runs of blanks are jumped over with CHA, and the
// column is re-synchronised with CHA after every non-ASCII glyph, so a
// terminal that disagrees with s about a glyph's width misplaces at most
// that glyph. Cell contents that are not printable UTF-8 (only an invalid
// Screen has them) are painted as U+FFFD. The sanitizer clamps counts
// above 1000, so screens wider or taller than that do not pass it
// unchanged. AppendScreen does not modify s and tolerates an invalid Screen.
func AppendScreen(dst []byte, s *attachwire.Screen, opts Options) []byte {
	if s.Cols <= 0 || s.Rows <= 0 {
		return dst
	}
	dst = append(dst, "\x1b[?1049l\x1b[?25l\x1b[0m\x1b[r\x1b[4l\x1b[?6l\x1b[?7l\x1b[H\x1b[2J"...)
	p := painter{dst: dst, cols: s.Cols, pen: attachwire.BlankCell()}
	if opts.Scrollback && len(s.Scrollback) > 0 {
		p.scrollback(s.Scrollback, s.Rows)
	}
	p.grid(s.Primary, s.Rows)
	if s.Active == attachwire.BufferAlternate {
		// DECSC (part of ?1049h) may save the autowrap mode on some
		// terminals: save it on, as the program expects on return.
		p.sgr(attachwire.BlankCell())
		p.cup(s.SavedCursorRow, s.SavedCursorCol)
		p.dst = append(p.dst, "\x1b[?7h\x1b[?1049h\x1b[?7l\x1b[H\x1b[2J"...)
		p.grid(s.Alt, s.Rows)
	}
	p.sgr(attachwire.BlankCell())
	if opts.InputModes {
		p.dst = AppendInputModes(p.dst, s.Modes, s.Mouse)
	}
	p.dst = append(p.dst, "\x1b["...)
	p.dst = strconv.AppendInt(p.dst, int64(decscusr(s.CursorShape)), 10)
	p.dst = append(p.dst, " q"...)
	if s.CursorVisible {
		p.dst = append(p.dst, "\x1b[?25h"...)
	}
	p.dst = append(p.dst, "\x1b[?7h"...)
	p.cursor(s)
	return p.dst
}

// painter appends the cells of one screen, tracking the pen.
type painter struct {
	dst  []byte
	cols int
	pen  attachwire.Cell // Content unused: the current SGR state
}

// grid paints rows of a row-major grid, one CUP per row with content.
func (p *painter) grid(cells []attachwire.Cell, rows int) {
	for y := range rows {
		lo := min(y*p.cols, len(cells))
		hi := min(lo+p.cols, len(cells))
		row := cells[lo:hi]
		if end := TrimBlanks(row); end > 0 {
			p.cup(y, 0)
			p.row(row[:end])
		}
	}
}

// scrollback paints lines row by row with CRLF from the top, then scrolls
// what is still on screen into the terminal's scrollback and clears.
func (p *painter) scrollback(lines [][]attachwire.Cell, rows int) {
	emitted := 0
	for _, line := range lines {
		for {
			n := ChunkLen(line, p.cols)
			if end := TrimBlanks(line[:n]); end > 0 {
				p.row(line[:end])
			}
			p.sgr(attachwire.BlankCell())
			p.dst = append(p.dst, "\r\n"...)
			emitted++
			line = line[n:]
			if len(line) == 0 {
				break
			}
		}
	}
	if k := min(emitted, rows-1); k > 0 {
		p.cup(rows-1, 0)
		for range k {
			p.dst = append(p.dst, '\n')
		}
	}
	p.dst = append(p.dst, "\x1b[H\x1b[2J"...)
}

// ChunkLen returns how many cells of line fit one row of cols columns
// without separating a wide glyph from its continuation cells (at least 1).
func ChunkLen(line []attachwire.Cell, cols int) int {
	if len(line) <= cols {
		return len(line)
	}
	n := cols
	for n > 1 && line[n].Content == "" {
		n--
	}
	return n
}

// TrimBlanks returns the length of row without its trailing blank cells.
func TrimBlanks(row []attachwire.Cell) int {
	end := len(row)
	for end > 0 && row[end-1] == attachwire.BlankCell() {
		end--
	}
	return end
}

// row paints cells from the cursor's column, which is column 0 of the row.
func (p *painter) row(cells []attachwire.Cell) {
	sync := false // the terminal's column may differ from x
	for x := 0; x < len(cells); x++ {
		c := cells[x]
		if c.Content == "" { // continuation: the base glyph covered it
			sync = true
			continue
		}
		if c == attachwire.BlankCell() {
			run := x + 1
			for run < len(cells) && cells[run] == attachwire.BlankCell() {
				run++
			}
			if run-x >= 4 || p.pen != attachwire.BlankCell() {
				x = run - 1
				sync = true
				continue
			}
		}
		if sync {
			p.cha(x)
			sync = false
		}
		p.sgr(c)
		sync = p.text(c.Content)
	}
}

// text writes one cell's content and reports whether it was anything but
// a single ASCII character.
func (p *painter) text(s string) (nonASCII bool) {
	if len(s) == 1 && s[0] >= 0x20 && s[0] < 0x7F {
		p.dst = append(p.dst, s[0])
		return false
	}
	if attachwire.ValidCellContent(s) {
		p.dst = append(p.dst, s...)
	} else {
		p.dst = append(p.dst, "\uFFFD"...)
	}
	return true
}

// cursor places the cursor last. In the pending-wrap state it repaints
// the glyph in the last column, which leaves the terminal in that state
// too; nothing is printed after it.
func (p *painter) cursor(s *attachwire.Screen) {
	if s.Modes&attachwire.ModePendingWrap == 0 || s.CursorCol != s.Cols-1 {
		p.cup(s.CursorRow, s.CursorCol)
		return
	}
	grid := s.Primary
	if s.Active == attachwire.BufferAlternate {
		grid = s.Alt
	}
	x := s.CursorCol
	i := s.CursorRow*s.Cols + x
	for x > 0 && i < len(grid) && grid[i].Content == "" {
		x--
		i--
	}
	c := attachwire.BlankCell()
	if i < len(grid) && grid[i].Content != "" {
		c = grid[i]
	}
	p.cup(s.CursorRow, x)
	p.sgr(c)
	p.text(c.Content)
	p.sgr(attachwire.BlankCell())
}

// cup moves the cursor to 0-based (row, col).
func (p *painter) cup(row, col int) {
	p.dst = append(p.dst, "\x1b["...)
	p.dst = strconv.AppendInt(p.dst, int64(row+1), 10)
	if col > 0 {
		p.dst = append(p.dst, ';')
		p.dst = strconv.AppendInt(p.dst, int64(col+1), 10)
	}
	p.dst = append(p.dst, 'H')
}

// cha moves the cursor to 0-based column col of its row.
func (p *painter) cha(col int) {
	p.dst = append(p.dst, "\x1b["...)
	p.dst = strconv.AppendInt(p.dst, int64(col+1), 10)
	p.dst = append(p.dst, 'G')
}

// sgr switches the pen to c's style and colors, if it differs.
func (p *painter) sgr(c attachwire.Cell) {
	c.Content = attachwire.BlankCell().Content
	if c == p.pen {
		return
	}
	p.pen = c
	p.dst = append(p.dst, "\x1b[0"...)
	for _, a := range [...]struct {
		bit attachwire.Style
		sgr string
	}{
		{attachwire.StyleBold, ";1"}, {attachwire.StyleDim, ";2"}, {attachwire.StyleItalic, ";3"}, {attachwire.StyleUnderline, ";4"},
		{attachwire.StyleReverse, ";7"}, {attachwire.StyleStrikethrough, ";9"},
	} {
		if c.Style&a.bit != 0 {
			p.dst = append(p.dst, a.sgr...)
		}
	}
	p.dst = AppendSGRColor(p.dst, c.Fg, 30)
	p.dst = AppendSGRColor(p.dst, c.Bg, 40)
	p.dst = append(p.dst, 'm')
}

// AppendSGRColor appends ";" and the SGR parameters that select c as a
// foreground (base 30) or background (base 40) color: base+n or base+60+n
// for the 16 ANSI colors, base+8;5;n for the rest of the palette and
// base+8;2;r;g;b for RGB (38;2;r;g;b as a foreground). It appends nothing
// for the default color. Terminal emulators use it to
// report their pen (DECRQSS), the repaint to paint cells.
func AppendSGRColor(dst []byte, c attachwire.Color, base int) []byte {
	switch c.Kind() {
	case attachwire.ColorIndexed:
		i := int(c.Index())
		dst = append(dst, ';')
		switch {
		case i < 8:
			return strconv.AppendInt(dst, int64(base+i), 10)
		case i < 16:
			return strconv.AppendInt(dst, int64(base+60+i-8), 10)
		}
		dst = strconv.AppendInt(dst, int64(base+8), 10)
		dst = append(dst, ";5;"...)
		return strconv.AppendInt(dst, int64(i), 10)
	case attachwire.ColorRGB:
		r, g, b := c.RGB()
		dst = append(dst, ';')
		dst = strconv.AppendInt(dst, int64(base+8), 10)
		dst = append(dst, ";2;"...)
		dst = strconv.AppendInt(dst, int64(r), 10)
		dst = append(dst, ';')
		dst = strconv.AppendInt(dst, int64(g), 10)
		dst = append(dst, ';')
		return strconv.AppendInt(dst, int64(b), 10)
	}
	return dst
}

// decscusr returns the DECSCUSR parameter of a shape (steady variants).
func decscusr(s attachwire.CursorShape) int {
	switch s {
	case attachwire.CursorBlock:
		return 2
	case attachwire.CursorUnderline:
		return 4
	case attachwire.CursorBar:
		return 6
	}
	return 0
}

// AppendInputModes appends the sequences that reset every input mode the
// repaint manages (bracketed paste, application cursor keys, focus
// reporting, mouse tracking and its encodings), then set those m and
// mouse record: what Options.InputModes paints, for a renderer that
// turns them on and off as the pen changes hands.
func AppendInputModes(dst []byte, m attachwire.Modes, mouse attachwire.MouseProto) []byte {
	dst = append(dst, "\x1b[?1;2004;1004;1000;1002;1003;1005;1006l"...)
	var set []byte
	add := func(mode string) {
		if len(set) > 0 {
			set = append(set, ';')
		}
		set = append(set, mode...)
	}
	if m&attachwire.ModeAppCursorKeys != 0 {
		add("1")
	}
	if m&attachwire.ModeBracketedPaste != 0 {
		add("2004")
	}
	if m&attachwire.ModeFocus != 0 {
		add("1004")
	}
	if m&attachwire.ModeMouse != 0 {
		switch mouse.Tracking() {
		case attachwire.MouseX10, attachwire.MouseHighlight:
			add("1000")
		case attachwire.MouseButton:
			add("1002")
		case attachwire.MouseAny:
			add("1003")
		}
		switch mouse.Encoding() {
		case attachwire.MouseEncUTF8:
			add("1005")
		case attachwire.MouseEncSGR:
			add("1006")
		}
	}
	if len(set) == 0 {
		return dst
	}
	dst = append(dst, "\x1b[?"...)
	dst = append(dst, set...)
	return append(dst, 'h')
}
