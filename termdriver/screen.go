package termdriver

import (
	"strings"

	"github.com/ptyhost/ptyhost/attachwire"
)

// Screen is a session's screen as text: what its host's terminal emulator
// shows at one seq of the session's stream. A Screen is a plain value.
type Screen struct {
	// Seq is the HostSeq the screen reflects: replaying the session's
	// frames 1..Seq gives it.
	Seq uint64

	Cols, Rows int

	// Lines holds the Rows visible lines of the active buffer, top to
	// bottom, trailing blanks trimmed; a wide glyph is one character.
	Lines []string

	// CursorRow and CursorCol are the cursor's 0-based position, in cells.
	CursorRow, CursorCol int
	CursorVisible        bool

	// AltScreen is set while the program uses the alternate screen (a
	// full-screen program: vim, less, top).
	AltScreen bool

	// AppCursorKeys is the program's cursor-key mode (DECCKM), which
	// decides how Type encodes the arrows, Home and End.
	AppCursorKeys bool

	// Scrollback holds the lines scrolled off the top of the primary
	// screen, oldest first, when ScreenOptions.Scrollback asked for them.
	Scrollback []string

	// Base is the seq of the screen Changed is relative to, 0 when the
	// screen is not compared with an earlier one.
	Base uint64

	// Changed lists the rows that differ from the screen at Base, in text
	// or in where the cursor is, in order. It is meaningful only when Base
	// is not 0; empty then means the screen is unchanged.
	Changed []int

	// Exited is set once the program has exited, with its status in Exit;
	// the screen is then the final one.
	Exited bool
	Exit   attachwire.Exit

	// cursorByte is the byte offset in Lines[CursorRow] of the cell under
	// the cursor, and cursorPad the blanks to add first when the cursor
	// sits past the line's trimmed end; set when cursorKnown, that is when
	// the screen was rendered from cells, which know the glyphs' widths.
	cursorByte, cursorPad int
	cursorKnown           bool
}

// Unchanged reports whether the screen was compared with an earlier one
// and nothing differs.
func (s *Screen) Unchanged() bool { return s.Base != 0 && len(s.Changed) == 0 }

// Text returns the visible lines joined by newlines, without the cursor:
// what Wait matches its pattern against.
func (s *Screen) Text() string { return strings.Join(s.Lines, "\n") }

// Line returns row r with mark inserted before the cell under the cursor
// when the cursor is on that row and visible; otherwise the row as is.
func (s *Screen) Line(r int, mark string) string {
	line := s.Lines[r]
	if r != s.CursorRow || !s.CursorVisible || mark == "" {
		return line
	}
	at, pad := min(s.cursorByte, len(line)), s.cursorPad
	if !s.cursorKnown {
		// A Screen built by hand: one column per character.
		at, pad = len(line), s.CursorCol
		for i := range line {
			if pad == 0 {
				at = i
				break
			}
			pad--
		}
	}
	return line[:at] + strings.Repeat(" ", pad) + mark + line[at:]
}

// Marked returns the visible lines joined by newlines with mark inserted
// at the cursor (when it is visible), and the blank lines at the bottom
// below the cursor left out.
func (s *Screen) Marked(mark string) string {
	n := len(s.Lines)
	for n > 0 && s.Lines[n-1] == "" && (n-1 > s.CursorRow || !s.CursorVisible) {
		n--
	}
	var b strings.Builder
	for r := range n {
		if r > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(s.Line(r, mark))
	}
	return b.String()
}

// newScreen renders a host snapshot taken at seq as text, with up to
// scrollback lines of history (-1 for all of it).
func newScreen(scr *attachwire.Screen, seq uint64, scrollback int) Screen {
	grid := scr.Primary
	if scr.Active == attachwire.BufferAlternate && scr.Alt != nil {
		grid = scr.Alt
	}
	s := Screen{
		Seq:           seq,
		Cols:          scr.Cols,
		Rows:          scr.Rows,
		Lines:         make([]string, scr.Rows),
		CursorRow:     scr.CursorRow,
		CursorCol:     scr.CursorCol,
		CursorVisible: scr.CursorVisible,
		AltScreen:     scr.Active == attachwire.BufferAlternate,
		AppCursorKeys: scr.Modes&attachwire.ModeAppCursorKeys != 0,
		cursorKnown:   true,
	}
	for r := range scr.Rows {
		if (r+1)*scr.Cols > len(grid) {
			break
		}
		cells := grid[r*scr.Cols : (r+1)*scr.Cols]
		cursor := -1
		if r == scr.CursorRow {
			cursor = scr.CursorCol
		}
		s.Lines[r], s.cursorByte, s.cursorPad = cellsText(cells, cursor, s.cursorByte, s.cursorPad)
	}
	if scrollback != 0 {
		lines := scr.Scrollback
		if scrollback > 0 && len(lines) > scrollback {
			lines = lines[len(lines)-scrollback:]
		}
		s.Scrollback = make([]string, len(lines))
		for i, l := range lines {
			s.Scrollback[i], _, _ = cellsText(l, -1, 0, 0)
		}
	}
	return s
}

// cellsText joins the contents of a row of cells, skipping wide-glyph
// continuation cells, and trims trailing blanks. When cursor is a column
// of the row it also returns where the cursor sits in the text (see
// Screen.cursorByte); otherwise it returns byteAt and pad unchanged.
func cellsText(cells []attachwire.Cell, cursor, byteAt, pad int) (string, int, int) {
	var b strings.Builder
	at := -1
	for i, c := range cells {
		if i == cursor {
			at = b.Len()
		}
		switch {
		case c.Style&attachwire.StyleWideCont != 0:
		case c.Content == "":
			b.WriteByte(' ')
		default:
			b.WriteString(c.Content)
		}
	}
	text := strings.TrimRight(b.String(), " ")
	if cursor < 0 {
		return text, byteAt, pad
	}
	switch {
	case at < 0: // past the last column: the pending-wrap position
		return text, len(text), max(0, b.Len()-len(text))
	case at > len(text):
		return text, len(text), at - len(text)
	}
	return text, at, 0
}

// diffRows returns the rows of s that differ from base in text or in the
// cursor's place, or ok false when the screens are not comparable (a
// different size).
func diffRows(base, s *Screen) (changed []int, ok bool) {
	if base.Rows != s.Rows || base.Cols != s.Cols || len(base.Lines) != len(s.Lines) {
		return nil, false
	}
	changed = []int{}
	for r := range s.Lines {
		if s.Lines[r] != base.Lines[r] || cursorIn(base, r) != cursorIn(s, r) {
			changed = append(changed, r)
		}
	}
	return changed, true
}

// cursorIn returns the cursor's column when it is shown on row r, else -1.
func cursorIn(s *Screen, r int) int {
	if s.CursorRow != r || !s.CursorVisible {
		return -1
	}
	return s.CursorCol
}
