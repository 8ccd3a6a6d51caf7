package engine

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/streamgen"
)

// spanPair returns two engines of the same size, the first with the span
// form, the second keeping every row as cells.
func spanPair(tb testing.TB, cols, rows, scrollback int) (spans, cells *Engine) {
	tb.Helper()
	spans, _ = newTest(tb, cols, rows, scrollback)
	cells, _ = newTest(tb, cols, rows, scrollback)
	cells.noSpans = true
	return spans, cells
}

// checkSpanSame checks that the engine with the span form shows what the
// one without shows: the same Screen, the same snapshot bytes, the same
// encoded scrollback; and that each row in span form encodes, counts and
// converts as the same row turned into cells does.
func checkSpanSame(tb testing.TB, spans, cells *Engine) {
	tb.Helper()
	if !cells.noSpans {
		tb.Fatal("the reference engine uses the span form")
	}
	if s, c := screenOf(spans), screenOf(cells); !reflect.DeepEqual(s, c) {
		tb.Fatalf("screens differ:\nspans:\n%s\ncells:\n%s", screenDump(s), screenDump(c))
	}
	sp, err1 := spans.AppendSnapshot(nil, 9, 3, attachwire.EchoOn)
	cp, err2 := cells.AppendSnapshot(nil, 9, 3, attachwire.EchoOn)
	if err1 != nil || err2 != nil || !bytes.Equal(sp, cp) {
		tb.Fatalf("snapshots differ (%d bytes, %v; %d bytes, %v)", len(sp), err1, len(cp), err2)
	}
	if spans.sb.encN != cells.sb.encN {
		tb.Fatalf("encoded scrollback: %d lines, want %d", spans.sb.encN, cells.sb.encN)
	}
	for i := range spans.sb.encN {
		_, s, _ := spans.sb.line(i)
		_, c, _ := cells.sb.line(i)
		if !bytes.Equal(s, c) {
			tb.Fatalf("encoded scrollback line %d: %q, want %q", i, s, c)
		}
	}
	var lines []*line
	for _, b := range [...]*buffer{spans.prim, spans.alt} {
		if b != nil {
			for i := range b.lines {
				lines = append(lines, &b.lines[i])
			}
		}
	}
	for i := range spans.sb.rawN {
		lines = append(lines, spans.sb.rawLine(spans.sb.encN+i))
	}
	for _, l := range lines {
		if l.spanned {
			checkSpanRow(tb, l, &spans.ct)
		}
	}
}

// checkSpanRow checks one row in span form against a copy of it turned
// into cells.
func checkSpanRow(tb testing.TB, l *line, ct *clusters) {
	tb.Helper()
	if len(l.spans) == 0 && len(l.text) > 0 || len(l.spans) > 0 && l.spans[0].at != 0 {
		tb.Fatalf("runs %v do not start the text %q", l.spans, l.text)
	}
	for k, s := range l.spans {
		if int(s.at) >= l.runEnd(k) {
			tb.Fatalf("run %d of %v is empty (text %q)", k, l.spans, l.text)
		}
	}
	if len(l.spans) > maxSpans || l.n != 0 || !printableFill(l.fill) || len(l.text) > len(l.cells) {
		tb.Fatalf("row in span form: %d runs, n %d, fill %+v, text %d of %d", len(l.spans), l.n, l.fill, len(l.text), len(l.cells))
	}
	c := *l
	c.cells = make([]cell, len(l.cells))
	c.text = bytes.Clone(l.text)
	c.spans = append([]span(nil), l.spans...)
	c.unspan()
	got := encodeLine(nil, l, ct)
	want := encodeLine(nil, &c, ct)
	if !bytes.Equal(got, want) {
		tb.Fatalf("encodeLine from spans %q, from cells %q (text %q, runs %v)", got, want, l.text, l.spans)
	}
	end, fills := l.spanContent()
	stored, wantFills := lineCells(&c)
	if end != len(stored) || fills != wantFills {
		tb.Fatalf("spanContent = %d, %d; lineCells gives %d, %d", end, fills, len(stored), wantFills)
	}
}

func screenDump(s *attachwire.Screen) string {
	var b strings.Builder
	fmt.Fprintf(&b, "cursor %d,%d modes %#x\n", s.CursorRow, s.CursorCol, s.Modes)
	for r := range s.Rows {
		for _, c := range s.Primary[r*s.Cols : (r+1)*s.Cols] {
			fmt.Fprintf(&b, "%s", c.Content)
			if c.Style != 0 || c.Fg != 0 || c.Bg != 0 {
				fmt.Fprintf(&b, "{%x,%x,%x}", c.Style, c.Fg, c.Bg)
			}
		}
		b.WriteByte('\n')
	}
	for _, l := range s.Scrollback {
		fmt.Fprintf(&b, "sb %q\n", lineText(l))
	}
	return b.String()
}

