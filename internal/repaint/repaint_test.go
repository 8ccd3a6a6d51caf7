package repaint

import (
	"image/color"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ptyhost/ptyhost/attachwire"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
)

func TestRepaintGolden(t *testing.T) {
	s := goldenScreen()
	s.Modes |= attachwire.ModeMouse
	s.Mouse = attachwire.MouseAny | attachwire.MouseEncSGR
	const preamble = "\x1b[?1049l\x1b[?25l\x1b[0m\x1b[r\x1b[4l\x1b[?6l\x1b[?7l\x1b[H\x1b[2J"
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"screen only", Options{}, preamble +
			"\x1b[1H\x1b[0;1;38;2;255;0;128m中" + // row 1: bold pink wide glyph
			"\x1b[3G\x1b[0;38;5;196;44mx" + // re-sync after it, idx 196 on idx 4
			"\x1b[0m\x1b[6 q\x1b[?25h\x1b[?7h\x1b[1;3H"}, // bar cursor, visible, at (0,2)
		{"scrollback and input modes", Options{Scrollback: true, InputModes: true}, preamble +
			"a\r\n\x1b[H\x1b[2J" + // one line, scrolled off the one-row screen by its LF
			"\x1b[1H\x1b[0;1;38;2;255;0;128m中\x1b[3G\x1b[0;38;5;196;44mx\x1b[0m" +
			"\x1b[?1;2004;1004;1000;1002;1003;1005;1006l\x1b[?2004;1003;1006h" +
			"\x1b[6 q\x1b[?25h\x1b[?7h\x1b[1;3H"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(AppendScreen(nil, s, tt.opts))
			if got != tt.want {
				t.Fatalf("AppendANSI =\n%q\nwant\n%q", got, tt.want)
			}
			checkViewerSafe(t, got, tt.opts.InputModes)
		})
	}
}

// Modes a Viewer-profile sanitizer passes (SANITIZER.md), and the extra
// ones the Driver profile passes.
var (
	viewerDECModes = map[int]bool{1: true, 6: true, 7: true, 12: true, 25: true, 47: true, 1047: true, 1048: true, 1049: true, 2026: true, 2027: true}
	driverDECModes = map[int]bool{1000: true, 1002: true, 1003: true, 1004: true, 1005: true, 1006: true, 1015: true, 2004: true}
)

// checkViewerSafe fails unless out holds only printable UTF-8, CR, LF
// and the CSI sequences a Viewer-profile sanitizer passes (Driver modes
// too when driver is set), in 7-bit form.
func checkViewerSafe(tb testing.TB, out string, driver bool) {
	tb.Helper()
	for i := 0; i < len(out); {
		b := out[i]
		switch {
		case b == '\r' || b == '\n':
			i++
			continue
		case b == 0x1b:
			n := checkCSI(tb, out[i:], driver)
			i += n
			continue
		case b < 0x20 || b == 0x7f:
			tb.Fatalf("control byte 0x%02x at %d", b, i)
		}
		r, size := utf8.DecodeRuneInString(out[i:])
		if r == utf8.RuneError && size == 1 || r >= 0x80 && r <= 0x9f {
			tb.Fatalf("invalid or C1 text at %d: %q", i, out[i:i+size])
		}
		i += size
	}
}

