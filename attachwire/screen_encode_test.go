package attachwire

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// refAppendScreen is the format 0x01 encoder written field by field from
// docs/protocol.md, with no fast paths, to check AppendScreen's cells against.
func refAppendScreen(dst []byte, s *Screen) ([]byte, error) {
	if err := s.Validate(); err != nil {
		return dst, err
	}
	dst = appendScreenHeader(dst, s) // the header has its own golden tests
	dst = refAppendCells(dst, s.Primary)
	if s.Alt == nil {
		dst = append(dst, 0)
	} else {
		dst = append(dst, 1)
		dst = refAppendCells(dst, s.Alt)
	}
	dst = appendUvarint(dst, uint64(len(s.Scrollback)))
	for _, line := range s.Scrollback {
		dst = appendUvarint(dst, uint64(len(line)))
		dst = refAppendCells(dst, line)
	}
	return dst, nil
}

func refAppendCells(dst []byte, cells []Cell) []byte {
	for _, c := range cells {
		dst = appendUvarint(dst, uint64(len(c.Content)))
		dst = append(dst, c.Content...)
		dst = append(dst, byte(c.Style))
		dst = refAppendColor(dst, c.Fg)
		dst = refAppendColor(dst, c.Bg)
	}
	return dst
}

func refAppendColor(dst []byte, c Color) []byte {
	switch c.Kind() {
	case ColorIndexed:
		return append(dst, 1, c.Index())
	case ColorRGB:
		r, g, b := c.RGB()
		return append(dst, 2, r, g, b)
	}
	return append(dst, 0)
}

// textCells returns n valid cells the way terminals fill them: runs of
// ASCII in one pen, blanks, now and then a wide glyph, a long cluster or
// a continuation cell.
func textCells(r *rand.Rand, n int) []Cell {
	cells := make([]Cell, 0, n)
	pen := Cell{}
	for len(cells) < n {
		switch k := r.IntN(40); {
		case k < 3:
			pen = Cell{Style: Style(r.IntN(0x40)), Fg: randColor(r), Bg: randColor(r)}
		case k < 5:
			cells = append(cells, BlankCell())
		case k == 5 && len(cells)+1 < n:
			cells = append(cells, Cell{Content: "中", Style: pen.Style, Fg: pen.Fg, Bg: pen.Bg},
				Cell{Style: StyleWideCont, Fg: pen.Fg, Bg: pen.Bg})
		case k == 6:
			c := pen
			c.Content = "e" + strings.Repeat("\u0301", r.IntN(80))
			cells = append(cells, c)
		case k == 7:
			c := pen
			c.Content = sampleGlyphs[r.IntN(len(sampleGlyphs))]
			cells = append(cells, c)
		default:
			c := pen
			c.Content = printableASCII[r.IntN(len(printableASCII)):][:1]
			cells = append(cells, c)
		}
	}
	return cells
}

// breakCell makes c invalid in one of the ways Validate rejects.
func breakCell(r *rand.Rand, c *Cell) {
	switch r.IntN(9) {
	case 0:
		c.Content = string(rune(r.IntN(0x20)))
	case 1:
		c.Content = "\x7f"
	case 2:
		c.Content = "\u0085"
	case 3:
		c.Content = "\xe4\xb8"
	case 4:
		c.Style |= StyleWideCont | styleReserved&Style(r.IntN(2)<<7)
		if c.Content == "" {
			c.Style |= StyleBold
		}
	case 5:
		c.Content, c.Style = "", 0
	case 6:
		c.Fg = Color(1 + r.IntN(0xFFFFFF))
	case 7:
		c.Bg = IndexedColor(uint8(r.IntN(256))) | Color(1+r.IntN(0xFFFF))<<8
	case 8:
		c.Fg = Color(3+r.IntN(253))<<colorKindShift | Color(r.IntN(1<<24))
	}
}

// mixedScreen returns case i of the encoder tests: even cases are
// randScreen's (styles, colors, wide glyphs, clusters), odd ones wide
// screens of text with an optional alternate screen and scrollback lines
// of any length, which exercise the run-length fast paths.
func mixedScreen(r *rand.Rand, i int) *Screen {
	if i%2 == 0 {
		return randScreen(r, 1+r.IntN(40), 1+r.IntN(8), r.IntN(6))
	}
	cols, rows := 1+r.IntN(130), 1+r.IntN(10)
	s := &Screen{Cols: cols, Rows: rows, Primary: textCells(r, cols*rows)}
	if r.IntN(3) == 0 {
		s.Alt = textCells(r, cols*rows)
	}
	for range r.IntN(10) {
		s.Scrollback = append(s.Scrollback, textCells(r, r.IntN(2*cols)))
	}
	return s
}

// TestAppendScreenMatchesReference checks AppendScreen against
// refAppendScreen on random screens, into buffers of every kind of spare
// capacity, and on screens with one broken cell, which must leave dst
// as it was and return Validate's error.
func TestAppendScreenMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for i := range 600 {
		s := mixedScreen(r, i)
		want, err := refAppendScreen([]byte("keep"), s)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		for _, spare := range []int{0, 1, 10, 11, 12, 100, r.IntN(len(want)), len(want) - 4, len(want)} {
			dst := append(make([]byte, 0, 4+spare), "keep"...)
			got, err := AppendScreen(dst, s)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("case %d, spare %d: AppendScreen = % x, %v\nwant % x", i, spare, got, err, want)
			}
		}

		cells := [][]Cell{s.Primary, s.Alt}
		cells = append(cells, s.Scrollback...)
		grid := cells[r.IntN(len(cells))]
		if len(grid) == 0 {
			continue
		}
		breakCell(r, &grid[r.IntN(len(grid))])
		verr := s.Validate()
		if verr == nil {
			t.Fatalf("case %d: broken cell passes Validate", i)
		}
		for _, spare := range []int{0, r.IntN(len(want)), len(want)} {
			dst := append(make([]byte, 0, 4+spare), "keep"...)
			got, err := AppendScreen(dst, s)
			if string(got) != "keep" {
				t.Fatalf("case %d: AppendScreen changed dst on error: %q", i, got)
			}
			if err == nil || err.Error() != verr.Error() {
				t.Fatalf("case %d: AppendScreen error %v, want %v", i, err, verr)
			}
			wantFraming(t, err, "AppendScreen")
			got, err = AppendScreenSnapshot(dst, 3, s)
			if string(got) != "keep" || err == nil || err.Error() != verr.Error() {
				t.Fatalf("case %d: AppendScreenSnapshot = %q, %v; want \"keep\", %v", i, got, err, verr)
			}
		}
	}
}
