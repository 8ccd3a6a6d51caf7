package screen

import (
	"strconv"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/repaint"
	"github.com/ptyhost/ptyhost/internal/term"
	termengine "github.com/ptyhost/ptyhost/internal/term/engine"
)

// inputMask selects the modes that change what a terminal sends.
const inputMask = attachwire.ModeAppCursorKeys | attachwire.ModeBracketedPaste | attachwire.ModeFocus | attachwire.ModeMouse

// fullReset is what every full paint starts with: the terminal on its
// primary buffer, default pen, no margins, replace mode, absolute
// origin, autowrap off (every glyph is placed by the paint, none wraps),
// screen and scrollback cleared.
const fullReset = "\x1b[?1047l\x1b[0m\x1b[r\x1b[4l\x1b[?6l\x1b[?7l\x1b[H\x1b[2J\x1b[3J"

// Screen is the session's screen as a page shows it: a terminal engine
// loaded from a snapshot and fed the raw output after it, and what the
// page's terminal was last painted with. Not safe for concurrent use.
type Screen struct {
	scrollback int
	emu        *termengine.Engine

	now   attachwire.Screen   // the engine's visible screen, refilled per paint
	cache termengine.RowCache // which rows of now changed in the last refill
	line  []attachwire.Cell   // a scrollback line, scratch

	// What the terminal shows.
	cols, rows      int
	prim, alt       []attachwire.Cell
	inAlt           bool
	pushed, changed uint64 // the engine's History when last painted
	pen             attachwire.Cell
	cursorKnown     bool
	curRow, curCol  int
	curVisible      bool
	shape           attachwire.CursorShape
	input           bool // the page holds the pen: input modes are on
	modesKnown      bool
	modes           attachwire.Modes
	mouse           attachwire.MouseProto
}

// New returns a Screen whose engine keeps scrollback lines (at least 0);
// it shows nothing until Load.
func New(scrollback int) *Screen {
	return &Screen{scrollback: max(scrollback, 0)}
}

// Loaded reports whether a snapshot has been loaded.
func (s *Screen) Loaded() bool { return s.emu != nil }

// Load replaces the screen with scr (a snapshot's) and appends to dst
// the full paint: the terminal reset, the scrollback, the grids, the
// cursor and, while the page holds the pen, the input modes.
func (s *Screen) Load(dst []byte, scr *attachwire.Screen) []byte {
	if s.emu != nil {
		s.emu.Close()
	}
	s.emu = termengine.New(term.Options{Cols: scr.Cols, Rows: scr.Rows, Scrollback: s.scrollback})
	s.emu.Write(repaint.AppendScreen(nil, scr, repaint.Options{Scrollback: s.scrollback > 0, InputModes: true}))
	return s.full(dst)
}

// Write feeds the engine p, an Output frame's payload as the host sent
// it, and appends the paint of what changed. Before Load it does nothing.
func (s *Screen) Write(dst, p []byte) []byte {
	if s.emu == nil {
		return dst
	}
	s.emu.Write(p)
	return s.paint(dst)
}

// Resize applies a Resize frame and appends the full paint at the new
// size (the engine rewraps its lines as the host's did; the terminal's
// own rewrap would differ). The caller resizes the terminal first.
func (s *Screen) Resize(dst []byte, cols, rows, pxWidth, pxHeight int) []byte {
	if s.emu == nil {
		return dst
	}
	s.emu.Resize(cols, rows, pxWidth, pxHeight)
	return s.full(dst)
}

// SetInput turns the program's input modes on in the terminal (the page
// holds the pen: keys, pastes and the mouse go to the program in the
// forms it asked for) or off, and appends what that takes.
func (s *Screen) SetInput(dst []byte, on bool) []byte {
	s.input = on
	if s.emu == nil {
		return dst
	}
	return s.paint(s.inputModes(dst))
}

// Size returns the engine's size, 0 x 0 before Load.
func (s *Screen) Size() (cols, rows int) {
	if s.emu == nil {
		return 0, 0
	}
	return s.emu.Size()
}

// Snapshot fills dst with the engine's whole screen, scrollback
// included; ok is false before Load.
func (s *Screen) Snapshot(dst *attachwire.Screen) (ok bool) {
	if s.emu == nil {
		return false
	}
	s.emu.Screen(dst)
	return true
}

// Close releases the engine; the Screen shows nothing until the next
// Load.
func (s *Screen) Close() {
	if s.emu != nil {
		s.emu.Close()
		s.emu = nil
	}
}

