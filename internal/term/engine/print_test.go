package engine

import (
	"strings"
	"testing"
)

// TestPrintText pins printText, the run of mixed text appended to a row
// of cells, against printing a character at a time: each case is fed to
// an engine with the fast paths and to one without (noSpans), whole and
// byte by byte, and through a resize both ways, and must show the same
// screen, snapshot and scrollback.
func TestPrintText(t *testing.T) {
	const cols = 10
	for _, tc := range []struct{ name, in string }{
		{"narrow scripts", "• café Ελλη\r\nрусский →…"},
		{"wide", "日本語テスト한"},
		{"wide at the last column", "abcdefghi日x"},
		{"wide before the last column", "abcdefgh日x"},
		{"narrow up to the margin", "é" + strings.Repeat("ü", cols+3)},
		{"ASCII up to the margin", "é" + strings.Repeat("a", cols+3)},
		{"combining mark", "cafe\u0301 e\u0301\u0302x"},
		{"ZWJ sequence", "a👩\u200d💻b👩\u200d👩\u200d👧c"},
		{"VS16", "a❤\ufe0fb✓\ufe0f"},
		{"regional indicators", "🇩🇪🇫🇷x"},
		{"skin tone", "👍🏽é"},
		{"overwrite a wide glyph's halves", "日本語\x1b[2Gé\x1b[5Gü"},
		{"overwrite a span row", "abcdef\x1b[3Géé"},
		{"after the span text", "ab\x1b[6Géx"},
		{"colored", "\x1b[31;44mé\x1b[0m日\x1b[7mü"},
		{"erase after", "éüö日\x1b[3D\x1b[K\x1b[1K"},
		{"ICH DCH", "éüö日本\x1b[4D\x1b[2@\x1b[P"},
		{"insert mode", "abc\x1b[4h\x1b[Dé日x\x1b[4l"},
		{"REP after text", "naïve\x1b[3bé\x1b[2b"},
		{"DEC graphics", "é\x1b(0qx\x1b(Bé\x1b)0\x0eéq\x0fq"},
		{"C1 in UTF-8", "é\u0085x\u009b31mé"},
		{"invalid UTF-8", "é\xe6\x97x\xffü\xf0\x9f\x98é\xc3xé\x1b\x85\x85"},
		{"wrap pending", strings.Repeat("x", cols) + "éü"},
		{"autowrap off", "\x1b[?7l" + strings.Repeat("é", cols+2) + "日\x1b[?7h"},
		{"scrolling", strings.Repeat("é日ü\r\n", 8)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, split := range []bool{false, true} {
				spans, cells := spanPair(t, cols, 4, 10)
				in := []byte(tc.in)
				if split {
					for i := range in {
						spans.Write(in[i : i+1])
						cells.Write(in[i : i+1])
					}
				} else {
					spans.Write(in)
					cells.Write(in)
				}
				checkSpanSame(t, spans, cells)
				spans.Write([]byte("\x1b[2bé"))
				cells.Write([]byte("\x1b[2bé"))
				checkSpanSame(t, spans, cells)
				for _, w := range []int{cols + 3, cols - 4} {
					spans.Resize(w, 4, 0, 0)
					cells.Resize(w, 4, 0, 0)
					checkSpanSame(t, spans, cells)
				}
			}
		})
	}
}

// TestPrintTextRun checks what printText consumes: the text up to the
// first thing it leaves to the general path.
func TestPrintTextRun(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     int // bytes consumed
		row      string
	}{
		{"to a control", "• café 日本 ok\r\n", len("• café 日本 ok"), "• café 日本 ok"},
		{"to a combining mark", "éa\u0301", len("éa"), "éa"},
		{"to the cell before the margin", "日本語テスト한국어中文", len("日本語テスト한국어"), "日本語テスト한국어"},
		{"a wide glyph at the last column", strings.Repeat("é", 18) + "日", 2 * 18, strings.Repeat("é", 18)},
		{"a narrow one there", strings.Repeat("é", 20), 2 * 19, strings.Repeat("é", 19)},
		{"to an escape", "ü\x1b[m", len("ü"), "ü"},
		{"to a C1", "ü\u0085", len("ü"), "ü"},
		{"to an incomplete character", "ü\xe6\x97", len("ü"), "ü"},
		{"to a lead byte without its continuation", "ü\xc3x", len("ü"), "ü"},
		{"to a control before continuation bytes", "ü\r\x85\x85", len("ü"), "ü"},
		{"to a stray continuation byte", "ü\x85\x85", len("ü"), "ü"},
		{"repeated wide glyphs (cached widths)", "日日日日本本é\r", len("日日日日本本é"), "日日日日本本é"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, _ := newTest(t, 20, 3, 0)
			if got := e.printText([]byte(tc.in)); got != tc.want {
				t.Errorf("printText consumed %d bytes, want %d", got, tc.want)
			}
			if got := strings.TrimRight(gridText(screenOf(e))[0], " "); got != tc.row {
				t.Errorf("row %q, want %q", got, tc.row)
			}
		})
	}
	e, _ := newTest(t, 20, 3, 0)
	e.Write([]byte("\x1b[4h"))
	if n := e.printText([]byte("é")); n != 0 {
		t.Errorf("insert mode: printText consumed %d bytes, want 0", n)
	}
	// A pending wrap is printRune's to resolve, wherever the cursor is.
	e, _ = newTest(t, 20, 3, 0)
	e.cur.wrapPending = true
	if n := e.printText([]byte("é")); n != 0 {
		t.Errorf("pending wrap: printText consumed %d bytes, want 0", n)
	}
}

// TestPrintTextSplits checks that mixed text prints the same however
// the writes split it.
func TestPrintTextSplits(t *testing.T) {
	checkSplits(t, 12, 4, []byte("• café 日本語 ok\r\nüüüüüüüüüüüü日\r\n👩\u200d💻é\u0301\x1b[2b"))
}
