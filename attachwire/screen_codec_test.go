package attachwire

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"reflect"
	"testing"
)

// goldenScreen is a 3x1 screen: a bold wide glyph in RGB, its
// continuation, and an "x" in indexed colors, plus one scrollback line.
func goldenScreen() *Screen {
	pink := RGBColor(0xFF, 0x00, 0x80)
	return &Screen{
		Epoch: 7, Echo: EchoOn, Cols: 3, Rows: 1,
		CursorCol: 2, CursorVisible: true, CursorShape: CursorBar,
		Modes: ModeBracketedPaste, SavedCursorCol: 2,
		Primary: []Cell{
			{Content: "中", Style: StyleBold, Fg: pink},
			{Style: StyleWideCont, Fg: pink},
			{Content: "x", Fg: IndexedColor(196), Bg: IndexedColor(4)},
		},
		Scrollback: [][]Cell{{{Content: "a"}}},
	}
}

const goldenScreenHex = "07 01 03 01 00" + // epoch, echo on, cols 3, rows 1, primary active
	" 00 02 01 03" + // cursor (0,2), visible, bar
	" 01 00 00 02" + // modes: bracketed paste, mouseProto 0, saved cursor (0,2)
	" 03 e4 b8 ad 01 02 ff 00 80 00" + // "中" bold, fg RGB ff0080, bg default
	" 00 40 02 ff 00 80 00" + // continuation
	" 01 78 00 01 c4 01 04" + // "x", fg idx 196, bg idx 4
	" 00" + // no alt
	" 01 01 01 61 00 00 00" // one scrollback line of one cell "a"

func TestScreenGolden(t *testing.T) {
	want := unhex(t, goldenScreenHex)
	got, err := AppendScreen(nil, goldenScreen())
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("AppendScreen = % x, %v\nwant % x", got, err, want)
	}
	s, err := DecodeScreen(want)
	if err != nil {
		t.Fatal(err)
	}
	assertScreenEqual(t, &s, goldenScreen())
	prefixesFail(t, want, func(p []byte) error { _, err := DecodeScreen(p); return err })
	_, err = DecodeScreen(append(want, 0))
	wantFraming(t, err, "trailing byte")
}

func TestScreenGoldenAltAndMouse(t *testing.T) {
	s := &Screen{
		Echo: EchoUnknown, Cols: 1, Rows: 1, Active: BufferAlternate,
		Modes: ModeMouse | ModeFocus, Mouse: MouseButton | MouseEncSGR,
		Primary: []Cell{{Content: "p"}},
		Alt:     []Cell{{Content: "é", Style: StyleItalic | StyleUnderline}},
	}
	want := unhex(t, "00 ff 01 01 01 00 00 00 00 18 23 00 00"+
		" 01 70 00 00 00"+ // primary "p"
		" 01 02 c3 a9 06 00 00"+ // alt present, "é" italic+underline
		" 00") // no scrollback
	got, err := AppendScreen(nil, s)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("AppendScreen = % x, %v\nwant % x", got, err, want)
	}
	d, err := DecodeScreen(want)
	if err != nil {
		t.Fatal(err)
	}
	assertScreenEqual(t, &d, s)
}

func assertScreenEqual(tb testing.TB, got, want *Screen) {
	tb.Helper()
	g, w := *got, *want
	g.Primary, g.Alt, g.Scrollback = nil, nil, nil
	w.Primary, w.Alt, w.Scrollback = nil, nil, nil
	if !reflect.DeepEqual(g, w) {
		tb.Fatalf("screen header = %+v, want %+v", g, w)
	}
	cellsEqual(tb, "primary", got.Primary, want.Primary)
	if (got.Alt == nil) != (want.Alt == nil) {
		tb.Fatalf("alt presence = %v, want %v", got.Alt != nil, want.Alt != nil)
	}
	cellsEqual(tb, "alt", got.Alt, want.Alt)
	if len(got.Scrollback) != len(want.Scrollback) {
		tb.Fatalf("scrollback has %d lines, want %d", len(got.Scrollback), len(want.Scrollback))
	}
	for i := range got.Scrollback {
		cellsEqual(tb, "scrollback line", got.Scrollback[i], want.Scrollback[i])
	}
}