// full appends a paint of everything, on a terminal in any state.
func (s *Screen) full(dst []byte) []byte {
	s.cols, s.rows = s.emu.Size()
	s.cache = termengine.RowCache{} // every row is compared with the blank terminal
	dst = append(dst, fullReset...)
	s.pen = attachwire.BlankCell()
	s.inAlt, s.cursorKnown, s.modesKnown = false, false, false
	s.prim = blankCells(s.prim, s.cols*s.rows)
	s.alt = blankCells(s.alt, s.cols*s.rows)
	lines, pushed, changed := s.emu.History()
	// The scrollback lines are painted from the top, a row each (a line
	// longer than the screen is wide, left so by a resize, takes
	// several); the terminal scrolls the first ones off as it goes, and
	// as many line feeds on the bottom row as lines are still on the
	// screen scroll off the rest, leaving it blank.
	if lines > 0 {
		painted := 0
		for i := range lines {
			s.line = s.emu.ScrollbackLine(i, s.line)
			for rest := s.line; ; {
				n := repaint.ChunkLen(rest, s.cols)
				dst = s.cells(dst, rest[:n], 0, repaint.TrimBlanks(rest[:n]))
				dst = s.sgr(dst, attachwire.BlankCell())
				dst = append(dst, "\r\n"...)
				painted++
				if rest = rest[n:]; len(rest) == 0 {
					break
				}
			}
		}
		dst = s.cup(dst, s.rows-1, 0)
		for range min(painted, s.rows-1) {
			dst = append(dst, '\n')
		}
	}
	s.pushed, s.changed = pushed, changed
	return s.paint(dst)
}

// paint appends what changed since the last paint.
func (s *Screen) paint(dst []byte) []byte {
	lines, pushed, changed := s.emu.History()
	cols, rows := s.emu.Size()
	if changed != s.changed || cols != s.cols || rows != s.rows || pushed-s.pushed > uint64(lines) {
		return s.full(dst)
	}
	start := len(dst)
	s.emu.VisibleChanges(&s.now, &s.cache)
	newLines := int(pushed - s.pushed)
	primChanged := false
	for y := range s.rows {
		primChanged = primChanged || s.cache.Changed(false, y)
	}
	if newLines > 0 || primChanged {
		if s.inAlt {
			dst = append(dst, "\x1b[?1047l"...)
			s.inAlt = false
		}
		// The lines pushed into the scrollback since the last paint go
		// into the terminal's the same way: each painted on the top row
		// (usually it is there already) and scrolled off.
		for i := lines - newLines; i < lines; i++ {
			s.line = s.emu.ScrollbackLine(i, s.line)
			for rest := s.line; ; {
				n := repaint.ChunkLen(rest, s.cols)
				dst = s.row(dst, 0, padded(rest[:n], s.cols), s.prim[:s.cols])
				dst = s.sgr(dst, attachwire.BlankCell())
				dst = s.cup(dst, s.rows-1, 0)
				dst = append(dst, '\n')
				copy(s.prim, s.prim[s.cols:])
				blankCells(s.prim[len(s.prim)-s.cols:], s.cols)
				if rest = rest[n:]; len(rest) == 0 {
					break
				}
			}
		}
		s.pushed = pushed
		// Rows the engine left alone are as painted, unless the
		// terminal's rows moved under them.
		dst = s.grid(dst, s.now.Primary, s.prim, false, newLines > 0)
	}
	if s.now.Active == attachwire.BufferAlternate {
		all := false
		if !s.inAlt {
			// xterm.js clears its alternate buffer on entering it, in
			// the pen's background.
			dst = s.sgr(dst, attachwire.BlankCell())
			dst = append(dst, "\x1b[?1047h"...)
			s.inAlt, all = true, true
			blankCells(s.alt, len(s.alt))
		}
		dst = s.grid(dst, s.now.Alt, s.alt, true, all)
	} else if s.inAlt {
		dst = append(dst, "\x1b[?1047l"...)
		s.inAlt = false
	}
	dst = s.cursor(dst, len(dst) > start)
	return s.inputModes(dst)
}

// grid repaints the rows of want that differ from shown, from the first
// cell that differs, and records them as shown: every row when all is
// set, else only those the engine changed since the last paint.
func (s *Screen) grid(dst []byte, want, shown []attachwire.Cell, alt, all bool) []byte {
	for y := range s.rows {
		if all || s.cache.Changed(alt, y) {
			lo, hi := y*s.cols, (y+1)*s.cols
			dst = s.row(dst, y, want[lo:hi], shown[lo:hi])
		}
	}
	return dst
}

// row repaints row y to show want where it differs from shown (both
// cols long) and copies want into shown.
func (s *Screen) row(dst []byte, y int, want, shown []attachwire.Cell) []byte {
	x := 0
	for x < len(want) && want[x] == shown[x] {
		x++
	}
	if x == len(want) {
		return dst
	}
	// Start on a glyph, never on the second half of a wide one.
	for x > 0 && (isCont(want[x]) || isCont(shown[x])) {
		x--
	}
	dst = s.cup(dst, y, x)
	dst = s.sgr(dst, attachwire.BlankCell())
	dst = append(dst, "\x1b[K"...)
	dst = s.cells(dst, want, x, repaint.TrimBlanks(want))
	copy(shown, want)
	return dst
}