// checkCSI checks the sequence at the start of s and returns its length.
func checkCSI(tb testing.TB, s string, driver bool) int {
	tb.Helper()
	if len(s) < 3 || s[1] != '[' {
		tb.Fatalf("escape that is not a CSI: %q", s[:min(len(s), 6)])
	}
	end := 2
	for end < len(s) && (s[end] >= '0' && s[end] <= '9' || s[end] == ';' || s[end] == '?' || s[end] == ' ') {
		end++
	}
	if end == len(s) {
		tb.Fatalf("unterminated CSI %q", s)
	}
	params, final := s[2:end], s[end]
	private := strings.HasPrefix(params, "?")
	params = strings.TrimPrefix(params, "?")
	spaced := strings.HasSuffix(params, " ")
	params = strings.TrimSuffix(params, " ")
	var nums []int
	if params != "" {
		for _, p := range strings.Split(params, ";") {
			n, err := strconv.Atoi(p)
			if err != nil {
				tb.Fatalf("bad CSI parameter in %q", s[:end+1])
			}
			nums = append(nums, n)
		}
	}
	ok := false
	switch {
	case spaced:
		ok = !private && final == 'q' && len(nums) == 1 && nums[0] <= 6
	case private:
		ok = final == 'h' || final == 'l'
		for _, n := range nums {
			ok = ok && (viewerDECModes[n] || driver && driverDECModes[n])
		}
	case final == 'h' || final == 'l':
		ok = len(nums) == 1 && nums[0] == 4
	default:
		ok = strings.IndexByte("HJKmGr", final) >= 0
	}
	if !ok {
		tb.Fatalf("sequence %q is not in the viewer profile", s[:end+1])
	}
	return end + 1
}

// emulate feeds a repaint to a fresh x/vt emulator of s's size.
func emulate(tb testing.TB, s *attachwire.Screen, opts Options) *vt.Emulator {
	tb.Helper()
	e := vt.NewEmulator(s.Cols, s.Rows)
	out := AppendScreen(nil, s, opts)
	checkViewerSafe(tb, string(out), opts.InputModes)
	if _, err := e.Write(out); err != nil {
		tb.Fatal(err)
	}
	return e
}

// vtColor maps an x/vt color to a Color.
func vtColor(c color.Color) attachwire.Color {
	switch c := c.(type) {
	case nil:
		return attachwire.DefaultColor
	case ansi.BasicColor:
		return attachwire.IndexedColor(uint8(c))
	case ansi.IndexedColor:
		return attachwire.IndexedColor(uint8(c))
	}
	r, g, b, _ := c.RGBA()
	return attachwire.RGBColor(uint8(r>>8), uint8(g>>8), uint8(b>>8))
}

// vtCells converts a line of x/vt cells to Cells, wide glyphs followed by
// continuation cells.
func vtCells(line []*uv.Cell) []attachwire.Cell {
	out := make([]attachwire.Cell, 0, len(line))
	var base attachwire.Cell
	for _, c := range line {
		switch {
		case c == nil:
			out = append(out, attachwire.BlankCell())
		case c.Width == 0:
			out = append(out, attachwire.Cell{Style: attachwire.StyleWideCont, Fg: base.Fg, Bg: base.Bg})
		default:
			base = attachwire.Cell{Content: c.Content, Fg: vtColor(c.Style.Fg), Bg: vtColor(c.Style.Bg)}
			a := c.Style.Attrs
			for _, m := range []struct {
				bit uint8
				st  attachwire.Style
			}{{uv.AttrBold, attachwire.StyleBold}, {uv.AttrFaint, attachwire.StyleDim}, {uv.AttrItalic, attachwire.StyleItalic},
				{uv.AttrReverse, attachwire.StyleReverse}, {uv.AttrStrikethrough, attachwire.StyleStrikethrough}} {
				if a&m.bit != 0 {
					base.Style |= m.st
				}
			}
			if c.Style.Underline != uv.UnderlineNone {
				base.Style |= attachwire.StyleUnderline
			}
			out = append(out, base)
		}
	}
	return out
}

// vtGrid returns the emulator's active screen as cells.
func vtGrid(e *vt.Emulator) []attachwire.Cell {
	var line []*uv.Cell
	for y := range e.Height() {
		for x := range e.Width() {
			line = append(line, e.CellAt(x, y))
		}
	}
	return vtCells(line)
}

// checkGrid compares an emulator's grid with want, row by row.
func checkGrid(tb testing.TB, what string, e *vt.Emulator, want []attachwire.Cell) {
	tb.Helper()
	got := vtGrid(e)
	cols := e.Width()
	for i := range want {
		if got[i] != want[i] {
			tb.Fatalf("%s cell (%d,%d) = %+v, want %+v", what, i/cols, i%cols, got[i], want[i])
		}
	}
}

