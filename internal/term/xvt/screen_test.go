package xvt

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"go.uber.org/goleak"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term"
	"github.com/ptyhost/ptyhost/internal/testkit"
)

// screenOf feeds data to a fresh 20×6 terminal (scrollback 50) and returns
// its screen, checked by attachwire's validator.
func screenOf(t *testing.T, data string) *attachwire.Screen {
	t.Helper()
	vt := newTerm(t, 20, 6, nil)
	feed(t, vt, data)
	var s attachwire.Screen
	vt.Screen(&s)
	if err := s.Validate(); err != nil {
		t.Fatalf("invalid screen: %v", err)
	}
	return &s
}

func TestScreen(t *testing.T) {
	idx := attachwire.IndexedColor
	tests := []struct {
		name  string
		data  string
		check func(t *testing.T, s *attachwire.Screen)
	}{
		{"styles", "\x1b[1;2;3;4;7;9mA\x1b[0mB\x1b[5;8mC", func(t *testing.T, s *attachwire.Screen) {
			all := attachwire.StyleBold | attachwire.StyleDim | attachwire.StyleItalic | attachwire.StyleUnderline | attachwire.StyleReverse | attachwire.StyleStrikethrough
			want := []attachwire.Cell{{Content: "A", Style: all}, {Content: "B"}, {Content: "C"}}
			for i, w := range want {
				if s.Primary[i] != w {
					t.Errorf("cell %d = %+v, want %+v", i, s.Primary[i], w)
				}
			}
		}},
		{"colors", "\x1b[31;42ma\x1b[91;38;5;200mb\x1b[38;2;1;2;3;48;5;17mc\x1b[39;49md", func(t *testing.T, s *attachwire.Screen) {
			want := [][2]attachwire.Color{
				{idx(1), idx(2)}, {idx(200), idx(2)}, {attachwire.RGBColor(1, 2, 3), idx(17)}, {0, 0},
			}
			for i, w := range want {
				if c := s.Primary[i]; c.Fg != w[0] || c.Bg != w[1] {
					t.Errorf("cell %d colors %x/%x, want %x/%x", i, c.Fg, c.Bg, w[0], w[1])
				}
			}
		}},
		{"wide glyph", "\x1b[41;33m\u4e2d\x1b[0mx", func(t *testing.T, s *attachwire.Screen) {
			want := []attachwire.Cell{
				{Content: "\u4e2d", Fg: idx(3), Bg: idx(1)},
				{Content: "", Style: attachwire.StyleWideCont, Fg: idx(3), Bg: idx(1)},
				{Content: "x"},
			}
			for i, w := range want {
				if s.Primary[i] != w {
					t.Errorf("cell %d = %+v, want %+v", i, s.Primary[i], w)
				}
			}
			if s.CursorCol != 3 {
				t.Errorf("cursor col %d, want 3", s.CursorCol)
			}
		}},
		{"C1 and C0 never reach a cell", "a\xc2\x9bb\xc2\x85c\xc2\x9c", func(t *testing.T, s *attachwire.Screen) {
			for i, c := range s.Primary {
				if c.Style == attachwire.StyleWideCont {
					continue
				}
				for _, r := range c.Content {
					if r < 0x20 || (r >= 0x7f && r < 0xa0) || !utf8.ValidString(c.Content) {
						t.Errorf("cell %d content %q", i, c.Content)
					}
				}
			}
			if got := testkit.Row(s.Primary, s.Cols, 0); !strings.HasPrefix(got, "a") || !strings.Contains(got, "c") {
				t.Errorf("row 0 = %q", got)
			}
		}},
		{"cursor, visibility and shape", "\x1b[3;4H\x1b[?25l\x1b[4 q", func(t *testing.T, s *attachwire.Screen) {
			if s.CursorRow != 2 || s.CursorCol != 3 || s.CursorVisible || s.CursorShape != attachwire.CursorUnderline {
				t.Errorf("cursor %d,%d visible %v shape %d", s.CursorRow, s.CursorCol, s.CursorVisible, s.CursorShape)
			}
		}},
		{"default shape", "\x1b[6 q\x1b[0 q", func(t *testing.T, s *attachwire.Screen) {
			if !s.CursorVisible || s.CursorShape != attachwire.CursorDefault {
				t.Errorf("visible %v shape %d", s.CursorVisible, s.CursorShape)
			}
		}},
		{"bar shape", "\x1b[6 q", func(t *testing.T, s *attachwire.Screen) {
			if s.CursorShape != attachwire.CursorBar {
				t.Errorf("shape %d", s.CursorShape)
			}
		}},
		{"alternate screen", "main\x1b[?1049h\x1b[2;1Halt", func(t *testing.T, s *attachwire.Screen) {
			if s.Active != attachwire.BufferAlternate || s.Alt == nil {
				t.Fatalf("active %d, alt %v", s.Active, s.Alt != nil)
			}
			if got := testkit.Row(s.Primary, s.Cols, 0); got != "main" {
				t.Errorf("primary row 0 %q", got)
			}
			if got := testkit.Row(s.Alt, s.Cols, 1); got != "alt" {
				t.Errorf("alt row 1 %q", got)
			}
			if s.SavedCursorRow != 0 || s.SavedCursorCol != 4 || s.CursorRow != 1 || s.CursorCol != 3 {
				t.Errorf("saved %d,%d cursor %d,%d", s.SavedCursorRow, s.SavedCursorCol, s.CursorRow, s.CursorCol)
			}
		}},
		{"back from the alternate screen", "main\x1b[?1049halt\x1b[?1049l!", func(t *testing.T, s *attachwire.Screen) {
			if s.Active != attachwire.BufferPrimary || s.Alt != nil {
				t.Fatalf("active %d, alt %v", s.Active, s.Alt != nil)
			}
			if got := testkit.Row(s.Primary, s.Cols, 0); got != "main!" {
				t.Errorf("primary row 0 %q", got)
			}
			if s.SavedCursorRow != s.CursorRow || s.SavedCursorCol != s.CursorCol {
				t.Errorf("saved cursor %d,%d differs from cursor %d,%d", s.SavedCursorRow, s.SavedCursorCol, s.CursorRow, s.CursorCol)
			}
		}},
		{"modes", "\x1b[?2004h\x1b[?1h\x1b[?1004h", func(t *testing.T, s *attachwire.Screen) {
			want := attachwire.ModeBracketedPaste | attachwire.ModeAppCursorKeys | attachwire.ModeFocus
			if s.Modes != want || s.Mouse != 0 {
				t.Errorf("modes %#x mouse %#x, want %#x 0", s.Modes, s.Mouse, want)
			}
		}},
		{"modes reset", "\x1b[?2004h\x1b[?1h\x1b[?2004l\x1b[?1l", func(t *testing.T, s *attachwire.Screen) {
			if s.Modes != 0 {
				t.Errorf("modes %#x", s.Modes)
			}
		}},
		{"mouse button SGR", "\x1b[?1002h\x1b[?1006h", func(t *testing.T, s *attachwire.Screen) {
			if s.Modes != attachwire.ModeMouse || s.Mouse != attachwire.MouseButton|attachwire.MouseEncSGR {
				t.Errorf("modes %#x mouse %#x", s.Modes, s.Mouse)
			}
		}},
		{"mouse any UTF-8", "\x1b[?1000;1003;1005h", func(t *testing.T, s *attachwire.Screen) {
			if s.Mouse != attachwire.MouseAny|attachwire.MouseEncUTF8 {
				t.Errorf("mouse %#x", s.Mouse)
			}
		}},
		{"mouse off", "\x1b[?1000h\x1b[?1006h\x1b[?1000l", func(t *testing.T, s *attachwire.Screen) {
			if s.Modes != 0 || s.Mouse != 0 {
				t.Errorf("modes %#x mouse %#x", s.Modes, s.Mouse)
			}
		}},
		{"pending wrap", "01234567890123456789", func(t *testing.T, s *attachwire.Screen) {
			if s.Modes&attachwire.ModePendingWrap == 0 || s.CursorCol != 19 {
				t.Errorf("modes %#x cursor col %d", s.Modes, s.CursorCol)
			}
		}},
		{"pending wrap across SGR and a second row", "\x1b[1;11H0123456789\x1b[1m01234567890123456789", func(t *testing.T, s *attachwire.Screen) {
			if s.Modes&attachwire.ModePendingWrap == 0 || s.CursorRow != 1 {
				t.Errorf("modes %#x cursor row %d", s.Modes, s.CursorRow)
			}
		}},
		{"no pending wrap at the last column", "0123456789012345678", func(t *testing.T, s *attachwire.Screen) {
			if s.Modes&attachwire.ModePendingWrap != 0 || s.CursorCol != 19 {
				t.Errorf("modes %#x cursor col %d", s.Modes, s.CursorCol)
			}
		}},
		{"no pending wrap after CR", "01234567890123456789\r", func(t *testing.T, s *attachwire.Screen) {
			if s.Modes&attachwire.ModePendingWrap != 0 {
				t.Errorf("modes %#x", s.Modes)
			}
		}},
		{"no pending wrap without autowrap", "\x1b[?7l01234567890123456789", func(t *testing.T, s *attachwire.Screen) {
			if s.Modes&attachwire.ModePendingWrap != 0 {
				t.Errorf("modes %#x", s.Modes)
			}
		}},
		{"scrollback oldest first", lines(10), func(t *testing.T, s *attachwire.Screen) {
			if len(s.Scrollback) != 4 {
				t.Fatalf("%d scrollback lines, want 4", len(s.Scrollback))
			}
			for i, l := range s.Scrollback {
				if got := testkit.Row(l, len(l), 0); got != fmt.Sprintf("line %d", i) {
					t.Errorf("scrollback %d = %q", i, got)
				}
			}
			if got := testkit.Row(s.Primary, s.Cols, 0); got != "line 4" {
				t.Errorf("row 0 %q", got)
			}
		}},
		{"scrollback capped by Options.Scrollback", lines(80), func(t *testing.T, s *attachwire.Screen) {
			if len(s.Scrollback) != 50 {
				t.Fatalf("%d scrollback lines, want 50", len(s.Scrollback))
			}
			if got := testkit.Row(s.Scrollback[0], len(s.Scrollback[0]), 0); got != "line 24" {
				t.Errorf("oldest %q, want line 24", got)
			}
		}},
		{"ED 2 erases with the pen's background", "ab\x1b[44m\x1b[2J", func(t *testing.T, s *attachwire.Screen) {
			for _, i := range []int{0, 1, 59, 119} {
				if c := s.Primary[i]; c != (attachwire.Cell{Content: " ", Bg: idx(4)}) {
					t.Errorf("cell %d = %+v", i, c)
				}
			}
			if len(s.Scrollback) != 1 || testkit.Row(s.Scrollback[0], len(s.Scrollback[0]), 0) != "ab" {
				t.Errorf("scrollback %v", s.Scrollback)
			}
		}},
		{"ED 3 keeps the screen", lines(8) + "\x1b[3J", func(t *testing.T, s *attachwire.Screen) {
			if len(s.Scrollback) != 0 || testkit.Row(s.Primary, s.Cols, 0) != "line 2" {
				t.Errorf("%d scrollback lines, row 0 %q", len(s.Scrollback), testkit.Row(s.Primary, s.Cols, 0))
			}
		}},
		{"ED 2 on the alternate screen keeps the scrollback", lines(8) + "\x1b[?1049hx\x1b[2J", func(t *testing.T, s *attachwire.Screen) {
			if len(s.Scrollback) != 2 {
				t.Errorf("%d scrollback lines, want 2", len(s.Scrollback))
			}
		}},
		{"wide glyph wraps from the last column", "0123456789012345678\u4e2dx", func(t *testing.T, s *attachwire.Screen) {
			if testkit.Row(s.Primary, s.Cols, 0) != "0123456789012345678" || testkit.Row(s.Primary, s.Cols, 1) != "\u4e2dx" || s.CursorRow != 1 || s.CursorCol != 3 {
				t.Errorf("rows %q %q cursor %d,%d", testkit.Row(s.Primary, s.Cols, 0), testkit.Row(s.Primary, s.Cols, 1), s.CursorRow, s.CursorCol)
			}
		}},
		{"wide glyph filling the last column leaves a wrap pending", "012345678901234567\u4e2d", func(t *testing.T, s *attachwire.Screen) {
			if s.Modes&attachwire.ModePendingWrap == 0 || s.CursorCol != 19 || s.Primary[18].Content != "\u4e2d" {
				t.Errorf("modes %#x cursor col %d cell 18 %q", s.Modes, s.CursorCol, s.Primary[18].Content)
			}
		}},
		{"the character after it wraps, across SGR", "012345678901234567\u4e2d\x1b[1mx", func(t *testing.T, s *attachwire.Screen) {
			if s.Primary[18].Content != "\u4e2d" || s.Primary[20] != (attachwire.Cell{Content: "x", Style: attachwire.StyleBold}) || s.CursorRow != 1 {
				t.Errorf("cell 18 %q, cell 20 %+v, cursor row %d", s.Primary[18].Content, s.Primary[20], s.CursorRow)
			}
		}},
		{"CR cancels the pending wrap", "012345678901234567\u4e2d\rx", func(t *testing.T, s *attachwire.Screen) {
			if testkit.Row(s.Primary, s.Cols, 0) != "x12345678901234567\u4e2d" || s.CursorRow != 0 {
				t.Errorf("row 0 %q cursor row %d", testkit.Row(s.Primary, s.Cols, 0), s.CursorRow)
			}
		}},
		{"emoji modifier stays in its cluster", "012345678901234567\U0001F44D\U0001F3FDx", func(t *testing.T, s *attachwire.Screen) {
			if s.Primary[18].Content != "\U0001F44D\U0001F3FD" || s.Primary[20].Content != "x" {
				t.Errorf("cell 18 %q, cell 20 %q", s.Primary[18].Content, s.Primary[20].Content)
			}
		}},
		{"ZWJ sequence stays whole", "ab\U0001F468\u200d\U0001F469 c", func(t *testing.T, s *attachwire.Screen) {
			if s.Primary[2].Content != "\U0001F468\u200d\U0001F469" {
				t.Errorf("cell 2 %q", s.Primary[2].Content)
			}
		}},
		{"no wrap fix without autowrap", "\x1b[?7l0123456789012345678\u4e2d", func(t *testing.T, s *attachwire.Screen) {
			if s.CursorRow != 0 || testkit.Row(s.Primary, s.Cols, 1) != "" {
				t.Errorf("cursor row %d, row 1 %q", s.CursorRow, testkit.Row(s.Primary, s.Cols, 1))
			}
		}},
		{"RIS resets modes, pen and shape", "\x1b[?2004h\x1b[1m\x1b[5 q\x1bcx", func(t *testing.T, s *attachwire.Screen) {
			if s.Modes != 0 || s.CursorShape != attachwire.CursorDefault || s.Primary[0] != (attachwire.Cell{Content: "x"}) {
				t.Errorf("modes %#x shape %d cell %+v", s.Modes, s.CursorShape, s.Primary[0])
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.check(t, screenOf(t, tt.data)) })
	}
}

func lines(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString("\r\n")
		}
		fmt.Fprintf(&b, "line %d", i)
	}
	return b.String()
}

