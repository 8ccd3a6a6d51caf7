package repaint

import (
	"math/rand/v2"

	"github.com/ptyhost/ptyhost/attachwire"
)

// Screens for the tests, copied from attachwire's codec tests (test
// fixtures are not exported across packages).

// goldenScreen is a 3x1 screen: a bold wide glyph in RGB, its
// continuation, and an "x" in indexed colors, plus one scrollback line.
func goldenScreen() *attachwire.Screen {
	pink := attachwire.RGBColor(0xFF, 0x00, 0x80)
	return &attachwire.Screen{
		Epoch: 7, Echo: attachwire.EchoOn, Cols: 3, Rows: 1,
		CursorCol: 2, CursorVisible: true, CursorShape: attachwire.CursorBar,
		Modes: attachwire.ModeBracketedPaste, SavedCursorCol: 2,
		Primary: []attachwire.Cell{
			{Content: "中", Style: attachwire.StyleBold, Fg: pink},
			{Style: attachwire.StyleWideCont, Fg: pink},
			{Content: "x", Fg: attachwire.IndexedColor(196), Bg: attachwire.IndexedColor(4)},
		},
		Scrollback: [][]attachwire.Cell{{{Content: "a"}}},
	}
}

// randScreen returns a valid random screen; scrollback lines have random
// lengths (some longer than cols, some empty).
func randScreen(r *rand.Rand, cols, rows, scrollback int) *attachwire.Screen {
	s := &attachwire.Screen{
		Epoch: r.Uint64() >> r.IntN(64), Echo: []attachwire.EchoMode{attachwire.EchoOff, attachwire.EchoOn, attachwire.EchoUnknown}[r.IntN(3)],
		Cols: cols, Rows: rows,
		CursorRow: r.IntN(rows), CursorCol: r.IntN(cols), CursorVisible: r.IntN(2) == 1,
		CursorShape: attachwire.CursorShape(r.IntN(4)), Modes: attachwire.Modes(r.IntN(0x20)),
	}
	if s.Modes&attachwire.ModeMouse != 0 {
		s.Mouse = attachwire.MouseProto(1+r.IntN(4)) | attachwire.MouseProto(r.IntN(3))<<4
	}
	s.Primary = randGrid(r, cols, rows)
	s.SavedCursorRow, s.SavedCursorCol = s.CursorRow, s.CursorCol
	if r.IntN(2) == 1 {
		s.Alt = randGrid(r, cols, rows)
		if r.IntN(2) == 1 {
			s.Active = attachwire.BufferAlternate
			s.SavedCursorRow, s.SavedCursorCol = r.IntN(rows), r.IntN(cols)
		}
	}
	for range scrollback {
		s.Scrollback = append(s.Scrollback, randCells(r, r.IntN(cols*2), cols))
	}
	return s
}

// Sample glyphs: the first wideGlyphs are two columns wide in terminals.
var sampleGlyphs = []string{"中", "😀", "👩\u200d💻", "a", "Z", " ", "~", "é", "Ü", "e\u0301", "\ufffd"}

const wideGlyphs = 3

// randCells returns n valid cells; a wide glyph is followed by its
// continuation cell, and is replaced by a narrow one where that would
// cross a multiple of cols.
func randCells(r *rand.Rand, n, cols int) []attachwire.Cell {
	if n == 0 {
		return nil
	}
	cells := make([]attachwire.Cell, n)
	for i := 0; i < n; i++ {
		g := r.IntN(len(sampleGlyphs))
		if g < wideGlyphs && (i+1 == n || (i+1)%cols == 0) {
			g = wideGlyphs + r.IntN(len(sampleGlyphs)-wideGlyphs)
		}
		c := attachwire.Cell{Content: sampleGlyphs[g], Style: attachwire.Style(r.IntN(0x40)), Fg: randColor(r), Bg: randColor(r)}
		if r.IntN(3) == 0 {
			c, g = attachwire.BlankCell(), wideGlyphs
		}
		cells[i] = c
		if g < wideGlyphs {
			i++
			cells[i] = attachwire.Cell{Style: attachwire.StyleWideCont, Fg: c.Fg, Bg: c.Bg}
		}
	}
	return cells
}

// randGrid returns a valid random grid.
func randGrid(r *rand.Rand, cols, rows int) []attachwire.Cell { return randCells(r, cols*rows, cols) }

func randColor(r *rand.Rand) attachwire.Color {
	switch r.IntN(3) {
	case 1:
		return attachwire.IndexedColor(uint8(r.IntN(256)))
	case 2:
		return attachwire.RGBColor(uint8(r.IntN(256)), uint8(r.IntN(256)), uint8(r.IntN(256)))
	}
	return attachwire.DefaultColor
}

// benchScreen is a 120x40 terminal with 200 lines of scrollback: shell-like
// text, colored spans, trailing blanks, a few wide glyphs.
func benchScreen() *attachwire.Screen {
	r := rand.New(rand.NewPCG(42, 42))
	const cols, rows = 120, 40
	line := func(n int) []attachwire.Cell {
		cells := make([]attachwire.Cell, 0, n)
		fill := r.IntN(n + 1)
		pen := attachwire.Cell{}
		for len(cells) < n {
			if len(cells) >= fill {
				cells = append(cells, attachwire.BlankCell())
				continue
			}
			if r.IntN(12) == 0 {
				pen = attachwire.Cell{Style: attachwire.Style(r.IntN(2)), Fg: attachwire.IndexedColor(uint8(r.IntN(16)))}
				if r.IntN(4) == 0 {
					pen.Fg = attachwire.RGBColor(uint8(r.IntN(256)), 0x80, 0x40)
				}
			}
			if r.IntN(60) == 0 && len(cells)+1 < n {
				cells = append(cells, attachwire.Cell{Content: "中", Style: pen.Style, Fg: pen.Fg}, attachwire.Cell{Style: attachwire.StyleWideCont, Fg: pen.Fg})
				continue
			}
			c := pen
			c.Content = string(rune('!' + r.IntN(94)))
			if r.IntN(6) == 0 {
				c.Content = " "
			}
			cells = append(cells, c)
		}
		return cells
	}
	s := &attachwire.Screen{Cols: cols, Rows: rows, CursorRow: 39, CursorVisible: true}
	for range rows {
		s.Primary = append(s.Primary, line(cols)...)
	}
	for range 200 {
		s.Scrollback = append(s.Scrollback, line(cols))
	}
	return s
}
