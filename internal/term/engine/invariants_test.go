package engine

import (
	"testing"
	"unicode/utf8"

	"github.com/ptyhost/ptyhost/attachwire"
)

// checkInvariants asserts what every Screen must satisfy: grid sizes,
// cursor bounds, cell contents that are valid UTF-8 without controls, and
// well-formed wide glyphs.
func checkInvariants(tb testing.TB, s *attachwire.Screen) {
	tb.Helper()
	if s.Cols <= 0 || s.Rows <= 0 || len(s.Primary) != s.Cols*s.Rows {
		tb.Fatalf("grid %dx%d with %d primary cells", s.Cols, s.Rows, len(s.Primary))
	}
	if (s.Active == attachwire.BufferAlternate) != (s.Alt != nil) || s.Alt != nil && len(s.Alt) != s.Cols*s.Rows {
		tb.Fatalf("alt grid: active %d, %d cells", s.Active, len(s.Alt))
	}
	if s.CursorRow < 0 || s.CursorRow >= s.Rows || s.CursorCol < 0 || s.CursorCol >= s.Cols {
		tb.Fatalf("cursor %d,%d outside %dx%d", s.CursorRow, s.CursorCol, s.Cols, s.Rows)
	}
	if s.SavedCursorRow < 0 || s.SavedCursorRow >= s.Rows || s.SavedCursorCol < 0 || s.SavedCursorCol >= s.Cols {
		tb.Fatalf("saved cursor %d,%d outside %dx%d", s.SavedCursorRow, s.SavedCursorCol, s.Cols, s.Rows)
	}
	if s.Modes&0xE0 != 0 || s.Modes&attachwire.ModeMouse == 0 && s.Mouse != 0 {
		tb.Fatalf("modes %#x mouse %#x", s.Modes, s.Mouse)
	}
	checkCells := func(cells []attachwire.Cell, rowLen int) {
		for i, c := range cells {
			if c.Style&0x80 != 0 {
				tb.Fatalf("cell %d: reserved style bit", i)
			}
			if c.Style&attachwire.StyleWideCont != 0 {
				if c.Content != "" || c.Style != attachwire.StyleWideCont {
					tb.Fatalf("cell %d: continuation %+v", i, c)
				}
				if i%rowLen == 0 || cells[i-1].Style&attachwire.StyleWideCont != 0 {
					tb.Fatalf("cell %d: continuation without a base", i)
				}
				if b := cells[i-1]; b.Fg != c.Fg || b.Bg != c.Bg {
					tb.Fatalf("cell %d: continuation colors differ from base", i)
				}
				continue
			}
			if c.Content == "" || !utf8.ValidString(c.Content) {
				tb.Fatalf("cell %d: content %q", i, c.Content)
			}
			for _, r := range c.Content {
				if r < 0x20 || r >= 0x7F && r < 0xA0 {
					tb.Fatalf("cell %d: control %U in content", i, r)
				}
			}
		}
	}
	checkCells(s.Primary, s.Cols)
	checkCells(s.Alt, s.Cols)
	for _, l := range s.Scrollback {
		checkCells(l, max(len(l), 1))
	}
}
