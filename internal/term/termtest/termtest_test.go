package termtest_test

import (
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term/termtest"
)

var idx = attachwire.IndexedColor

func TestParseCapture(t *testing.T) {
	capture := "\x1b[1m\x1b[31mA\x1b[0m\x1b[38;5;208;48;2;1;2;3mB\x1b[39m\x1b[49m\x1b[91mC\x1b[4:0m \x1b[0m\u4e2dx\n" +
		"\x0elqk\x0f e\u0301\x1b[7m\x1b[38:2::9:8:7m!\n"
	g, err := termtest.ParseCapture(8, 3, []byte(capture))
	if err != nil {
		t.Fatal(err)
	}
	want := []termtest.Cell{
		{Text: "A", Attrs: attachwire.StyleBold, Fg: idx(1)},
		{Text: "B", Fg: idx(208), Bg: attachwire.RGBColor(1, 2, 3)},
		{Text: "C", Fg: idx(9)},
		{Text: " ", Fg: idx(9)},
		{Text: "\u4e2d"},
		{Text: ""},
		{Text: "x"},
		{Text: " "},
		{Text: "┌"}, {Text: "─"}, {Text: "┐"}, {Text: " "},
		{Text: "e\u0301"},
		{Text: "!", Attrs: attachwire.StyleReverse, Fg: attachwire.RGBColor(9, 8, 7)},
		{Text: " "}, {Text: " "},
	}
	for i, w := range want {
		if g.Cells[i] != w {
			t.Errorf("cell %d = %v, want %v", i, g.Cells[i], w)
		}
	}
	if g.Extent[0] != 7 || g.Extent[1] != 6 || g.Extent[2] != 0 {
		t.Errorf("extent %v, want [7 6 0]", g.Extent)
	}
	if _, err := termtest.ParseCapture(4, 1, []byte("12345\n")); err == nil {
		t.Error("a line wider than the grid parsed")
	}
	if _, err := termtest.ParseCapture(4, 1, []byte("1\n2\n")); err == nil {
		t.Error("more lines than rows parsed")
	}
}

func TestDiff(t *testing.T) {
	base := termtest.NewGrid(4, 2)
	base.Cells[0] = termtest.Cell{Text: "a", Attrs: attachwire.StyleBold, Fg: idx(1)}
	base.Cells[1] = termtest.Cell{Text: "\u4e2d"}
	base.Cells[2] = termtest.Cell{Text: ""}
	tests := []struct {
		name   string
		change func(g *termtest.Grid)
		diffs  int
	}{
		{"same", func(*termtest.Grid) {}, 0},
		{"text", func(g *termtest.Grid) { g.Cells[0].Text = "b" }, 1},
		{"attribute", func(g *termtest.Grid) { g.Cells[0].Attrs = 0 }, 1},
		{"fg", func(g *termtest.Grid) { g.Cells[0].Fg = idx(9) }, 1},
		{"default is not index 0", func(g *termtest.Grid) { g.Cells[0].Fg = idx(0); g.Cells[0].Text = "a" }, 1},
		{"blank fg ignored", func(g *termtest.Grid) { g.Cells[5].Fg = idx(3); g.Cells[5].Attrs = attachwire.StyleBold }, 0},
		{"blank bg compared", func(g *termtest.Grid) { g.Cells[5].Bg = idx(3) }, 1},
		{"blank reverse compared", func(g *termtest.Grid) { g.Cells[5].Attrs = attachwire.StyleReverse }, 1},
		{"continuation attributes ignored", func(g *termtest.Grid) { g.Cells[2].Bg = idx(4) }, 0},
		{"past extent only text", func(g *termtest.Grid) { g.Extent = []int{4, 1}; g.Cells[5].Bg = idx(3) }, 0},
		{"past extent text compared", func(g *termtest.Grid) { g.Extent = []int{4, 1}; g.Cells[5].Text = "z" }, 1},
		{"cursor", func(g *termtest.Grid) { g.CursorRow, g.CursorCol = 1, 1 }, 1},
		{"wrap", func(g *termtest.Grid) { g.Wrap = termtest.WrapPending }, 1},
		{"size", func(g *termtest.Grid) { *g = termtest.NewGrid(3, 2) }, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := clone(base)
			want.CursorRow, want.CursorCol, want.Wrap = 0, 0, termtest.WrapNone
			got := clone(want)
			tt.change(&got)
			if d := termtest.Diff(want, got); len(d) != tt.diffs {
				t.Errorf("%d differences, want %d: %q", len(d), tt.diffs, d)
			}
		})
	}
}