func cellsEqual(tb testing.TB, what string, got, want []Cell) {
	tb.Helper()
	if len(got) != len(want) {
		tb.Fatalf("%s has %d cells, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			tb.Fatalf("%s cell %d = %+v, want %+v", what, i, got[i], want[i])
		}
	}
}

func TestScreenInvalid(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(s *Screen)
	}{
		{"zero cols", func(s *Screen) { s.Cols = 0 }},
		{"too many rows", func(s *Screen) { s.Rows = MaxScreenDim + 1 }},
		{"primary length", func(s *Screen) { s.Primary = s.Primary[:2] }},
		{"alt length", func(s *Screen) { s.Alt = []Cell{BlankCell()} }},
		{"alt active but absent", func(s *Screen) { s.Active = BufferAlternate }},
		{"active buffer 2", func(s *Screen) { s.Active = 2 }},
		{"echo 2", func(s *Screen) { s.Echo = 2 }},
		{"cursor shape 4", func(s *Screen) { s.CursorShape = 4 }},
		{"reserved mode bit", func(s *Screen) { s.Modes |= 0x20 }},
		{"mouse proto without mode", func(s *Screen) { s.Mouse = MouseX10 }},
		{"mouse mode without tracking", func(s *Screen) { s.Modes |= ModeMouse }},
		{"mouse tracking 5", func(s *Screen) { s.Modes |= ModeMouse; s.Mouse = 5 }},
		{"mouse encoding 3", func(s *Screen) { s.Modes |= ModeMouse; s.Mouse = MouseX10 | 0x30 }},
		{"cursor col out", func(s *Screen) { s.CursorCol = 3 }},
		{"cursor row out", func(s *Screen) { s.CursorRow = 1 }},
		{"cursor negative", func(s *Screen) { s.CursorCol = -1 }},
		{"saved cursor out", func(s *Screen) { s.SavedCursorCol = 3 }},
		{"empty content not continuation", func(s *Screen) { s.Primary[2] = Cell{} }},
		{"continuation with extra style", func(s *Screen) { s.Primary[1].Style |= StyleBold }},
		{"content with continuation bit", func(s *Screen) { s.Primary[2].Style = StyleWideCont }},
		{"reserved style bit", func(s *Screen) { s.Primary[2].Style = 0x80 }},
		{"escape in content", func(s *Screen) { s.Primary[2].Content = "\x1b" }},
		{"DEL in content", func(s *Screen) { s.Primary[2].Content = "\x7f" }},
		{"C1 in content", func(s *Screen) { s.Primary[2].Content = "\u009b" }},
		{"C0 after base rune", func(s *Screen) { s.Primary[2].Content = "e\n" }},
		{"invalid utf-8", func(s *Screen) { s.Primary[0].Content = "\xe4\xb8" }},
		{"malformed default color", func(s *Screen) { s.Primary[2].Fg = 5 }},
		{"malformed indexed color", func(s *Screen) { s.Primary[2].Bg = IndexedColor(1) | 0x100 }},
		{"unknown color kind", func(s *Screen) { s.Primary[2].Bg = 0x03000000 }},
		{"bad scrollback cell", func(s *Screen) { s.Scrollback[0][0].Content = "\t" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := goldenScreen()
			tt.mutate(s)
			wantFraming(t, s.Validate(), "Validate")
			dst := []byte("keep")
			got, err := AppendScreen(dst, s)
			wantFraming(t, err, "AppendScreen")
			if string(got) != "keep" {
				t.Fatalf("AppendScreen changed dst on error: %q", got)
			}
		})
	}
}