// genSpans returns n random tokens weighted towards what the span form
// handles and its edges: ASCII runs overwriting and extending rows, SGR,
// CR, LF, CUP, EL and ED of every kind, ICH, DCH, ECH, REP, wide and
// combining characters, autowrap and insert mode, DECALN, scroll regions.
func genSpans(seed uint64, n, cols, rows int) []byte {
	r := rand.New(rand.NewPCG(seed, 0x5bd1e995))
	var b strings.Builder
	for range n {
		switch k := r.IntN(100); {
		case k < 30:
			for range 1 + r.IntN(3) {
				b.WriteString([]string{"a", "bc", "word ", "  ", "0123456789", "status: ok", "-", "#####"}[r.IntN(8)])
			}
		case k < 32:
			b.WriteString(strings.Repeat("x", r.IntN(3*cols)))
		case k < 42:
			b.WriteString(genSGR(r))
		case k < 46:
			b.WriteString([]string{"\x1b[0m", "\x1b[m", "\x1b[7m", "\x1b[27m"}[r.IntN(4)])
		case k < 54:
			b.WriteString([]string{"\r", "\n", "\r\n", "\b"}[r.IntN(4)])
		case k < 62:
			fmt.Fprintf(&b, "\x1b[%d;%dH", 1+r.IntN(rows+1), 1+r.IntN(cols+2))
		case k < 66:
			fmt.Fprintf(&b, "\x1b[%dG", 1+r.IntN(cols+2))
		case k < 74:
			// "ESC [ K" too: appendSpans takes that spelling itself.
			b.WriteString([]string{"\x1b[K", "\x1b[0K", "\x1b[1K", "\x1b[2K", "\r\x1b[K"}[r.IntN(5)])
		case k < 76:
			fmt.Fprintf(&b, "\x1b[%dJ", r.IntN(3))
		case k < 82:
			fmt.Fprintf(&b, "\x1b[%d%c", 1+r.IntN(cols/2+1), "@PXb"[r.IntN(4)])
		case k < 88:
			// Runs of text mixing scripts for printText: wide and
			// narrow, clusters it leaves to printRune (combining
			// marks, VS16, ZWJ sequences, flags, skin tones), ASCII
			// in between; long enough now and then to reach the
			// margin with a wide glyph or a narrow one.
			for range 1 + r.IntN(4) {
				b.WriteString(textTokens[r.IntN(len(textTokens))])
			}
			if r.IntN(4) == 0 {
				fmt.Fprintf(&b, "\x1b[%db", 1+r.IntN(3)) // REP: only after ASCII
			}
		case k < 91:
			b.WriteString([]string{"\x1b[?7l", "\x1b[?7h", "\x1b[4h", "\x1b[4l"}[r.IntN(4)])
		case k < 93:
			b.WriteString([]string{"\x1b#8", "\x1b(0lq\x1b(B", "\x1bM", "\x1bD", "\x1b7", "\x1b8"}[r.IntN(6)])
		case k < 95:
			fmt.Fprintf(&b, "\x1b[%d;%dr", 1+r.IntN(rows), 1+r.IntN(rows))
		case k < 97:
			fmt.Fprintf(&b, "\x1b[%d%c", 1+r.IntN(3), "STLM"[r.IntN(4)])
		default:
			b.WriteString([]string{"\x1b[?1049h", "\x1b[?1049l", "\t", "\x1b[r"}[r.IntN(4)])
		}
	}
	return []byte(b.String())
}

// textTokens are the pieces genSpans makes its non-ASCII text of.
var textTokens = []string{
	"日本", "é", "e\u0301", "❤\ufe0f", "│", "😀", "• ", "café ", "Ελληνικά", "русский",
	"テスト", "한국어", "→", "…", "👍🏽", "👩\u200d💻", "🇩🇪", "─────", "x", "ok ",
	"中文字符中文字符中文字符", "ééééééééééé", "a\u0308b", "\u200d", "\ufe0f", "©",
	"Grüße", "naïve", "é\u0085x", "\u009b1m", "\x1b(0", "\x1b(B", "\x1b)0\x0e", "\x0f",
}

