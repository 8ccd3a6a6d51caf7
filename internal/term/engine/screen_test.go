package engine

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
)

func TestModes(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		modes   attachwire.Modes
		mouse   attachwire.MouseProto
		visible bool
		shape   attachwire.CursorShape
	}{
		{"defaults", "", 0, 0, true, attachwire.CursorDefault},
		{"paste cursor keys focus", "\x1b[?2004h\x1b[?1h\x1b[?1004h", attachwire.ModeBracketedPaste | attachwire.ModeAppCursorKeys | attachwire.ModeFocus, 0, true, 0},
		{"paste off", "\x1b[?2004h\x1b[?2004l", 0, 0, true, 0},
		{"mouse x10", "\x1b[?1000h", attachwire.ModeMouse, attachwire.MouseX10, true, 0},
		{"mouse any sgr", "\x1b[?1003h\x1b[?1006h", attachwire.ModeMouse, attachwire.MouseAny | attachwire.MouseEncSGR, true, 0},
		{"mouse button utf8", "\x1b[?1005h\x1b[?1002h", attachwire.ModeMouse, attachwire.MouseButton | attachwire.MouseEncUTF8, true, 0},
		{"mouse highlight", "\x1b[?1001h", attachwire.ModeMouse, attachwire.MouseHighlight, true, 0},
		{"mouse last wins", "\x1b[?1000h\x1b[?1003h", attachwire.ModeMouse, attachwire.MouseAny, true, 0},
		{"mouse off by any reset", "\x1b[?1003h\x1b[?1006h\x1b[?1000l", 0, 0, true, 0},
		{"encoding without tracking", "\x1b[?1006h", 0, 0, true, 0},
		{"hidden cursor bar", "\x1b[?25l\x1b[6 q", 0, 0, false, attachwire.CursorBar},
		{"underline cursor", "\x1b[3 q", 0, 0, true, attachwire.CursorUnderline},
		{"block cursor", "\x1b[2 q", 0, 0, true, attachwire.CursorBlock},
		{"pending wrap", "\x1b[1;80Hx", attachwire.ModePendingWrap, 0, true, 0},
		{"decstr", "\x1b[?1h\x1b[?25l\x1b[!p", 0, 0, true, 0},
		{"ris", "\x1b[?2004h\x1b[?1000h\x1b[?25l\x1bc", 0, 0, true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := newTest(t, 80, 24, 0)
			e.Write([]byte(tt.in))
			s := screenOf(e)
			if s.Modes != tt.modes || s.Mouse != tt.mouse || s.CursorVisible != tt.visible || s.CursorShape != tt.shape {
				t.Errorf("modes %#x mouse %#x visible %v shape %d, want %#x %#x %v %d", s.Modes, s.Mouse, s.CursorVisible, s.CursorShape, tt.modes, tt.mouse, tt.visible, tt.shape)
			}
			checkInvariants(t, s)
		})
	}
}

func TestAltScreen(t *testing.T) {
	e, _ := newTest(t, 10, 3, 10)
	e.Write([]byte("main\r\nline\x1b[2;3H\x1b[?1049h"))
	s := screenOf(e)
	if s.Active != attachwire.BufferAlternate || s.Alt == nil {
		t.Fatalf("alternate screen not active")
	}
	if got := gridText(s); !reflect.DeepEqual(got, []string{"", "", ""}) {
		t.Errorf("alternate screen %q, want blank", got)
	}
	if s.SavedCursorRow != 1 || s.SavedCursorCol != 2 {
		t.Errorf("saved cursor %d,%d, want 1,2", s.SavedCursorRow, s.SavedCursorCol)
	}
	if rowText(s, s.Primary, 0) != "main      " {
		t.Errorf("primary row 0 %q", rowText(s, s.Primary, 0))
	}
	e.Write([]byte("\x1b[3;1Halt\r\n\r\n\r\n")) // scrolling the alternate screen keeps no history
	if n := len(screenOf(e).Scrollback); n != 0 {
		t.Errorf("alternate screen scrolled %d lines into scrollback", n)
	}
	e.Write([]byte("\x1b[?1049l"))
	s = screenOf(e)
	if s.Active != attachwire.BufferPrimary || s.Alt != nil {
		t.Fatalf("alternate screen still active")
	}
	if s.CursorRow != 1 || s.CursorCol != 2 || s.SavedCursorRow != 1 || s.SavedCursorCol != 2 {
		t.Errorf("cursor %d,%d saved %d,%d, want 1,2 for both", s.CursorRow, s.CursorCol, s.SavedCursorRow, s.SavedCursorCol)
	}
	if got := gridText(s); !reflect.DeepEqual(got, []string{"main", "line", ""}) {
		t.Errorf("primary after leaving %q", got)
	}
	// 47 keeps the cursor where it is, in and out.
	e.Write([]byte("\x1b[?47hx\x1b[?47l"))
	if s := screenOf(e); s.CursorRow != 1 || s.CursorCol != 3 {
		t.Errorf("after 47: cursor %d,%d, want 1,3", s.CursorRow, s.CursorCol)
	}
}

