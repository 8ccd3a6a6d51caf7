package termtest

import (
	"fmt"
	"strings"

	"github.com/ptyhost/ptyhost/attachwire"
)

// Attrs are the cell attributes a Grid compares: the StyleBold, StyleItalic,
// StyleUnderline, StyleReverse, StyleDim and StyleStrikethrough bits of
// attachwire.Style (never StyleWideCont).
type Attrs = attachwire.Style

// attrMask selects the attributes a Grid keeps.
const attrMask = attachwire.StyleBold | attachwire.StyleItalic | attachwire.StyleUnderline |
	attachwire.StyleReverse | attachwire.StyleDim | attachwire.StyleStrikethrough

// Cell is one grid position: Text is the grapheme shown there (" " for a
// blank, "" for the continuation of a wide glyph).
type Cell struct {
	Text   string
	Attrs  Attrs
	Fg, Bg attachwire.Color
}

// Grid is a screen reduced to what two emulators can be compared on: text
// per cell, attributes and colors, and the cursor. A Grid is a plain value.
type Grid struct {
	Cols, Rows int
	// Cells holds Rows*Cols cells, row-major.
	Cells []Cell
	// CursorRow and CursorCol are 0-based; -1 when unknown.
	CursorRow, CursorCol int
	// Extent, when not nil, holds per row the number of leading cells the
	// source reported; the cells past it are blanks whose attributes are
	// unknown. tmux's capture-pane stops at a line's last written cell, so
	// cells erased after it (with a background color, by EL or ECH) are
	// not in it.
	Extent []int
	// Wrap tells whether the cursor waits past the last column (the next
	// printable character wraps first).
	Wrap WrapState
	// History holds the primary screen's scrolled-off rows, oldest first,
	// when the source provided them (FromScreenHistory, TmuxHistory); nil
	// otherwise. Rows may be shorter than Cols.
	History [][]Cell
}

// WrapState is the pending-wrap state of a Grid's cursor.
type WrapState uint8

// Pending-wrap states.
const (
	WrapUnknown WrapState = iota
	WrapNone
	WrapPending
)

// SetTmuxCursor sets the cursor from tmux's cursor_x and cursor_y: a
// cursor_x past the last column is tmux's pending wrap.
func (g *Grid) SetTmuxCursor(x, y int) {
	g.CursorCol, g.CursorRow, g.Wrap = x, y, WrapNone
	if x >= g.Cols {
		g.CursorCol, g.Wrap = g.Cols-1, WrapPending
	}
}

// NewGrid returns a blank grid with an unknown cursor.
func NewGrid(cols, rows int) Grid {
	g := Grid{Cols: cols, Rows: rows, Cells: make([]Cell, cols*rows), CursorRow: -1, CursorCol: -1}
	for i := range g.Cells {
		g.Cells[i].Text = " "
	}
	return g
}

// At returns the cell at row r, column c.
func (g *Grid) At(r, c int) Cell { return g.Cells[r*g.Cols+c] }