// feedPair writes data to both engines in chunks of 1 to maxChunk bytes
// drawn from r, checking them against each other after every chunk.
func feedPair(tb testing.TB, spans, cells *Engine, data []byte, r *rand.Rand, maxChunk int) {
	tb.Helper()
	for len(data) > 0 {
		n := min(len(data), 1+r.IntN(maxChunk))
		spans.Write(data[:n])
		cells.Write(data[:n])
		data = data[n:]
		checkSpanSame(tb, spans, cells)
	}
}

// TestSpanFormMatchesCells feeds random streams to an engine with the
// span form and to one without, in random chunks and through resizes,
// and checks after every chunk that they show the same screen.
func TestSpanFormMatchesCells(t *testing.T) {
	type size struct{ cols, rows, scrollback int }
	sizes := []size{{20, 6, 0}, {30, 8, 10}, {40, 10, 300}, {80, 24, 50}, {7, 3, 270}}
	streams := map[string]func(seed uint64, sz size) []byte{
		"spans": func(seed uint64, sz size) []byte { return genSpans(seed, 400, sz.cols, sz.rows) },
		"sequences": func(seed uint64, sz size) []byte {
			return genSequences(seed, 300, sz.cols, sz.rows)
		},
		"streamgen": func(seed uint64, sz size) []byte { return streamgen.Mixed(seed, 24<<10) },
	}
	for name, gen := range streams {
		for i, sz := range sizes {
			for seed := uint64(1); seed <= 4; seed++ {
				t.Run(fmt.Sprintf("%s/%dx%d/%d", name, sz.cols, sz.rows, seed), func(t *testing.T) {
					r := rand.New(rand.NewPCG(seed, uint64(i)))
					spans, cells := spanPair(t, sz.cols, sz.rows, sz.scrollback)
					data := gen(seed, sz)
					half := len(data) / 2
					feedPair(t, spans, cells, data[:half], r, 300)
					c2, r2 := 1+r.IntN(2*sz.cols), 1+r.IntN(2*sz.rows)
					spans.Resize(c2, r2, 0, 0)
					cells.Resize(c2, r2, 0, 0)
					checkSpanSame(t, spans, cells)
					feedPair(t, spans, cells, data[half:], r, 300)
				})
			}
		}
	}
}

// TestSpanFormUsed checks that the span form does take the usual output:
// after a stream of colored log lines and redrawn progress bars, the
// screen's rows and the raw scrollback are in span form.
func TestSpanFormUsed(t *testing.T) {
	e, _ := newTest(t, 80, 10, 50)
	for i := range 40 {
		fmt.Fprintf(writerFunc(e.Write), "\x1b[90m12:00:%02d\x1b[0m \x1b[1;31mERROR\x1b[0m request handled in %d ms\r\n", i, i)
		for p := range 3 {
			fmt.Fprintf(writerFunc(e.Write), "\r\x1b[K\x1b[36m[%s%s]\x1b[0m %d%%", strings.Repeat("#", p), strings.Repeat(" ", 3-p), p*33)
		}
		e.Write([]byte("\r\n"))
	}
	for i := range e.rows - 1 { // the last row is the empty one the cursor is on
		if l := e.prim.line(i); !l.spanned {
			t.Errorf("row %d is not in span form", i)
		}
	}
	for i := range e.sb.rawN {
		if !e.sb.rawLine(i).spanned {
			t.Errorf("scrollback line %d is not in span form", i)
		}
	}
	sb := screenOf(e).Scrollback // lines 21 to 70 of the 80 written
	for i, want := range []string{"[## ] 66%", "12:00:11 ERROR request handled in 11 ms"} {
		if got := lineText(sb[i]); got != want {
			t.Errorf("scrollback line %d %q, want %q", i, got, want)
		}
	}
}

// TestSpanShortcuts pins the sequences appendSpans handles itself
// against the general path (the engine without the span form takes it):
// "ESC [ K" after a CR LF onto a soft-wrapped row must clear the wrap
// (a resize rewraps by it) and fill in the pen's background.
func TestSpanShortcuts(t *testing.T) {
	const cols = 12
	for _, tc := range []struct{ name, in string }{
		{"EL on a wrapped row", "\r\n" + strings.Repeat("y", cols+3) + "\x1b[H\x1b[44ma\r\n\x1b[Kb"},
		{"CR EL", "\x1b[32mabc\r\x1b[43m\x1b[Kde\r\x1b[0m\x1b[Kf\r\n"},
		{"EL mid-row", "abcdef\x1b[3D\x1b[41m\x1b[Kg\x1b[Kh"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spans, cells := spanPair(t, cols, 5, 10)
			spans.Write([]byte(tc.in))
			cells.Write([]byte(tc.in))
			checkSpanSame(t, spans, cells)
			for _, w := range []int{cols + 5, cols - 5} {
				spans.Resize(w, 5, 0, 0)
				cells.Resize(w, 5, 0, 0)
				checkSpanSame(t, spans, cells)
			}
		})
	}
}