// checkCursor compares the emulator's cursor with s's.
func checkCursor(tb testing.TB, e *vt.Emulator, s *attachwire.Screen) {
	tb.Helper()
	pos := e.CursorPosition()
	if pos.Y != s.CursorRow || pos.X != s.CursorCol {
		tb.Fatalf("cursor at (%d,%d), want (%d,%d)", pos.Y, pos.X, s.CursorRow, s.CursorCol)
	}
	if e.CursorHidden() == s.CursorVisible {
		tb.Fatalf("cursor hidden = %v, want visible = %v", e.CursorHidden(), s.CursorVisible)
	}
	style, blink := e.CursorStyle()
	wantStyle := map[attachwire.CursorShape]vt.CursorStyle{attachwire.CursorDefault: vt.CursorBlock, attachwire.CursorBlock: vt.CursorBlock,
		attachwire.CursorUnderline: vt.CursorUnderline, attachwire.CursorBar: vt.CursorBar}[s.CursorShape]
	if style != wantStyle || blink != (s.CursorShape == attachwire.CursorDefault) {
		tb.Fatalf("cursor style %v blink %v, want shape %d", style, blink, s.CursorShape)
	}
}

// denseScreen is a random screen without blank-heavy rows.
func TestRepaintReproducesScreen(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for i := range 150 {
		cols, rows := 1+r.IntN(20), 1+r.IntN(8)
		s := randScreen(r, cols, rows, 0)
		s.Modes &^= attachwire.ModePendingWrap
		e := emulate(t, s, Options{InputModes: i%2 == 0})
		if e.IsAltScreen() != (s.Active == attachwire.BufferAlternate) {
			t.Fatalf("case %d: alt screen = %v, want %v", i, e.IsAltScreen(), s.Active == attachwire.BufferAlternate)
		}
		grid := s.Primary
		if s.Active == attachwire.BufferAlternate {
			grid = s.Alt
		}
		checkGrid(t, "case "+strconv.Itoa(i), e, grid)
		checkCursor(t, e, s)
		if s.Active == attachwire.BufferAlternate {
			// Leaving the alternate screen shows the primary at the
			// saved cursor.
			e.WriteString("\x1b[?1049l")
			checkGrid(t, "primary of case "+strconv.Itoa(i), e, s.Primary)
			if pos := e.CursorPosition(); pos.X != s.SavedCursorCol || pos.Y != s.SavedCursorRow {
				t.Fatalf("case %d: restored cursor (%d,%d), want (%d,%d)", i, pos.Y, pos.X, s.SavedCursorRow, s.SavedCursorCol)
			}
		}
	}
}

func TestRepaintFullScreenDoesNotScroll(t *testing.T) {
	const cols, rows = 5, 3
	s := &attachwire.Screen{Cols: cols, Rows: rows, CursorVisible: true}
	for i := range cols * rows {
		s.Primary = append(s.Primary, attachwire.Cell{Content: string(rune('A' + i)), Bg: attachwire.IndexedColor(uint8(i))})
	}
	e := emulate(t, s, Options{})
	checkGrid(t, "full screen", e, s.Primary)
	if n := e.ScrollbackLen(); n != 0 {
		t.Fatalf("repaint scrolled %d lines into the scrollback", n)
	}
	// A glyph the terminal finds wider than the Screen says, in the
	// bottom-right cell, does not wrap either.
	s.Primary[cols*rows-1] = attachwire.Cell{Content: "中"}
	e = emulate(t, s, Options{})
	checkGrid(t, "first rows", e, s.Primary[:cols*(rows-1)])
	if n := e.ScrollbackLen(); n != 0 {
		t.Fatalf("a wide bottom-right glyph scrolled %d lines into the scrollback", n)
	}
}