// cells paints cells[x:end] from the terminal's cursor, at column x of
// a row that is blank from there: blank runs are jumped over, and the
// column is set again after every glyph that is not one ASCII character,
// which also ends any joining of what follows with it.
func (s *Screen) cells(dst []byte, cells []attachwire.Cell, x, end int) []byte {
	sync := false
	for ; x < end; x++ {
		c := cells[x]
		if isCont(c) {
			sync = true
			continue
		}
		if c == attachwire.BlankCell() {
			run := x + 1
			for run < end && cells[run] == attachwire.BlankCell() {
				run++
			}
			if run-x >= 4 || s.pen != attachwire.BlankCell() {
				x = run - 1
				sync = true
				continue
			}
		}
		if sync {
			dst = append(dst, "\x1b["...)
			dst = strconv.AppendInt(dst, int64(x+1), 10)
			dst = append(dst, 'G')
			sync = false
		}
		dst = s.sgr(dst, c)
		if t := c.Content; len(t) == 1 && t[0] >= 0x20 && t[0] < 0x7F {
			dst = append(dst, t[0])
			continue
		}
		if attachwire.ValidCellContent(c.Content) {
			dst = append(dst, c.Content...)
		} else {
			dst = append(dst, "\uFFFD"...)
		}
		sync = true
	}
	return dst
}

// cursor places the cursor and sets its visibility and shape when they
// changed or the paint moved it.
func (s *Screen) cursor(dst []byte, moved bool) []byte {
	n := &s.now
	if !s.cursorKnown || moved || n.CursorRow != s.curRow || n.CursorCol != s.curCol {
		dst = s.cup(dst, n.CursorRow, n.CursorCol)
	}
	if !s.cursorKnown || n.CursorVisible != s.curVisible {
		if n.CursorVisible {
			dst = append(dst, "\x1b[?25h"...)
		} else {
			dst = append(dst, "\x1b[?25l"...)
		}
	}
	if !s.cursorKnown || n.CursorShape != s.shape {
		dst = append(dst, "\x1b["...)
		dst = strconv.AppendInt(dst, int64(decscusr(n.CursorShape)), 10)
		dst = append(dst, " q"...)
	}
	s.cursorKnown = true
	s.curRow, s.curCol, s.curVisible, s.shape = n.CursorRow, n.CursorCol, n.CursorVisible, n.CursorShape
	return dst
}

// inputModes sets the terminal's input modes to the program's while the
// page holds the pen, and turns them all off otherwise.
func (s *Screen) inputModes(dst []byte) []byte {
	var m attachwire.Modes
	var mouse attachwire.MouseProto
	if s.input {
		m = s.now.Modes & inputMask
		if m&attachwire.ModeMouse != 0 {
			mouse = s.now.Mouse
		}
	}
	if s.modesKnown && m == s.modes && mouse == s.mouse {
		return dst
	}
	s.modesKnown, s.modes, s.mouse = true, m, mouse
	return repaint.AppendInputModes(dst, m, mouse)
}

// sgr switches the pen to c's style and colors, if it differs.
func (s *Screen) sgr(dst []byte, c attachwire.Cell) []byte {
	c.Content = " "
	if c == s.pen {
		return dst
	}
	s.pen = c
	dst = append(dst, "\x1b[0"...)
	for _, a := range [...]struct {
		bit attachwire.Style
		sgr string
	}{
		{attachwire.StyleBold, ";1"}, {attachwire.StyleDim, ";2"}, {attachwire.StyleItalic, ";3"}, {attachwire.StyleUnderline, ";4"},
		{attachwire.StyleReverse, ";7"}, {attachwire.StyleStrikethrough, ";9"},
	} {
		if c.Style&a.bit != 0 {
			dst = append(dst, a.sgr...)
		}
	}
	dst = repaint.AppendSGRColor(dst, c.Fg, 30)
	dst = repaint.AppendSGRColor(dst, c.Bg, 40)
	return append(dst, 'm')
}

// cup moves the cursor to 0-based (row, col).
func (s *Screen) cup(dst []byte, row, col int) []byte {
	dst = append(dst, "\x1b["...)
	dst = strconv.AppendInt(dst, int64(row+1), 10)
	if col > 0 {
		dst = append(dst, ';')
		dst = strconv.AppendInt(dst, int64(col+1), 10)
	}
	return append(dst, 'H')
}

func isCont(c attachwire.Cell) bool { return c.Style&attachwire.StyleWideCont != 0 }

// decscusr returns the DECSCUSR parameter of a shape (steady variants;
// 0 the terminal's default).
func decscusr(sh attachwire.CursorShape) int {
	switch sh {
	case attachwire.CursorBlock:
		return 2
	case attachwire.CursorUnderline:
		return 4
	case attachwire.CursorBar:
		return 6
	}
	return 0
}

// blankCells returns c resized to n cells, all blank.
func blankCells(c []attachwire.Cell, n int) []attachwire.Cell {
	if cap(c) < n {
		c = make([]attachwire.Cell, n)
	}
	c = c[:n]
	for i := range c {
		c[i] = attachwire.BlankCell()
	}
	return c
}

// padded returns line as exactly cols cells: cut, or filled with blanks.
func padded(line []attachwire.Cell, cols int) []attachwire.Cell {
	if len(line) >= cols {
		return line[:cols]
	}
	out := make([]attachwire.Cell, cols)
	copy(out, line)
	for i := len(line); i < cols; i++ {
		out[i] = attachwire.BlankCell()
	}
	return out
}