// TestSpanPaint checks the style runs after overwrites of every shape:
// the runs stay sorted, minimal where neighbours share a pen, and the
// pen under each column is the last one printed there.
func TestSpanPaint(t *testing.T) {
	red, blue := pen{fg: attachwire.IndexedColor(1)}, pen{bg: attachwire.IndexedColor(4)}
	for _, tc := range []struct {
		name  string
		paint func(l *line)
		want  []span
		text  string
	}{
		{"append same pen", func(l *line) {
			l.printSpan(0, []byte("ab"), red)
			l.printSpan(2, []byte("cd"), red)
		}, []span{{0, red}}, "abcd"},
		{"append new pen", func(l *line) {
			l.printSpan(0, []byte("ab"), red)
			l.printSpan(2, []byte("cd"), blue)
		}, []span{{0, red}, {2, blue}}, "abcd"},
		{"gap takes the fill", func(l *line) {
			l.printSpan(3, []byte("x"), red)
		}, []span{{0, pen{}}, {3, red}}, "   x"},
		{"overwrite inside a run", func(l *line) {
			l.printSpan(0, []byte("abcdef"), red)
			l.printSpan(2, []byte("XY"), blue)
		}, []span{{0, red}, {2, blue}, {4, red}}, "abXYef"},
		{"overwrite across runs", func(l *line) {
			l.printSpan(0, []byte("ab"), red)
			l.printSpan(2, []byte("cd"), blue)
			l.printSpan(4, []byte("ef"), red)
			l.printSpan(1, []byte("1234"), pen{})
		}, []span{{0, red}, {1, pen{}}, {5, red}}, "a1234f"},
		{"overwrite merging both sides", func(l *line) {
			l.printSpan(0, []byte("ab"), red)
			l.printSpan(2, []byte("cd"), blue)
			l.printSpan(4, []byte("ef"), red)
			l.printSpan(2, []byte("CD"), red)
		}, []span{{0, red}}, "abCDef"},
		{"overwrite at the start past the end", func(l *line) {
			l.printSpan(0, []byte("ab"), red)
			l.printSpan(2, []byte("cd"), blue)
			l.printSpan(0, []byte("ABCDEF"), pen{})
		}, []span{{0, pen{}}}, "ABCDEF"},
		{"overwrite the run's own pen", func(l *line) {
			l.printSpan(0, []byte("abcdef"), red)
			l.printSpan(1, []byte("B"), red)
		}, []span{{0, red}}, "aBcdef"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := line{cells: make([]cell, 10), fill: cell{c: ' '}}
			if !l.spanForm() {
				t.Fatal("a fresh row does not take the span form")
			}
			tc.paint(&l)
			if string(l.text) != tc.text || !reflect.DeepEqual(l.spans, tc.want) {
				t.Errorf("text %q runs %v, want %q %v", l.text, l.spans, tc.text, tc.want)
			}
		})
	}
}

// FuzzSpans feeds arbitrary bytes in chunks to an engine with the span
// form and to one without, with a resize in the middle, and checks after
// every chunk that they show the same screen.
func FuzzSpans(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	for seed := range uint64(4) {
		f.Add(append([]byte{byte(20 + seed*7), 6, 0x80, 0x33}, genSpans(seed, 60, 20, 6)...))
	}
	f.Add(append([]byte{80, 10, 0x40, 0x50}, streamgen.Mixed(1, 2048)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 4 {
			return
		}
		cols, rows := 1+int(data[0])%100, 1+int(data[1])%40
		cut := int(data[2]) * len(data) / 256
		cols2, rows2 := 1+int(data[3])%100, 1+int(data[0]^data[3])%40
		scrollback := 20 + int(data[1]&1)*260 // past rawLines: encoded lines too
		data = data[4:]
		cut = min(cut, len(data))
		spans, cells := spanPair(t, cols, rows, scrollback)
		feed := func(part []byte) {
			for len(part) > 0 {
				n := min(len(part), 1+int(part[0])%23)
				spans.Write(part[:n])
				cells.Write(part[:n])
				part = part[n:]
				checkSpanSame(t, spans, cells)
			}
		}
		feed(data[:cut])
		spans.Resize(cols2, rows2, 0, 0)
		cells.Resize(cols2, rows2, 0, 0)
		checkSpanSame(t, spans, cells)
		feed(data[cut:])
	})
}
