package attachwire

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// appendCellsOneByOne appends cells through the per-cell methods a
// terminal uses: runs of equal one-rune cells as one AppendRuneRun (when
// run is set), one-rune cells with AppendRune, continuation cells with
// AppendWideCont, any other content with AppendCluster.
func appendCellsOneByOne(e *ScreenEncoder, cells []Cell, run bool) {
	for len(cells) > 0 {
		c := cells[0]
		r, size := utf8.DecodeRuneInString(c.Content)
		oneRune := c.Content != "" && size == len(c.Content) && (r != utf8.RuneError || size == 3)
		n := 1
		for run && oneRune && n < len(cells) && cells[n] == c {
			n++
		}
		switch {
		case c.Content == "" && c.Style == StyleWideCont:
			e.AppendWideCont(c.Fg, c.Bg)
		case oneRune && n > 1:
			e.AppendRuneRun(n, r, c.Style, c.Fg, c.Bg)
		case oneRune:
			e.AppendRune(r, c.Style, c.Fg, c.Bg)
		default:
			e.AppendCluster(c.Content, c.Style, c.Fg, c.Bg)
		}
		cells = cells[n:]
	}
}

// encodeParts encodes s with e part by part, each grid and line either
// cell by cell (mode 0), in runs (1), as a slice (2) or split between
// the two ways (3).
func encodeParts(e *ScreenEncoder, s *Screen, r *rand.Rand) {
	cells := func(cs []Cell) {
		switch r.IntN(4) {
		case 0:
			appendCellsOneByOne(e, cs, false)
		case 1:
			appendCellsOneByOne(e, cs, true)
		case 2:
			e.AppendCells(cs)
		default:
			k := r.IntN(len(cs) + 1)
			e.AppendCells(cs[:k])
			appendCellsOneByOne(e, cs[k:], true)
		}
	}
	cells(s.Primary)
	if s.Alt != nil {
		e.Alt()
		cells(s.Alt)
	}
	e.Scrollback(len(s.Scrollback))
	for _, l := range s.Scrollback {
		e.Line(len(l))
		cells(l)
	}
}

// TestScreenEncoderMatchesAppendScreen builds random screens part by
// part with one reused encoder, as a bare screen and as a Snapshot
// payload, and compares them with AppendScreen and AppendSnapshot.
func TestScreenEncoderMatchesAppendScreen(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	var e ScreenEncoder
	for i := range 400 {
		s := mixedScreen(r, i)
		want, err := AppendScreen([]byte("keep"), s)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		atSeq := r.Uint64() >> r.IntN(64)
		snap, err := NewSnapshot(atSeq, s)
		if err != nil {
			t.Fatal(err)
		}
		wantSnap, _ := AppendSnapshot([]byte("keep"), snap)
		for _, spare := range []int{0, 11, r.IntN(len(want)), len(want)} {
			dst := append(make([]byte, 0, 4+spare), "keep"...)
			if err := e.Begin(dst, s); err != nil {
				t.Fatal(err)
			}
			encodeParts(&e, s, r)
			got, err := e.Finish()
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("case %d, spare %d: encoder = % x, %v\nwant % x", i, spare, got, err, want)
			}
			if got, err := AppendScreenSnapshot(dst, atSeq, s); err != nil || !bytes.Equal(got, wantSnap) {
				t.Fatalf("case %d, spare %d: AppendScreenSnapshot = % x, %v\nwant % x", i, spare, got, err, wantSnap)
			}
			if err := e.BeginSnapshot(dst, atSeq, s); err != nil {
				t.Fatal(err)
			}
			encodeParts(&e, s, r)
			got, err = e.Finish()
			if err != nil || !bytes.Equal(got, wantSnap) {
				t.Fatalf("case %d, spare %d: snapshot = % x, %v\nwant % x", i, spare, got, err, wantSnap)
			}
		}
	}
}