func TestRepaintPendingWrap(t *testing.T) {
	tests := []struct {
		name string
		row  string // the cursor's row, cols cells
		wide bool
	}{
		{"ascii", "abcd", false},
		{"wide glyph in last columns", "ab中", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Reference: a terminal that printed the row and is pending.
			ref := vt.NewEmulator(4, 2)
			ref.WriteString("\x1b[2H" + tt.row)
			s := &attachwire.Screen{Cols: 4, Rows: 2, CursorRow: 1, CursorCol: 3, CursorVisible: true, Modes: attachwire.ModePendingWrap}
			s.Primary = append(make([]attachwire.Cell, 0, 8), attachwire.BlankCell(), attachwire.BlankCell(), attachwire.BlankCell(), attachwire.BlankCell())
			s.Primary = append(s.Primary, vtGrid(ref)[4:]...)
			s.SavedCursorRow, s.SavedCursorCol = 1, 3
			e := emulate(t, s, Options{})
			checkCursor(t, e, s)
			// The next character wraps (and scrolls) in both.
			ref.WriteString("Z")
			e.WriteString("Z")
			checkGrid(t, "after Z", e, vtGrid(ref))
			if p, q := e.CursorPosition(), ref.CursorPosition(); p != q {
				t.Fatalf("cursor after Z at %v, want %v", p, q)
			}
		})
	}
}

func TestRepaintScrollback(t *testing.T) {
	line := func(s string) []attachwire.Cell {
		var cells []attachwire.Cell
		for _, r := range s {
			cells = append(cells, attachwire.Cell{Content: string(r), Fg: attachwire.IndexedColor(2)})
		}
		return cells
	}
	tests := []struct {
		name       string
		scrollback [][]attachwire.Cell
		want       []string // the terminal's scrollback rows
	}{
		{"fewer lines than rows", [][]attachwire.Cell{line("one"), line("two")}, []string{"one", "two"}},
		{"more lines than rows", [][]attachwire.Cell{line("1"), line("2"), line("3"), line("4"), line("5")}, []string{"1", "2", "3", "4", "5"}},
		{"empty and long lines", [][]attachwire.Cell{line(""), line("abcdefghij"), line("x")}, []string{"", "abcd", "efgh", "ij", "x"}},
		{"wide glyph at a row end", [][]attachwire.Cell{{{Content: "a"}, {Content: "b"}, {Content: "c"}, {Content: "中"}, {Style: attachwire.StyleWideCont}}},
			[]string{"abc", "中"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &attachwire.Screen{Cols: 4, Rows: 3, CursorVisible: true, Scrollback: tt.scrollback}
			s.Primary = []attachwire.Cell{{Content: "s"}, attachwire.BlankCell(), attachwire.BlankCell(), attachwire.BlankCell()}
			s.Primary = append(s.Primary, make([]attachwire.Cell, 8)...)
			for i := 4; i < 12; i++ {
				s.Primary[i] = attachwire.BlankCell()
			}
			e := emulate(t, s, Options{Scrollback: true})
			checkGrid(t, "screen", e, s.Primary)
			var got []string
			for y := range e.ScrollbackLen() {
				var b strings.Builder
				for x := range e.Width() {
					if c := e.ScrollbackCellAt(x, y); c != nil {
						b.WriteString(c.Content)
					}
				}
				got = append(got, strings.TrimRight(b.String(), " "))
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Fatalf("scrollback = %q, want %q", got, tt.want)
			}
			e2 := emulate(t, s, Options{})
			if e2.ScrollbackLen() != 0 {
				t.Fatalf("repaint without the option filled %d scrollback lines", e2.ScrollbackLen())
			}
		})
	}
}

func TestRepaintUnsafeContent(t *testing.T) {
	s := &attachwire.Screen{Cols: 3, Rows: 1, Primary: []attachwire.Cell{{Content: "\x1b[6n"}, {Content: "\u009b"}, {Content: "ok"}}}
	out := string(AppendScreen(nil, s, Options{}))
	checkViewerSafe(t, out, false)
	if strings.Count(out, "\uFFFD") != 2 {
		t.Fatalf("unsafe contents not replaced: %q", out)
	}
	// A malformed grid does not panic.
	_ = AppendScreen(nil, &attachwire.Screen{Cols: 4, Rows: 4, Modes: attachwire.ModePendingWrap, CursorCol: 3, Active: attachwire.BufferAlternate}, Options{})
}