// TestScreenLeavesHostFields checks that Screen leaves Epoch and Echo to
// the host and reuses the destination's slices.
func TestScreenLeavesHostFields(t *testing.T) {
	vt := newTerm(t, 20, 6, nil)
	s := attachwire.Screen{Epoch: 7, Echo: attachwire.EchoOn}
	vt.Screen(&s)
	first := &s.Primary[0]
	feed(t, vt, "x")
	vt.Screen(&s)
	if s.Epoch != 7 || s.Echo != attachwire.EchoOn {
		t.Errorf("epoch %d echo %d changed", s.Epoch, s.Echo)
	}
	if &s.Primary[0] != first {
		t.Error("Screen did not reuse dst.Primary")
	}
}

// TestClampCostsNothing: huge counts finish and have bounded effects.
func TestClampCostsNothing(t *testing.T) {
	const cols, rows = 20, 6
	vt := newTerm(t, cols, rows, nil)
	feed(t, vt, "x\x1b[1000000000b\x1b[2000000000X\x1b[2000000000I\x1b[2000000000Z\x1b[2000000000@\x1b[2000000000L")
	var s attachwire.Screen
	vt.Screen(&s)
	n := 0
	for _, l := range append(s.Scrollback, s.Primary) {
		for _, c := range l {
			n += strings.Count(c.Content, "x")
		}
	}
	// REP repeats at most rows×cols times: one 'x' plus 120 copies, some
	// of them erased again by the ECH/ICH/IL that follow.
	if n == 0 || n > 1+cols*rows {
		t.Errorf("%d x on screen and in scrollback, want 1..%d", n, 1+cols*rows)
	}
}