func TestDecodeScreenInvalid(t *testing.T) {
	head := "07 01 03 01 00 00 02 01 03 01 00 00 02"
	cells := " 03 e4 b8 ad 01 02 ff 00 80 00 00 40 02 ff 00 80 00 01 78 00 01 c4 01 04"
	tail := " 00 01 01 01 61 00 00 00"
	tests := []struct {
		name string
		hex  string
	}{
		{"echo 0x02", "07 02 03 01 00 00 02 01 03 01 00 00 02" + cells + tail},
		{"cursorVisible 2", "07 01 03 01 00 00 02 02 03 01 00 00 02" + cells + tail},
		{"altPresent 2", head + cells + " 02" + " 00"},
		{"activeBuffer 1 without alt", "07 01 03 01 01 00 02 01 03 01 00 00 02" + cells + tail},
		{"modes reserved", "07 01 03 01 00 00 02 01 03 81 00 00 02" + cells + tail},
		{"mouseProto without mouse", "07 01 03 01 00 00 02 01 03 01 01 00 02" + cells + tail},
		{"cursor past cols", "07 01 03 01 00 00 03 01 03 01 00 00 02" + cells + tail},
		{"cols over limit", "07 01 80 80 04 01 00 00 02 01 03 01 00 00 02" + cells + tail},
		{"grid larger than input", "07 01 ff ff 03 ff ff 03 00 00 00 01 00 00 00 00 00" + cells + tail},
		{"style reserved", head + " 01 61 80 00 00" + cells[30:] + tail},
		{"continuation wrong style", head + " 00 41 00 00" + cells[30:] + tail},
		{"content with continuation style", head + " 01 61 40 00 00" + cells[30:] + tail},
		{"control in content", head + " 01 1b 00 00 00" + cells[30:] + tail},
		{"C1 in content", head + " 02 c2 9b 00 00 00" + cells[30:] + tail},
		{"color tag 3", head + " 01 61 00 03 00" + cells[30:] + tail},
		{"huge scrollback count", head + cells + " 00 ff ff ff ff 0f"},
		{"huge line cell count", head + cells + " 00 01 ff ff ff ff 0f 01 61 00 00 00"},
		{"runeLen overflow", head + " ff ff ff ff ff ff ff ff ff 7f 00 00 00" + cells[30:] + tail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeScreen(unhex(t, tt.hex))
			wantFraming(t, err, tt.name)
		})
	}
}

func TestDecodeScreenTruncatedIsUnexpectedEOF(t *testing.T) {
	enc := unhex(t, goldenScreenHex)
	_, err := DecodeScreen(enc[:len(enc)-1])
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v, want io.ErrUnexpectedEOF inside", err)
	}
}

// randScreen returns a valid random screen; scrollback lines have random
// lengths (some longer than cols, some empty).
func randScreen(r *rand.Rand, cols, rows, scrollback int) *Screen {
	s := &Screen{
		Epoch: r.Uint64() >> r.IntN(64), Echo: []EchoMode{EchoOff, EchoOn, EchoUnknown}[r.IntN(3)],
		Cols: cols, Rows: rows,
		CursorRow: r.IntN(rows), CursorCol: r.IntN(cols), CursorVisible: r.IntN(2) == 1,
		CursorShape: CursorShape(r.IntN(4)), Modes: Modes(r.IntN(0x20)),
	}
	if s.Modes&ModeMouse != 0 {
		s.Mouse = MouseProto(1+r.IntN(4)) | MouseProto(r.IntN(3))<<4
	}
	s.Primary = randGrid(r, cols, rows)
	s.SavedCursorRow, s.SavedCursorCol = s.CursorRow, s.CursorCol
	if r.IntN(2) == 1 {
		s.Alt = randGrid(r, cols, rows)
		if r.IntN(2) == 1 {
			s.Active = BufferAlternate
			s.SavedCursorRow, s.SavedCursorCol = r.IntN(rows), r.IntN(cols)
		}
	}
	for range scrollback {
		s.Scrollback = append(s.Scrollback, randCells(r, r.IntN(cols*2), cols))
	}
	return s
}

// Sample glyphs: the first wideGlyphs are two columns wide in terminals.
var sampleGlyphs = []string{"中", "😀", "👩\u200d💻", "a", "Z", " ", "~", "é", "Ü", "e\u0301", "\ufffd"}

const wideGlyphs = 3

