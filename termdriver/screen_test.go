package termdriver

import (
	"slices"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
)

// grid builds a host screen from rows of text, one cell per rune (a rune
// followed by "\x00" is a wide glyph and its continuation cell).
func grid(cols int, rows ...string) attachwire.Screen {
	scr := attachwire.Screen{Cols: cols, Rows: len(rows), CursorVisible: true}
	for _, row := range rows {
		cells := make([]attachwire.Cell, 0, cols)
		for _, r := range row {
			if r == 0 {
				cells = append(cells, attachwire.Cell{Style: attachwire.StyleWideCont})
				continue
			}
			cells = append(cells, attachwire.Cell{Content: string(r)})
		}
		for len(cells) < cols {
			cells = append(cells, attachwire.BlankCell())
		}
		scr.Primary = append(scr.Primary, cells...)
	}
	return scr
}

func TestScreenMarked(t *testing.T) {
	tests := []struct {
		name     string
		rows     []string
		row, col int
		hidden   bool
		want     string
	}{
		{"end of prompt", []string{">>> ", "", ""}, 0, 4, false, ">>> ▌"},
		{"on a character", []string{"hello", "", ""}, 0, 1, false, "h▌ello"},
		{"past the text", []string{"ab", "", ""}, 0, 5, false, "ab   ▌"},
		{"blank line below text", []string{"a", "", ""}, 2, 0, false, "a\n\n▌"},
		{"hidden cursor", []string{"a", "b", ""}, 2, 0, true, "a\nb"},
		{"after a wide glyph", []string{"世\x00x", "", ""}, 0, 2, false, "世▌x"},
		{"pending wrap", []string{"abcdef", "", ""}, 0, 6, false, "abcdef▌"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			scr := grid(6, tt.rows...)
			scr.CursorRow, scr.CursorCol, scr.CursorVisible = tt.row, tt.col, !tt.hidden
			s := newScreen(&scr, 7, 0)
			if got := s.Marked("▌"); got != tt.want {
				t.Errorf("Marked = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestScreenScrollbackAndModes(t *testing.T) {
	scr := grid(4, "x", "y")
	scr.Scrollback = [][]attachwire.Cell{{{Content: "1"}}, {{Content: "2"}, {Content: " "}}, {{Content: "3"}}}
	scr.Modes = attachwire.ModeAppCursorKeys
	scr.Alt = make([]attachwire.Cell, 8)
	for i := range scr.Alt {
		scr.Alt[i] = attachwire.BlankCell()
	}
	scr.Alt[0].Content = "A"
	scr.Active = attachwire.BufferAlternate
	s := newScreen(&scr, 1, 2)
	if !slices.Equal(s.Scrollback, []string{"2", "3"}) {
		t.Errorf("scrollback %q", s.Scrollback)
	}
	if !s.AppCursorKeys || !s.AltScreen || s.Lines[0] != "A" {
		t.Errorf("screen %+v", s)
	}
	if all := newScreen(&scr, 1, -1); len(all.Scrollback) != 3 {
		t.Errorf("all scrollback: %q", all.Scrollback)
	}
}

func TestDiffRows(t *testing.T) {
	a := grid(5, "one", "two", "three")
	a.CursorRow, a.CursorCol = 2, 5
	b := grid(5, "one", "TWO", "three")
	b.CursorRow, b.CursorCol = 0, 3
	sa, sb := newScreen(&a, 1, 0), newScreen(&b, 2, 0)
	changed, ok := diffRows(&sa, &sb)
	if !ok || !slices.Equal(changed, []int{0, 1, 2}) {
		t.Errorf("changed %v, %v; want rows 0 (cursor), 1 (text), 2 (cursor)", changed, ok)
	}
	if changed, ok := diffRows(&sa, &sa); !ok || len(changed) != 0 {
		t.Errorf("same screen: %v, %v", changed, ok)
	}
	c := grid(6, "one", "two", "three")
	sc := newScreen(&c, 3, 0)
	if _, ok := diffRows(&sa, &sc); ok {
		t.Error("screens of different sizes compared")
	}
}
