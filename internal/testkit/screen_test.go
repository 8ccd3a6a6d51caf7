package testkit

import (
	"slices"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
)

// grid builds cells from rows of equal width, one cell a rune; '_' is a
// wide character's continuation cell (empty content).
func grid(rows ...string) []attachwire.Cell {
	var cells []attachwire.Cell
	for _, r := range rows {
		for _, ch := range r {
			c := attachwire.Cell{Content: string(ch)}
			if ch == '_' {
				c.Content = ""
			}
			cells = append(cells, c)
		}
	}
	return cells
}

func TestScreenText(t *testing.T) {
	primary := grid("ab  ", "    ", " c d")
	alt := grid("vim ", "~   ", "世_  ")
	tests := []struct {
		name    string
		scr     attachwire.Screen
		lines   []string
		history string
	}{
		{
			name:    "primary",
			scr:     attachwire.Screen{Cols: 4, Rows: 3, Primary: primary},
			lines:   []string{"ab", "", " c d"},
			history: "ab\n\n c d\n",
		},
		{
			name: "alternate active",
			scr: attachwire.Screen{Cols: 4, Rows: 3, Primary: primary, Alt: alt, Active: attachwire.BufferAlternate,
				Scrollback: [][]attachwire.Cell{grid("old  "), grid("x")}},
			lines:   []string{"vim", "~", "世"},
			history: "old\nx\nab\n\n c d\n",
		},
		{
			name:    "alternate active but absent",
			scr:     attachwire.Screen{Cols: 4, Rows: 3, Primary: primary, Active: attachwire.BufferAlternate},
			lines:   []string{"ab", "", " c d"},
			history: "ab\n\n c d\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Lines(tt.scr); !slices.Equal(got, tt.lines) {
				t.Errorf("Lines %q, want %q", got, tt.lines)
			}
			if got, want := Text(tt.scr), strings.Join(tt.lines, "\n"); got != want {
				t.Errorf("Text %q, want %q", got, want)
			}
			if got := History(tt.scr); got != tt.history {
				t.Errorf("History %q, want %q", got, tt.history)
			}
		})
	}
}

func TestRow(t *testing.T) {
	g := grid("abc ", " de ")
	for r, want := range []string{"abc", " de"} {
		if got := Row(g, 4, r); got != want {
			t.Errorf("Row %d = %q, want %q", r, got, want)
		}
	}
}