func clone(g termtest.Grid) termtest.Grid {
	g.Cells = append([]termtest.Cell(nil), g.Cells...)
	return g
}

func TestDiffCapped(t *testing.T) {
	a, b := termtest.NewGrid(10, 10), termtest.NewGrid(10, 10)
	for i := range b.Cells {
		b.Cells[i].Text = "x"
	}
	d := termtest.Diff(a, b)
	if len(d) != termtest.MaxDiffs+1 || !strings.Contains(d[len(d)-1], "80 more") {
		t.Errorf("%d lines, last %q", len(d), d[len(d)-1])
	}
}

func TestFromScreen(t *testing.T) {
	s := attachwire.Screen{Cols: 2, Rows: 1, Active: attachwire.BufferAlternate, CursorCol: 1, Modes: attachwire.ModePendingWrap,
		Primary: []attachwire.Cell{{Content: "p"}, {Content: "q"}},
		Alt:     []attachwire.Cell{{Content: "\u4e2d", Style: attachwire.StyleBold | attachwire.StyleItalic, Bg: idx(2)}, {Style: attachwire.StyleWideCont, Bg: idx(2)}},
	}
	g := termtest.FromScreen(&s)
	want := []termtest.Cell{{Text: "\u4e2d", Attrs: attachwire.StyleBold | attachwire.StyleItalic, Bg: idx(2)}, {Text: "", Bg: idx(2)}}
	for i, w := range want {
		if g.Cells[i] != w {
			t.Errorf("cell %d = %v, want %v", i, g.Cells[i], w)
		}
	}
	if g.CursorCol != 1 || g.Wrap != termtest.WrapPending {
		t.Errorf("cursor col %d wrap %d", g.CursorCol, g.Wrap)
	}
}