// TestAnswerFlood: 10,000 DA1 queries with an answer callback that drops
// them all complete, and each query gets exactly one answer.
func TestAnswerFlood(t *testing.T) {
	calls := 0
	vt := newTerm(t, 80, 24, func(p []byte) {
		if string(p) == term.DA1 {
			calls++
		}
	})
	feed(t, vt, strings.Repeat("\x1b[c", 10000))
	if calls != 10000 {
		t.Errorf("%d answers, want 10000", calls)
	}
	if n := vt.stray.Load(); n != 0 {
		t.Errorf("%d stray bytes on x/vt's pipe", n)
	}
}

// TestClose: Close joins the drain goroutine, is idempotent, and Write
// afterwards neither blocks nor answers.
func TestClose(t *testing.T) {
	defer goleak.VerifyNone(t)
	answers := 0
	vt, err := New(term.Options{Cols: 10, Rows: 3, Answer: func([]byte) { answers++ }})
	if err != nil {
		t.Fatal(err)
	}
	feed(t, vt, "\x1b[c")
	if err := vt.Close(); err != nil {
		t.Fatal(err)
	}
	if err := vt.Close(); err != nil {
		t.Fatal(err)
	}
	feed(t, vt, "\x1b[c\x1b[6n")
	if answers != 1 {
		t.Errorf("%d answers, want 1 (none after Close)", answers)
	}
}