// Text returns the grid's text, one line per row, trailing blanks trimmed.
func (g *Grid) Text() string {
	var b strings.Builder
	for r := range g.Rows {
		var line strings.Builder
		for c := range g.Cols {
			line.WriteString(g.At(r, c).Text)
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

// FromScreen returns the grid of the active buffer of s, with its cursor.
func FromScreen(s *attachwire.Screen) Grid {
	cells := s.Primary
	if s.Active == attachwire.BufferAlternate && s.Alt != nil {
		cells = s.Alt
	}
	g := Grid{Cols: s.Cols, Rows: s.Rows, Cells: make([]Cell, len(cells)), CursorRow: s.CursorRow, CursorCol: s.CursorCol, Wrap: WrapNone}
	if s.Modes&attachwire.ModePendingWrap != 0 {
		g.Wrap = WrapPending
	}
	for i, c := range cells {
		if c.Style&attachwire.StyleWideCont != 0 {
			g.Cells[i] = Cell{Fg: c.Fg, Bg: c.Bg}
			continue
		}
		g.Cells[i] = Cell{Text: c.Content, Attrs: c.Style & attrMask, Fg: c.Fg, Bg: c.Bg}
	}
	return g
}

// FromScreenHistory is FromScreen with History filled from s.Scrollback.
func FromScreenHistory(s *attachwire.Screen) Grid {
	g := FromScreen(s)
	g.History = make([][]Cell, len(s.Scrollback))
	for i, line := range s.Scrollback {
		g.History[i] = make([]Cell, len(line))
		for j, c := range line {
			if c.Style&attachwire.StyleWideCont != 0 {
				g.History[i][j] = Cell{Fg: c.Fg, Bg: c.Bg}
				continue
			}
			g.History[i][j] = Cell{Text: c.Content, Attrs: c.Style & attrMask, Fg: c.Fg, Bg: c.Bg}
		}
	}
	return g
}

// MaxDiffs is the number of differences Diff reports before summarising
// the rest.
const MaxDiffs = 20

// Diff compares two grids and returns their differences, human-readable,
// at most MaxDiffs of them plus a count of the rest; nil when they match.
//
// What it compares, chosen so that tmux's capture-pane normalisations make
// no false differences:
//   - sizes must match, then every cell's text;
//   - continuation cells of wide glyphs compare equal to each other,
//     whatever their attributes (tmux does not report them);
//   - a blank cell (" ") compares only its background, reverse, underline
//     and strikethrough (the attributes visible on a space); other cells
//     compare every attribute and both colors;
//   - colors compare as kind and value: an indexed color is the same
//     whether it was set with SGR 31, 91 or 38;5;n (the parsers map all
//     of them to an index), the default color is distinct from index 0;
//   - past a row's Extent (in either grid) only the text compares;
//   - History compares only when both grids have it: the number of rows,
//     then each row's text, blanks padding the shorter row (attributes
//     compare as on screen, except that cells past either row's end compare
//     text only: both tmux and x/vt trim trailing blanks from history);
//   - the cursor and its pending-wrap state compare only when both grids
//     know them (tmux reports a pending wrap as a cursor one column past
//     the last; TmuxScreen and DecodeGolden turn that into WrapPending).
func Diff(want, got Grid) []string {
	if want.Cols != got.Cols || want.Rows != got.Rows || len(want.Cells) != len(got.Cells) {
		return []string{fmt.Sprintf("size: want %dx%d, got %dx%d", want.Cols, want.Rows, got.Cols, got.Rows)}
	}
	var out []string
	n := 0
	add := func(s string) {
		if n++; n <= MaxDiffs {
			out = append(out, s)
		}
	}
	if want.CursorRow >= 0 && got.CursorRow >= 0 && (want.CursorRow != got.CursorRow || want.CursorCol != got.CursorCol) {
		add(fmt.Sprintf("cursor: want row %d col %d, got row %d col %d", want.CursorRow, want.CursorCol, got.CursorRow, got.CursorCol))
	}
	if want.Wrap != WrapUnknown && got.Wrap != WrapUnknown && want.Wrap != got.Wrap {
		add(fmt.Sprintf("pending wrap: want %v, got %v", want.Wrap == WrapPending, got.Wrap == WrapPending))
	}
	for i := range want.Cells {
		w, g := want.Cells[i], got.Cells[i]
		r, c := i/want.Cols, i%want.Cols
		if c >= want.extent(r) || c >= got.extent(r) {
			if w.Text != g.Text {
				add(fmt.Sprintf("r%dc%d: want %q, got %q (text only past the reported extent)", r, c, w.Text, g.Text))
			}
			continue
		}
		if !SameCell(w, g) {
			add(fmt.Sprintf("r%dc%d: want %s, got %s", i/want.Cols, i%want.Cols, w, g))
		}
	}
	if want.History != nil && got.History != nil {
		diffHistory(want.History, got.History, add)
	}
	if n > MaxDiffs {
		out = append(out, fmt.Sprintf("... and %d more", n-MaxDiffs))
	}
	return out
}

func diffHistory(want, got [][]Cell, add func(string)) {
	if len(want) != len(got) {
		add(fmt.Sprintf("history: want %d rows, got %d", len(want), len(got)))
		return
	}
	blank := Cell{Text: " "}
	for r := range want {
		for c := range max(len(want[r]), len(got[r])) {
			w, g := blank, blank
			if c < len(want[r]) {
				w = want[r][c]
			}
			if c < len(got[r]) {
				g = got[r][c]
			}
			past := c >= len(want[r]) || c >= len(got[r])
			if (past && w.Text != g.Text) || (!past && !SameCell(w, g)) {
				add(fmt.Sprintf("history r%dc%d: want %s, got %s", r, c, w, g))
			}
		}
	}
}

func (g *Grid) extent(r int) int {
	if g.Extent == nil {
		return g.Cols
	}
	return g.Extent[r]
}

// SameCell reports whether two cells compare equal under Diff's rules.
func SameCell(a, b Cell) bool {
	switch {
	case a.Text != b.Text:
		return false
	case a.Text == "":
		return true
	case a.Text == " ":
		const visible = attachwire.StyleReverse | attachwire.StyleUnderline | attachwire.StyleStrikethrough
		return a.Bg == b.Bg && a.Attrs&visible == b.Attrs&visible
	}
	return a.Attrs == b.Attrs && a.Fg == b.Fg && a.Bg == b.Bg
}

// String describes a cell for Diff.
func (c Cell) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q", c.Text)
	for _, a := range []struct {
		bit  attachwire.Style
		name string
	}{
		{attachwire.StyleBold, "bold"}, {attachwire.StyleDim, "dim"}, {attachwire.StyleItalic, "italic"},
		{attachwire.StyleUnderline, "underline"}, {attachwire.StyleReverse, "reverse"},
		{attachwire.StyleStrikethrough, "strike"},
	} {
		if c.Attrs&a.bit != 0 {
			b.WriteString(" " + a.name)
		}
	}
	fmt.Fprintf(&b, " fg=%s bg=%s", colorName(c.Fg), colorName(c.Bg))
	return b.String()
}

func colorName(c attachwire.Color) string {
	switch c.Kind() {
	case attachwire.ColorIndexed:
		return fmt.Sprintf("%d", c.Index())
	case attachwire.ColorRGB:
		r, g, b := c.RGB()
		return fmt.Sprintf("#%02x%02x%02x", r, g, b)
	}
	return "default"
}
