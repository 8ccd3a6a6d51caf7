package attachwire

import (
	"math/rand/v2"
	"testing"
)

func BenchmarkFrameAppendOutput4K(b *testing.B) {
	f := NewOutputFrame(123456, 987654321, make([]byte, 4096))
	dst := make([]byte, 0, 8192)
	b.SetBytes(int64(len(f.Payload)))
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if dst, err = f.AppendBinary(dst[:0]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeFrameOutput4K(b *testing.B) {
	enc, _ := NewOutputFrame(123456, 987654321, make([]byte, 4096)).MarshalBinary()
	b.SetBytes(int64(len(enc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeFrame(enc); err != nil {
			b.Fatal(err)
		}
	}
}

// benchScreen is a 120x40 terminal with 200 lines of scrollback: shell-like
// text, colored spans, trailing blanks, a few wide glyphs.
func benchScreen() *Screen {
	r := rand.New(rand.NewPCG(42, 42))
	const cols, rows = 120, 40
	line := func(n int) []Cell {
		cells := make([]Cell, 0, n)
		fill := r.IntN(n + 1)
		pen := Cell{}
		for len(cells) < n {
			if len(cells) >= fill {
				cells = append(cells, BlankCell())
				continue
			}
			if r.IntN(12) == 0 {
				pen = Cell{Style: Style(r.IntN(2)), Fg: IndexedColor(uint8(r.IntN(16)))}
				if r.IntN(4) == 0 {
					pen.Fg = RGBColor(uint8(r.IntN(256)), 0x80, 0x40)
				}
			}
			if r.IntN(60) == 0 && len(cells)+1 < n {
				cells = append(cells, Cell{Content: "中", Style: pen.Style, Fg: pen.Fg}, Cell{Style: StyleWideCont, Fg: pen.Fg})
				continue
			}
			c := pen
			c.Content = string(rune('!' + r.IntN(94)))
			if r.IntN(6) == 0 {
				c.Content = " "
			}
			cells = append(cells, c)
		}
		return cells
	}
	s := &Screen{Cols: cols, Rows: rows, CursorRow: 39, CursorVisible: true}
	for range rows {
		s.Primary = append(s.Primary, line(cols)...)
	}
	for range 200 {
		s.Scrollback = append(s.Scrollback, line(cols))
	}
	return s
}

func BenchmarkScreenEncode(b *testing.B) {
	s := benchScreen()
	dst, err := AppendScreen(nil, s)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(dst)))
	b.ReportAllocs()
	for b.Loop() {
		if dst, err = AppendScreen(dst[:0], s); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(dst)), "encoded-bytes")
}

// BenchmarkScreenEncodeSharedASCII encodes benchScreen as the engine and
// DecodeScreen build it: one-byte contents are slices of one static
// string rather than a small allocation each.
func BenchmarkScreenEncodeSharedASCII(b *testing.B) {
	enc, err := AppendScreen(nil, benchScreen())
	if err != nil {
		b.Fatal(err)
	}
	s, err := DecodeScreen(enc)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(enc)))
	b.ReportAllocs()
	dst := enc
	for b.Loop() {
		if dst, err = AppendScreen(dst[:0], &s); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkScreenDecode(b *testing.B) {
	enc, err := AppendScreen(nil, benchScreen())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(enc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeScreen(enc); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(enc)), "encoded-bytes")
}