func TestNewRejectsBadSizes(t *testing.T) {
	for _, sz := range [][2]int{{0, 24}, {80, 0}, {-1, 5}, {MaxCols + 1, 24}, {80, MaxRows + 1}} {
		if vt, err := New(term.Options{Cols: sz[0], Rows: sz[1]}); err == nil {
			_ = vt.Close()
			t.Errorf("New(%dx%d) succeeded", sz[0], sz[1])
		}
	}
}

// TestResize: the size, CSI 18 t and the alternate screen's copy of the
// primary follow a resize.
func TestResize(t *testing.T) {
	var r recorder
	vt := newTerm(t, 20, 6, r.answer)
	feed(t, vt, "main\x1b[?1049h")
	vt.Resize(10, 3, 0, 0)
	if c, rr := vt.Size(); c != 10 || rr != 3 {
		t.Fatalf("size %dx%d", c, rr)
	}
	feed(t, vt, "\x1b[18t")
	if got := r.buf.String(); got != "\x1b[8;3;10t" {
		t.Errorf("CSI 18 t = %q", got)
	}
	var s attachwire.Screen
	vt.Screen(&s)
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(s.Primary) != 30 || len(s.Alt) != 30 || testkit.Row(s.Primary, 10, 0) != "main" {
		t.Errorf("primary %d cells %q, alt %d cells", len(s.Primary), testkit.Row(s.Primary, 10, 0), len(s.Alt))
	}
	vt.Resize(100, 30, 1000, 600)
	r.buf.Reset()
	feed(t, vt, "\x1b[14t\x1b[16t\x1b[18t")
	if got, want := r.buf.String(), "\x1b[4;600;1000t\x1b[6;20;10t\x1b[8;30;100t"; got != want {
		t.Errorf("window reports %q, want %q", got, want)
	}
}