// TestScreenEncoderSnapshotLength covers screens whose length takes 1 to
// 4 bytes, around the 3 BeginSnapshot reserves: Finish moves the screen
// both ways.
func TestScreenEncoderSnapshotLength(t *testing.T) {
	for _, tc := range []struct {
		name       string
		cols, rows int
	}{
		{"1 byte", 2, 1},
		{"2 bytes", 40, 20},
		{"3 bytes", 120, 40},
		{"4 bytes", 1000, 500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Screen{Cols: tc.cols, Rows: tc.rows, Primary: make([]Cell, tc.cols*tc.rows)}
			for i := range s.Primary {
				s.Primary[i] = Cell{Content: printableASCII[i%95 : i%95+1], Fg: IndexedColor(uint8(i / 7))}
			}
			snap, err := NewSnapshot(77, s)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := AppendSnapshot([]byte{0xAA}, snap)
			var e ScreenEncoder
			if err := e.BeginSnapshot([]byte{0xAA}, 77, s); err != nil {
				t.Fatal(err)
			}
			appendCellsOneByOne(&e, s.Primary, true)
			e.Scrollback(0)
			got, err := e.Finish()
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("got %d bytes (%v), want %d: first % x / % x", len(got), err, len(want), got[:min(12, len(got))], want[:12])
			}
			if _, err := DecodeSnapshot(got[1:]); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestScreenEncoderErrors feeds a 2×1 screen wrongly in every way the
// encoder checks: Finish must report a *FramingError naming the defect,
// leave dst as it was, and the encoder must work again after Begin.
func TestScreenEncoderErrors(t *testing.T) {
	a := func(e *ScreenEncoder) { e.AppendRune('a', 0, 0, 0) }
	grid := func(e *ScreenEncoder) { a(e); a(e) }
	for _, tc := range []struct {
		name  string
		alt   bool // the header says the alternate buffer is active
		parts func(e *ScreenEncoder)
		want  string
	}{
		{"C0 rune", false, func(e *ScreenEncoder) { a(e); e.AppendRune(0x1b, 0, 0, 0) }, "not printable"},
		{"DEL rune", false, func(e *ScreenEncoder) { a(e); e.AppendRune(0x7f, 0, 0, 0) }, "not printable"},
		{"C1 rune", false, func(e *ScreenEncoder) { a(e); e.AppendRune(0x85, 0, 0, 0) }, "not printable"},
		{"surrogate", false, func(e *ScreenEncoder) { a(e); e.AppendRune(0xD800, 0, 0, 0) }, "not printable"},
		{"rune past max", false, func(e *ScreenEncoder) { a(e); e.AppendRune(0x110000, 0, 0, 0) }, "not printable"},
		{"rune with continuation style", false, func(e *ScreenEncoder) { a(e); e.AppendRune('b', StyleWideCont, 0, 0) }, "has style"},
		{"reserved style", false, func(e *ScreenEncoder) { a(e); e.AppendRune('é', styleReserved, 0, 0) }, "has style"},
		{"run of bad runes", false, func(e *ScreenEncoder) { e.AppendRuneRun(2, '\n', 0, 0, 0) }, "not printable"},
		{"malformed fg", false, func(e *ScreenEncoder) { a(e); e.AppendRune('b', 0, Color(5), 0) }, "malformed"},
		{"malformed bg", false, func(e *ScreenEncoder) { a(e); e.AppendWideCont(0, Color(0x03000000)) }, "malformed"},
		{"empty cluster", false, func(e *ScreenEncoder) { a(e); e.AppendCluster("", 0, 0, 0) }, "not printable"},
		{"invalid UTF-8 cluster", false, func(e *ScreenEncoder) { a(e); e.AppendCluster("e\xcc", 0, 0, 0) }, "not printable"},
		{"cluster with style", false, func(e *ScreenEncoder) { a(e); e.AppendCluster("e\u0301", StyleWideCont, 0, 0) }, "has style"},
		{"bad cell in slice", false, func(e *ScreenEncoder) { e.AppendCells([]Cell{BlankCell(), {Content: "\t"}}) }, "not printable"},
		{"grid short", false, func(e *ScreenEncoder) { a(e) }, "1 cells still due"},
		{"grid long", false, func(e *ScreenEncoder) { a(e); a(e); a(e) }, "1 cells too many"},
		{"alt short", true, func(e *ScreenEncoder) { a(e); a(e); e.Alt(); a(e) }, "still due"},
		{"alt twice", true, func(e *ScreenEncoder) { grid(e); e.Alt(); grid(e); e.Alt() }, "out of order"},
		{"alt after scrollback", false, func(e *ScreenEncoder) { a(e); a(e); e.Scrollback(0); e.Alt() }, "out of order"},
		{"active alt absent", true, func(e *ScreenEncoder) { a(e); a(e); e.Scrollback(0) }, "active but absent"},
		{"negative lines", false, func(e *ScreenEncoder) { a(e); a(e); e.Scrollback(-1) }, "-1 lines"},
		{"too many lines", false, func(e *ScreenEncoder) { grid(e); e.Scrollback(MaxScrollbackLines + 1) }, "more than"},
		{"line before scrollback", false, func(e *ScreenEncoder) { a(e); a(e); e.Line(1) }, "out of order"},
		{"more lines than given", false, func(e *ScreenEncoder) { a(e); a(e); e.Scrollback(1); e.Line(0); e.Line(0) }, "beyond the count"},
		{"too few lines", false, func(e *ScreenEncoder) { a(e); a(e); e.Scrollback(2); e.Line(0) }, "1 lines early"},
		{"negative line", false, func(e *ScreenEncoder) { a(e); a(e); e.Scrollback(1); e.Line(-2) }, "-2 cells"},
		{"line short", false, func(e *ScreenEncoder) { a(e); a(e); e.Scrollback(1); e.Line(2); a(e) }, "still due"},
		{"no scrollback part", false, func(e *ScreenEncoder) { a(e); a(e) }, "out of order"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &Screen{Cols: 2, Rows: 1}
			if tc.alt {
				h.Active = BufferAlternate
			}
			for _, snapshot := range []bool{false, true} {
				var e ScreenEncoder
				dst := append(make([]byte, 0, 64), "keep"...)
				if snapshot {
					e.BeginSnapshot(dst, 9, h)
				} else {
					e.Begin(dst, h)
				}
				tc.parts(&e)
				got, err := e.Finish()
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("Finish error %v, want one containing %q", err, tc.want)
				}
				wantFraming(t, err, "Finish")
				if string(got) != "keep" {
					t.Fatalf("Finish left %q, want dst as it was", got)
				}
				// The encoder is reusable: a valid screen after the error.
				if err := e.Begin(got, &Screen{Cols: 1, Rows: 1}); err != nil {
					t.Fatal(err)
				}
				a(&e)
				e.Scrollback(0)
				got, err = e.Finish()
				want, _ := AppendScreen([]byte("keep"), &Screen{Cols: 1, Rows: 1, Primary: []Cell{{Content: "a"}}})
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("after the error: % x, %v; want % x", got, err, want)
				}
			}
		})
	}
}