func TestSGR(t *testing.T) {
	idx := attachwire.IndexedColor
	rgb := attachwire.RGBColor
	tests := []struct {
		in     string
		style  attachwire.Style
		fg, bg attachwire.Color
	}{
		{"\x1b[1;2;3;4;7;9m", attachwire.StyleBold | attachwire.StyleDim | attachwire.StyleItalic | attachwire.StyleUnderline | attachwire.StyleReverse | attachwire.StyleStrikethrough, 0, 0},
		{"\x1b[1;22m", 0, 0, 0},
		{"\x1b[31;42m", 0, idx(1), idx(2)},
		{"\x1b[91;102m", 0, idx(9), idx(10)},
		{"\x1b[38;5;200;48;5;17m", 0, idx(200), idx(17)},
		{"\x1b[38:5:200m", 0, idx(200), 0},
		{"\x1b[38;2;1;2;3;48;2;4;5;6m", 0, rgb(1, 2, 3), rgb(4, 5, 6)},
		{"\x1b[38:2::1:2:3m", 0, rgb(1, 2, 3), 0},
		{"\x1b[38:2:1:2:3m", 0, rgb(1, 2, 3), 0},
		{"\x1b[4:3m", attachwire.StyleUnderline, 0, 0},
		{"\x1b[4m\x1b[4:0m", 0, 0, 0},
		{"\x1b[21m", attachwire.StyleUnderline, 0, 0},
		{"\x1b[58;5;3;1m", attachwire.StyleBold, 0, 0},
		{"\x1b[58:2::1:2:3;1m", attachwire.StyleBold, 0, 0},
		{"\x1b[31m\x1b[39m\x1b[41m\x1b[49m", 0, 0, 0},
		{"\x1b[31m\x1b[m", 0, 0, 0},
		{"\x1b[38;5;300m", 0, 0, 0},
		{"\x1b[38;2;1;2m\x1b[1m", attachwire.StyleBold, 0, 0},
		{"\x1b[5;6;8;53m", 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.in), func(t *testing.T) {
			e, _ := newTest(t, 10, 1, 0)
			e.Write([]byte(tt.in + "x"))
			c := screenOf(e).Primary[0]
			if c.Content != "x" || c.Style != tt.style || c.Fg != tt.fg || c.Bg != tt.bg {
				t.Errorf("cell %+v, want style %#x fg %#x bg %#x", c, tt.style, tt.fg, tt.bg)
			}
		})
	}
}

func TestWideAndClusterCells(t *testing.T) {
	e, _ := newTest(t, 6, 2, 0)
	e.Write([]byte("\x1b[31m世\x1b[0me\u0301\x1b[2;1H👩\u200d💻"))
	s := screenOf(e)
	checkInvariants(t, s)
	want := []attachwire.Cell{
		{Content: "世", Fg: attachwire.IndexedColor(1)},
		{Style: attachwire.StyleWideCont, Fg: attachwire.IndexedColor(1)},
		{Content: "e\u0301"},
		{Content: " "}, {Content: " "}, {Content: " "},
		{Content: "👩\u200d💻"},
		{Style: attachwire.StyleWideCont},
	}
	if got := s.Primary[:8]; !reflect.DeepEqual(got, want) {
		t.Errorf("cells %+v\nwant %+v", got, want)
	}
}