func TestSanitize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", " "},
		{"a", "a"},
		{"e\u0301", "e\u0301"},
		{"\u009b", "\ufffd"},
		{"a\x1bb", "a\ufffdb"},
		{"\x7f", "\ufffd"},
		{"\xff", "\ufffd"},
		{"\u4e2d", "\u4e2d"},
	}
	for _, tt := range tests {
		if got := sanitize(tt.in); got != tt.want {
			t.Errorf("sanitize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestScreenReuse: a Screen refilled after more output equals a fresh one.
func TestScreenReuse(t *testing.T) {
	vt := newTerm(t, 20, 6, nil)
	feed(t, vt, lines(12))
	var reused attachwire.Screen
	vt.Screen(&reused)
	feed(t, vt, "\r\n\x1b[31mred\x1b[0m\r\n"+lines(3))
	vt.Screen(&reused)
	var fresh attachwire.Screen
	vt.Screen(&fresh)
	if d := screenDiff(&fresh, &reused); d != "" {
		t.Fatal(d)
	}
	for i := range fresh.Scrollback {
		if fmt.Sprint(fresh.Scrollback[i]) != fmt.Sprint(reused.Scrollback[i]) {
			t.Errorf("scrollback line %d: %v vs %v", i, reused.Scrollback[i], fresh.Scrollback[i])
		}
	}
}