// randCells returns n valid cells; a wide glyph is followed by its
// continuation cell, and is replaced by a narrow one where that would
// cross a multiple of cols.
func randCells(r *rand.Rand, n, cols int) []Cell {
	if n == 0 {
		return nil
	}
	cells := make([]Cell, n)
	for i := 0; i < n; i++ {
		g := r.IntN(len(sampleGlyphs))
		if g < wideGlyphs && (i+1 == n || (i+1)%cols == 0) {
			g = wideGlyphs + r.IntN(len(sampleGlyphs)-wideGlyphs)
		}
		c := Cell{Content: sampleGlyphs[g], Style: Style(r.IntN(0x40)), Fg: randColor(r), Bg: randColor(r)}
		if r.IntN(3) == 0 {
			c, g = BlankCell(), wideGlyphs
		}
		cells[i] = c
		if g < wideGlyphs {
			i++
			cells[i] = Cell{Style: StyleWideCont, Fg: c.Fg, Bg: c.Bg}
		}
	}
	return cells
}

// randGrid returns a valid random grid.
func randGrid(r *rand.Rand, cols, rows int) []Cell { return randCells(r, cols*rows, cols) }

func randColor(r *rand.Rand) Color {
	switch r.IntN(3) {
	case 1:
		return IndexedColor(uint8(r.IntN(256)))
	case 2:
		return RGBColor(uint8(r.IntN(256)), uint8(r.IntN(256)), uint8(r.IntN(256)))
	}
	return DefaultColor
}

func TestScreenRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 300 {
		s := randScreen(r, 1+r.IntN(12), 1+r.IntN(6), r.IntN(4))
		enc, err := AppendScreen(nil, s)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		got, err := DecodeScreen(enc)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		assertScreenEqual(t, &got, s)
		var u Screen
		if err := u.UnmarshalBinary(enc); err != nil {
			t.Fatal(err)
		}
		again, _ := u.MarshalBinary()
		if !bytes.Equal(again, enc) {
			t.Fatalf("case %d: re-encoding differs", i)
		}
		if i%30 == 0 {
			prefixesFail(t, enc, func(p []byte) error { _, err := DecodeScreen(p); return err })
		}
	}
}

func TestDecodeScreenSharesASCII(t *testing.T) {
	enc, _ := AppendScreen(nil, goldenScreen())
	allocs := testing.AllocsPerRun(20, func() {
		if _, err := DecodeScreen(enc); err != nil {
			t.Fatal(err)
		}
	})
	// primary cells, "中", the scrollback line array and its one line.
	if allocs > 4 {
		t.Fatalf("DecodeScreen allocs = %v, want <= 4", allocs)
	}
	if len(printableASCII) != 0x7F-0x20 {
		t.Fatalf("printableASCII has %d bytes", len(printableASCII))
	}
	for i := range len(printableASCII) {
		if printableASCII[i] != byte(0x20+i) {
			t.Fatalf("printableASCII[%d] = %q", i, printableASCII[i])
		}
	}
}

// TestDecodeScreenNonMinimalRuneLen checks that a continuation cell's
// runeLen 0 is recognised by value (docs/protocol.md §1: decoders accept
// non-minimal uvarints), not only as the single byte 00.
func TestDecodeScreenNonMinimalRuneLen(t *testing.T) {
	want := &Screen{Cols: 2, Rows: 1, CursorVisible: true,
		Primary: []Cell{{Content: "中", Fg: IndexedColor(3)}, {Style: StyleWideCont, Fg: IndexedColor(3)}}}
	enc, err := AppendScreen(nil, want)
	if err != nil {
		t.Fatal(err)
	}
	// The continuation cell, then altPresent 0 and scrollbackLines 0.
	const minimal = "00 40 01 03 00" + " 00 00"
	head, ok := bytes.CutSuffix(enc, unhex(t, minimal))
	if !ok {
		t.Fatalf("encoding % x does not end in %s", enc, minimal)
	}
	tests := []struct {
		name, cont string
		ok         bool
	}{
		{"runeLen 80 00", "80 00 40 01 03 00", true},
		{"runeLen 80 80 00", "80 80 00 40 01 03 00", true},
		{"runeLen 80 00 style 0", "80 00 00 01 03 00", false},
		{"runeLen 80 00 truncated", "80 00 40 01", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := append(bytes.Clone(head), unhex(t, tt.cont+" 00 00")...)
			got, err := DecodeScreen(p)
			if !tt.ok {
				wantFraming(t, err, tt.name)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			assertScreenEqual(t, &got, want)
		})
	}
}