func TestScrollback(t *testing.T) {
	for _, limit := range []int{0, 3, rawLines + 50} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			e, _ := newTest(t, 8, 2, limit)
			n := rawLines + 120
			for i := range n {
				fmt.Fprintf(writerFunc(e.Write), "\x1b[3%dm%d世e\u0301\r\n", i%8, i)
			}
			s := screenOf(e)
			checkInvariants(t, s)
			if len(s.Scrollback) != min(limit, n-1) {
				t.Fatalf("%d scrollback lines, want %d", len(s.Scrollback), min(limit, n-1))
			}
			for i, l := range s.Scrollback {
				k := n - 1 - len(s.Scrollback) + i
				want := fmt.Sprintf("%d世e\u0301", k)
				if got := lineText(l); got != want {
					t.Fatalf("line %d = %q, want %q", i, got, want)
				}
				if l[0].Fg != attachwire.IndexedColor(uint8(k%8)) {
					t.Fatalf("line %d color %v", i, l[0].Fg)
				}
			}
			if got := gridText(s); got[0] != fmt.Sprintf("%d世e\u0301", n-1) {
				t.Errorf("screen %q", got)
			}
			e.Write([]byte("\x1b[3J"))
			if s := screenOf(e); len(s.Scrollback) != 0 {
				t.Errorf("ED 3 left %d lines", len(s.Scrollback))
			}
		})
	}
}

type writerFunc func([]byte)

func (f writerFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }

func TestScrollRegionKeepsHistoryOnlyFromTop(t *testing.T) {
	e, _ := newTest(t, 5, 4, 10)
	e.Write([]byte("a\r\nb\r\nc\r\nd\x1b[2;4r\x1b[4;1H\n\n\x1b[1;3r\x1b[3;1H\n"))
	s := screenOf(e)
	if got := len(s.Scrollback); got != 1 || lineText(s.Scrollback[0]) != "a" {
		t.Fatalf("scrollback %d lines (%v), want just \"a\"", got, s.Scrollback)
	}
	if got := gridText(s); !reflect.DeepEqual(got, []string{"", "", "", ""}) && !strings.Contains(strings.Join(got, ","), "d") {
		t.Errorf("screen %q", got)
	}
}

func TestResize(t *testing.T) {
	e, _ := newTest(t, 10, 4, 10)
	e.Write([]byte("one\r\ntwo\r\nthree\r\nfour世界"))
	e.Resize(8, 2, 0, 0)
	s := screenOf(e)
	checkInvariants(t, s)
	// The cursor was right after "界", which now fills the row: it waits
	// at the edge (pending wrap), as tmux has it.
	if got := gridText(s); !reflect.DeepEqual(got, []string{"three", "four世界"}) {
		t.Errorf("shrunk screen %q", got)
	}
	if len(s.Scrollback) != 2 || lineText(s.Scrollback[1]) != "two" {
		t.Errorf("scrollback after shrink %d lines", len(s.Scrollback))
	}
	if s.CursorRow != 1 || s.CursorCol != 7 || s.Modes&attachwire.ModePendingWrap == 0 {
		t.Errorf("cursor %d,%d (modes %#x), want 1,7 pending", s.CursorRow, s.CursorCol, s.Modes)
	}
	e.Resize(12, 5, 0, 0)
	s = screenOf(e)
	checkInvariants(t, s)
	if got := gridText(s); !reflect.DeepEqual(got, []string{"one", "two", "three", "four世界", ""}) {
		t.Errorf("grown screen %q", got)
	}
	if s.CursorRow != 3 || len(s.Scrollback) != 0 {
		t.Errorf("cursor row %d, scrollback %d", s.CursorRow, len(s.Scrollback))
	}
	// Blank rows under the cursor go before content does.
	e2, _ := newTest(t, 10, 6, 10)
	e2.Write([]byte("top\r\nsecond"))
	e2.Resize(10, 3, 0, 0)
	if got := gridText(screenOf(e2)); !reflect.DeepEqual(got, []string{"top", "second", ""}) {
		t.Errorf("shrunk below cursor: %q", got)
	}
	// The alternate screen survives a resize.
	e2.Write([]byte("\x1b[?1049h\x1b[HALT"))
	e2.Resize(4, 2, 0, 0)
	s = screenOf(e2)
	checkInvariants(t, s)
	if s.Active != attachwire.BufferAlternate || gridText(s)[0] != "ALT" {
		t.Errorf("alternate after resize: %q", gridText(s))
	}
	e2.Write([]byte("\x1b[?1049l"))
	checkInvariants(t, screenOf(e2))
}

