package screen_test

import (
	"testing"
)

// FuzzPaint feeds arbitrary output, in two frames, to a host engine and
// to a Screen painting a terminal of its own: the terminal must show the
// host's screen, cell for cell, on the live path.
func FuzzPaint(f *testing.F) {
	f.Add([]byte("\u2705\u2705ab\x1b[3DZ|"), 3)
	f.Add([]byte("\U0001F600\U0001F600\U0001F600\rAB|"), 5)
	f.Add([]byte("a\r\nb\r\nc\r\nd\r\ne\r\nf\x1b[?1049hx\x1b[2;3Hy\x1b[?1049l\x1b[3J"), 20)
	f.Add([]byte("\x1b[41m\x1b[2J\x1b[5;1H\x1b[1;4;38;2;1;2;3mq\x1b[?25l\x1b[6 q\x1b[8;40t"), 9)
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		if len(data) > 4096 {
			return
		}
		cut = min(max(cut, 0), len(data))
		for _, c := range [][][]byte{{data[:cut], data[cut:]}} {
			if joinsZWJ(data) {
				return // see TestSplitCases
			}
			host, page := run(t, 12, 5, 0, c)
			if d := diff(&host, &page); len(d) > 0 {
				t.Fatalf("%q cut at %d:\n%v", data, cut, d)
			}
		}
	})
}

// joinsZWJ reports whether data holds a zero-width joiner.
func joinsZWJ(data []byte) bool {
	for i := 0; i+2 < len(data); i++ {
		if data[i] == 0xE2 && data[i+1] == 0x80 && data[i+2] == 0x8D {
			return true
		}
	}
	return false
}