func TestRecordingFormat(t *testing.T) {
	r := termtest.Recording{Name: "x", Cols: 80, Rows: 24, Data: []byte("a\nb\x1b[0m\n")}
	got, err := termtest.DecodeRecording("x", termtest.EncodeRecording(r))
	if err != nil || got.Cols != 80 || got.Rows != 24 || string(got.Data) != string(r.Data) {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	for _, bad := range []string{"", "hello\n", "ptyhost-recording 1 0 24\n", "ptyhost-recording 1 80\n", "ptyhost-recording 2 80 24\n"} {
		if _, err := termtest.DecodeRecording("bad", []byte(bad)); err == nil {
			t.Errorf("DecodeRecording(%q) succeeded", bad)
		}
	}
	g, err := termtest.DecodeGolden(3, 1, termtest.EncodeGolden([]byte("abc\n"), 3, 0))
	if err != nil || g.CursorCol != 2 || g.Wrap != termtest.WrapPending || g.Text() != "abc\n" {
		t.Errorf("golden: %+v, %v", g, err)
	}
}

// TestRecordings checks the committed recordings: each has a golden
// screen, fits the size limit, and says what it shows.
func TestRecordings(t *testing.T) {
	recs := termtest.LoadRecordings(t)
	programs := map[string]bool{}
	for _, r := range recs {
		if r.Golden == nil {
			t.Errorf("%s: no golden screen", r.Name)
		}
		if len(r.Data) >= 100<<10 {
			t.Errorf("%s: %d bytes", r.Name, len(r.Data))
		}
		programs[r.Name] = true
	}
	for _, p := range []string{"vim", "less", "bash", "htop", "progress", "ls"} {
		if !programs[p] {
			t.Errorf("no recording of %s", p)
		}
	}
	for _, r := range recs {
		if r.Name == "vim" && !strings.Contains(r.Golden.Text(), "int answer(void)") {
			t.Errorf("vim golden does not show the inserted text:\n%s", r.Golden.Text())
		}
	}
}

// TestTmuxScreen replays a few bytes into tmux: the oracle itself works.
func TestTmuxScreen(t *testing.T) {
	g := termtest.TmuxScreen(t, 10, 3, []byte("\x1b[1;32mok\x1b[0m\r\n\x1b[44m \x1b[0m\u4e2d"))
	if g.At(0, 0) != (termtest.Cell{Text: "o", Attrs: attachwire.StyleBold, Fg: idx(2)}) {
		t.Errorf("cell 0,0 = %v", g.At(0, 0))
	}
	if g.At(1, 0).Bg != idx(4) || g.At(1, 1).Text != "\u4e2d" || g.At(1, 2).Text != "" {
		t.Errorf("row 1 = %v %v %v", g.At(1, 0), g.At(1, 1), g.At(1, 2))
	}
	if g.CursorRow != 1 || g.CursorCol != 3 || g.Wrap != termtest.WrapNone {
		t.Errorf("cursor %d,%d wrap %d", g.CursorRow, g.CursorCol, g.Wrap)
	}
}

// TestProgramRecordingsReplay replays each program recording into a fresh
// tmux: the oracle reproduces the committed golden screen on this machine's
// tmux (the made-up sequences are left out to keep the test short).
func TestProgramRecordingsReplay(t *testing.T) {
	for _, r := range termtest.LoadRecordings(t) {
		if strings.HasPrefix(r.Name, "seq-") {
			continue
		}
		t.Run(r.Name, func(t *testing.T) {
			if d := termtest.Diff(*r.Golden, termtest.TmuxScreen(t, r.Cols, r.Rows, r.Data)); len(d) > 0 {
				t.Errorf("tmux replay differs from the golden screen:\n%s", strings.Join(d, "\n"))
			}
		})
	}
}

func TestDiffHistory(t *testing.T) {
	row := func(s string) []termtest.Cell {
		var out []termtest.Cell
		for _, r := range s {
			out = append(out, termtest.Cell{Text: string(r)})
		}
		return out
	}
	tests := []struct {
		name      string
		want, got [][]termtest.Cell
		diffs     int
	}{
		{"both absent", nil, nil, 0},
		{"one absent", [][]termtest.Cell{row("a")}, nil, 0},
		{"same", [][]termtest.Cell{row("ab"), row("")}, [][]termtest.Cell{row("ab"), row("")}, 0},
		{"trailing blanks", [][]termtest.Cell{row("ab")}, [][]termtest.Cell{row("ab  ")}, 0},
		{"row count", [][]termtest.Cell{row("a")}, [][]termtest.Cell{}, 1},
		{"text", [][]termtest.Cell{row("ab")}, [][]termtest.Cell{row("ax")}, 1},
		{"missing text", [][]termtest.Cell{row("abc")}, [][]termtest.Cell{row("a")}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := termtest.NewGrid(4, 1), termtest.NewGrid(4, 1)
			a.History, b.History = tt.want, tt.got
			if d := termtest.Diff(a, b); len(d) != tt.diffs {
				t.Errorf("%d differences, want %d: %q", len(d), tt.diffs, d)
			}
		})
	}
}

func TestTmuxHistory(t *testing.T) {
	g := termtest.TmuxHistory(t, 10, 2, []byte("one\r\n\x1b[1mtwo\x1b[0m\r\nthree\r\nfour"))
	if len(g.History) != 2 {
		t.Fatalf("%d history rows, want 2", len(g.History))
	}
	if g.History[1][0] != (termtest.Cell{Text: "t", Attrs: attachwire.StyleBold}) || len(g.History[0]) != 3 {
		t.Errorf("history %v", g.History)
	}
	s := attachwire.Screen{Cols: 10, Rows: 2, Primary: make([]attachwire.Cell, 20),
		Scrollback: [][]attachwire.Cell{{{Content: "o"}, {Content: "\u4e2d"}, {Style: attachwire.StyleWideCont}}}}
	h := termtest.FromScreenHistory(&s).History
	if len(h) != 1 || h[0][1].Text != "\u4e2d" || h[0][2] != (termtest.Cell{}) {
		t.Errorf("FromScreenHistory: %v", h)
	}
}