// TestScreenEncoderBadHeader checks that Begin reports the header's
// defect as Validate does, and that nothing is appended after it.
func TestScreenEncoderBadHeader(t *testing.T) {
	h := &Screen{Cols: 2, Rows: 1, CursorCol: 2}
	want := h.Validate()
	var e ScreenEncoder
	if err := e.Begin([]byte("keep"), h); err == nil || err.Error() != want.Error() {
		t.Fatalf("Begin = %v, want %v", err, want)
	}
	e.AppendRune('a', 0, 0, 0)
	e.AppendRune('a', 0, 0, 0)
	e.Scrollback(0)
	got, err := e.Finish()
	if err == nil || err.Error() != want.Error() || string(got) != "keep" {
		t.Fatalf("Finish = %q, %v; want \"keep\", %v", got, err, want)
	}
}

// TestScreenEncoderNoAllocs checks that a screen appended into a buffer
// with room allocates nothing, whatever its cells.
func TestScreenEncoderNoAllocs(t *testing.T) {
	s := benchScreen()
	want, err := AppendScreen(nil, s)
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]byte, 0, len(want)+64)
	r := rand.New(rand.NewPCG(1, 2))
	var e ScreenEncoder
	allocs := testing.AllocsPerRun(20, func() {
		e.BeginSnapshot(dst, 5, s)
		encodeParts(&e, s, r)
		if _, err := e.Finish(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per screen, want 0", allocs)
	}
}