func TestReflow(t *testing.T) {
	tests := []struct {
		name       string
		cols, rows int
		in         string
		newCols    int
		want       []string
		scrollback []string
		row, col   int
		pending    bool
	}{
		{"widen joins a wrapped line", 5, 3, "abcdefgh\r\nxy", 10, []string{"abcdefgh", "xy", ""}, nil, 1, 2, false},
		{"narrow wraps, cursor keeps its row", 10, 3, "abcdefgh\r\nxy", 4, []string{"efgh", "xy", ""}, []string{"abcd"}, 1, 2, false},
		{"narrow pushes into scrollback", 10, 2, "abcdefgh\r\nxy", 4, []string{"efgh", "xy"}, []string{"abcd"}, 1, 2, false},
		{"hard breaks stay", 10, 4, "ab\r\ncd\r\n", 4, []string{"ab", "cd", "", ""}, nil, 2, 0, false},
		{"wide glyph moves down", 6, 3, "abcde世", 5, []string{"abcde", "世", ""}, nil, 1, 2, false},
		{"wide glyph not split", 4, 3, "a世", 2, []string{"世", "", ""}, []string{"a"}, 0, 1, true},
		{"scrollback rewrapped", 4, 2, "abcdefgh\r\nij\r\nkl", 8, []string{"ij", "kl"}, []string{"abcdefgh"}, 1, 2, false},
		{"pending wrap stays at the edge", 4, 3, "abcdefgh", 8, []string{"abcdefgh", "", ""}, nil, 0, 7, true},
		{"pending wrap leaves the edge", 4, 3, "abcdef", 8, []string{"abcdef", "", ""}, nil, 0, 6, false},
		{"cursor past content keeps its offset", 10, 3, "ab\x1b[7G", 4, []string{"", "", ""}, []string{"ab"}, 0, 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := newTest(t, tt.cols, tt.rows, 10)
			e.Write([]byte(tt.in))
			e.Resize(tt.newCols, tt.rows, 0, 0)
			s := screenOf(e)
			checkInvariants(t, s)
			if got := gridText(s); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("screen %q, want %q", got, tt.want)
			}
			var sb []string
			for _, l := range s.Scrollback {
				sb = append(sb, strings.TrimRight(lineText(l), " "))
			}
			if !reflect.DeepEqual(sb, tt.scrollback) {
				t.Errorf("scrollback %q, want %q", sb, tt.scrollback)
			}
			if s.CursorRow != tt.row || s.CursorCol != tt.col || (s.Modes&attachwire.ModePendingWrap != 0) != tt.pending {
				t.Errorf("cursor %d,%d pending %v, want %d,%d %v", s.CursorRow, s.CursorCol, s.Modes&attachwire.ModePendingWrap != 0, tt.row, tt.col, tt.pending)
			}
		})
	}
}

func TestScreenReusesDestination(t *testing.T) {
	e, _ := newTest(t, 20, 5, 10)
	e.Write([]byte("héllo 世界\r\n"))
	var s attachwire.Screen
	e.Screen(&s)
	allocs := testing.AllocsPerRun(20, func() { e.Screen(&s) })
	if allocs > 0 {
		t.Errorf("Screen into a reused destination allocates %.0f times", allocs)
	}
}