// TestDecodeScreenNonMinimalRuneLenBlank is the case the review found: a
// 2x1 screen whose wide glyph has default colors and a continuation cell
// encoded 80 00 40 00 00.
func TestDecodeScreenNonMinimalRuneLenBlank(t *testing.T) {
	want := &Screen{Cols: 2, Rows: 1, Primary: []Cell{{Content: "中"}, {Style: StyleWideCont}}}
	enc, err := AppendScreen(nil, want)
	if err != nil {
		t.Fatal(err)
	}
	head, ok := bytes.CutSuffix(enc, unhex(t, "00 40 00 00 00 00"))
	if !ok {
		t.Fatalf("encoding % x does not end in a minimal continuation cell", enc)
	}
	got, err := DecodeScreen(append(bytes.Clone(head), unhex(t, "80 00 40 00 00 00 00")...))
	if err != nil {
		t.Fatal(err)
	}
	assertScreenEqual(t, &got, want)
	minimal, err := DecodeScreen(enc)
	if err != nil {
		t.Fatal(err)
	}
	assertScreenEqual(t, &got, &minimal)
}

// TestDecodeScreenAllocation: decoding allocates in proportion to the
// input: 1 MB of empty scrollback lines must not allocate tens of MB. More
// than MaxScrollbackLines lines are refused before the line slice is made,
// and otherwise a cell costs at most 8 times its encoding (9 with the
// allocator's size classes, which round up by at most 1/8) and a line its
// 24-byte slice header.
func TestDecodeScreenAllocation(t *testing.T) {
	base := &Screen{Cols: 80, Rows: 1, Primary: make([]Cell, 80), CursorVisible: true}
	for i := range base.Primary {
		base.Primary[i] = BlankCell()
	}
	enc, err := AppendScreen(nil, base)
	if err != nil {
		t.Fatal(err)
	}
	// withEmptyLines replaces the trailing scrollbackLines 0 by n empty
	// lines, a 0 byte each.
	withEmptyLines := func(n int) []byte {
		p := appendUvarint(bytes.Clone(enc[:len(enc)-1]), uint64(n))
		return append(p, make([]byte, n)...)
	}
	blankLines := *base
	for range 3000 {
		blankLines.Scrollback = append(blankLines.Scrollback, base.Primary)
	}
	contLines := *base
	cont := make([]Cell, 80)
	for i := range cont {
		cont[i] = Cell{Style: StyleWideCont}
	}
	for range 3000 {
		contLines.Scrollback = append(contLines.Scrollback, cont)
	}
	encode := func(s *Screen) []byte {
		p, err := AppendScreen(nil, s)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tt := range []struct {
		name  string
		p     []byte
		lines int // decoded scrollback lines; -1: refused
	}{
		{"1 MB of empty lines", withEmptyLines(1 << 20), -1},
		{"empty lines at the cap", withEmptyLines(MaxScrollbackLines), MaxScrollbackLines},
		{"blank lines", encode(&blankLines), 3000},
		{"continuation lines", encode(&contLines), 3000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var s Screen
			var err error
			got := allocated(func() { s, err = DecodeScreen(tt.p) })
			limit := 9*uint64(len(tt.p)) + 4096
			if tt.lines < 0 {
				wantFraming(t, err, tt.name)
				limit = 4 * uint64(len(tt.p))
			} else {
				if err != nil || len(s.Scrollback) != tt.lines {
					t.Fatalf("DecodeScreen: %d lines, %v; want %d", len(s.Scrollback), err, tt.lines)
				}
				limit += 24 * uint64(tt.lines)
			}
			if got > limit {
				t.Errorf("DecodeScreen of %d bytes allocated %d, bound %d", len(tt.p), got, limit)
			}
			t.Logf("%d bytes in, %d allocated (%.2fx)", len(tt.p), got, float64(got)/float64(len(tt.p)))
		})
	}
}

func TestScreenScrollbackCap(t *testing.T) {
	s := Screen{Cols: 1, Rows: 1, Primary: []Cell{BlankCell()}, Scrollback: make([][]Cell, MaxScrollbackLines+1)}
	if _, err := AppendScreen(nil, &s); err == nil {
		t.Fatal("AppendScreen encoded more than MaxScrollbackLines lines")
	} else {
		wantFraming(t, err, "scrollback cap")
	}
}
