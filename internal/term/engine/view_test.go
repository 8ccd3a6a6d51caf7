package engine

import (
	"reflect"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term"
)

func TestExportedRuneWidth(t *testing.T) {
	for _, c := range []struct {
		r    rune
		want int
	}{
		{'a', 1}, {0x07, 0}, {0x7F, 0}, {0x9B, 0}, {0xE9, 1}, {0x301, 0}, {0x200D, 0}, {0xFE0F, 0},
		{0x2705, 2}, {0x1F600, 2}, {0x1F3FD, 2}, {0x1F1EB, 1}, {0x65E5, 2}, {0x2500, 1},
	} {
		if got := RuneWidth(c.r); got != c.want {
			t.Errorf("RuneWidth(%U) = %d, want %d", c.r, got, c.want)
		}
	}
}

// TestVisibleAndHistory: Visible is Screen without the scrollback,
// ScrollbackLine is Screen's line, and History counts the lines pushed
// and the other changes apart.
func TestVisibleAndHistory(t *testing.T) {
	e := New(term.Options{Cols: 10, Rows: 3, Scrollback: 4})
	defer e.Close()
	check := func(wantLines int, wantPushed uint64) uint64 {
		t.Helper()
		var whole, vis attachwire.Screen
		e.Screen(&whole)
		e.Visible(&vis)
		lines, pushed, changed := e.History()
		if lines != wantLines || pushed != wantPushed || lines != len(whole.Scrollback) {
			t.Errorf("History = %d lines, %d pushed; want %d, %d (Screen has %d)", lines, pushed, wantLines, wantPushed, len(whole.Scrollback))
		}
		for i := range lines {
			if got := e.ScrollbackLine(i, nil); !reflect.DeepEqual(got, whole.Scrollback[i]) && (len(got) != 0 || len(whole.Scrollback[i]) != 0) {
				t.Errorf("ScrollbackLine(%d) = %v, Screen has %v", i, got, whole.Scrollback[i])
			}
		}
		if got := e.ScrollbackLine(lines, nil); len(got) != 0 {
			t.Errorf("ScrollbackLine past the end = %v", got)
		}
		whole.Scrollback = vis.Scrollback
		if !reflect.DeepEqual(whole, vis) {
			t.Errorf("Visible differs from Screen")
		}
		return changed
	}
	c0 := check(0, 0)
	e.Write([]byte("1\r\n2\r\n3\r\n4\r\n5\r\n\u2705x"))
	if c := check(3, 3); c != c0 {
		t.Errorf("pushing lines counted as a change: %d, was %d", c, c0)
	}
	e.Write([]byte("\r\n6\r\n7\r\n8"))
	check(4, 6) // the oldest lines dropped: pushed keeps counting
	c1 := check(4, 6)
	e.Write([]byte("\x1b[3J"))
	if c := check(0, 6); c == c1 {
		t.Errorf("ED 3 did not count as a change")
	}
}

// TestVisibleChanges: after every write VisibleChanges leaves the
// destination equal to Visible's, and flags every row that differs from
// what the previous call left.
func TestVisibleChanges(t *testing.T) {
	e := New(term.Options{Cols: 12, Rows: 4, Scrollback: 10})
	defer e.Close()
	var got, want attachwire.Screen
	var c RowCache
	prev := map[bool][]attachwire.Cell{}
	for i, in := range []string{
		"hello", "\r\nworld \u2705", "\x1b[2;3Hx", "\x1b[?1049h\x1b[31malt", "\x1b[2Jy", "\x1b[?1049l",
		"e\u0301\U0001F468\u200d\U0001F469", "\x1b#8", "\x1b[1;1H\x1b[2K", "1\r\n2\r\n3\r\n4\r\n5", "\x1b[8;5t",
	} {
		e.Write([]byte(in))
		e.VisibleChanges(&got, &c)
		e.Visible(&want)
		if !reflect.DeepEqual(got.Primary, want.Primary) || !reflect.DeepEqual(got.Alt, want.Alt) || got.CursorRow != want.CursorRow {
			t.Fatalf("step %d (%q): VisibleChanges differs from Visible", i, in)
		}
		for _, alt := range []bool{false, true} {
			grid := want.Primary
			if alt {
				grid = want.Alt
			}
			old := prev[alt]
			for y := range want.Rows {
				row := grid[min(y*want.Cols, len(grid)):min((y+1)*want.Cols, len(grid))]
				if len(row) == 0 {
					continue
				}
				if len(old) != len(grid) || !reflect.DeepEqual(row, old[y*want.Cols:(y+1)*want.Cols]) {
					if !c.Changed(alt, y) {
						t.Errorf("step %d (%q): row %d (alt %v) changed but is not flagged", i, in, y, alt)
					}
				}
			}
			prev[alt] = append([]attachwire.Cell(nil), grid...)
		}
	}
}