// TestScrollbackMatchesScreen checks that a line reads the same from
// scrollback, kept as cells or encoded, as it did on the screen (trailing
// default blanks aside): colors, wide and cluster cells, erased tails in
// a background color, DECALN fills.
func TestScrollbackMatchesScreen(t *testing.T) {
	const cols, n = 12, rawLines + 60
	e, _ := newTest(t, cols, 2, rawLines+40)
	var want [][]attachwire.Cell
	for k := range n {
		switch k % 4 {
		case 0:
			fmt.Fprintf(writerFunc(e.Write), "\x1b[3%dm%d世e\u0301\x1b[4%dm\x1b[K\x1b[m", k%8, k, (k+1)%8)
		case 1:
			fmt.Fprintf(writerFunc(e.Write), "\x1b[1;38;2;%d;2;3m%d👩\u200d💻\x1b[m", k%256, k)
		case 2:
			fmt.Fprintf(writerFunc(e.Write), "\x1b#8\x1b[2;1H\x1b[44m%d\x1b[m\x1b[2K", k)
		default:
			fmt.Fprintf(writerFunc(e.Write), "%d\x1b[45m\x1b[3X\x1b[m", k)
		}
		// Row 0 is what the next line feed scrolls into scrollback.
		s := screenOf(e)
		e.Write([]byte("\r\n"))
		row := append([]attachwire.Cell(nil), s.Primary[:cols]...)
		for len(row) > 0 && row[len(row)-1] == attachwire.BlankCell() {
			row = row[:len(row)-1]
		}
		want = append(want, row)
	}
	s := screenOf(e)
	checkInvariants(t, s)
	if len(s.Scrollback) != rawLines+40 {
		t.Fatalf("%d scrollback lines", len(s.Scrollback))
	}
	off := n - len(s.Scrollback)
	for i, l := range s.Scrollback {
		if w := want[off+i]; !reflect.DeepEqual(l, w) && !(len(l) == 0 && len(w) == 0) {
			t.Fatalf("scrollback line %d (encoded: %v):\n got %+v\nwant %+v", i, i < 40, l, w)
		}
	}
}

func TestRISKeepsScrollbackClusters(t *testing.T) {
	e, _ := newTest(t, 10, 2, 10)
	e.Write([]byte("e\u0301x\r\n\r\n\r\n\x1bcy\u0302"))
	s := screenOf(e)
	checkInvariants(t, s)
	if len(s.Scrollback) == 0 || lineText(s.Scrollback[0]) != "e\u0301x" {
		t.Fatalf("scrollback after RIS: %v", s.Scrollback)
	}
	if got := gridText(s)[0]; got != "y\u0302" {
		t.Errorf("screen after RIS %q", got)
	}
}

// TestReflowLongScrollback rewraps scrollback held both as cells and
// encoded (the encoded lines keep their width, see reflow.go), and
// checks every logical line survives in order.
func TestReflowLongScrollback(t *testing.T) {
	const n = rawLines + 100
	e, _ := newTest(t, 20, 5, 2*n+10)
	for i := range n {
		fmt.Fprintf(writerFunc(e.Write), "\x1b[3%dmline %04d 世界 e\u0301 end\x1b[m\r\n", i%8, i)
	}
	e.Resize(12, 5, 0, 0)
	s := screenOf(e)
	checkInvariants(t, s)
	var rows [][]attachwire.Cell
	rows = append(rows, s.Scrollback...)
	for r := range s.Rows {
		rows = append(rows, s.Primary[r*s.Cols:(r+1)*s.Cols])
	}
	var lines []string
	var cur strings.Builder
	for _, r := range rows {
		cur.WriteString(strings.TrimRight(lineText(r), " "))
		if strings.HasSuffix(cur.String(), "end") {
			lines = append(lines, cur.String())
			cur.Reset()
		}
	}
	if len(lines) != n {
		t.Fatalf("%d logical lines after reflow, want %d", len(lines), n)
	}
	for i, l := range lines {
		if want := fmt.Sprintf("line %04d 世界 e\u0301 end", i); strings.ReplaceAll(l, " ", "") != strings.ReplaceAll(want, " ", "") {
			t.Fatalf("line %d = %q, want %q", i, l, want)
		}
	}
}
