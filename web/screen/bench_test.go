package screen_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term"
	termengine "github.com/ptyhost/ptyhost/internal/term/engine"
	"github.com/ptyhost/ptyhost/web/screen"
)

// loaded returns a Screen showing an 80x24 screen full of colored text
// with 1,000 lines of scrollback, as a busy session's would be.
func loaded(b *testing.B) *screen.Screen {
	b.Helper()
	h := termengine.New(term.Options{Cols: 80, Rows: 24, Scrollback: 1000})
	defer h.Close()
	for i := range 1100 {
		h.Write(fmt.Appendf(nil, "\x1b[3%dmline %d\x1b[m %s\r\n", i%8, i, strings.Repeat("text ", 14)))
	}
	var scr attachwire.Screen
	h.Screen(&scr)
	s := screen.New(1000)
	s.Load(nil, &scr)
	return s
}

// BenchmarkType is a typed character echoed: one cell changes, and
// the paint is that cell and the cursor.
func BenchmarkType(b *testing.B) {
	s := loaded(b)
	buf := make([]byte, 0, 4096)
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		buf = s.Write(buf[:0], []byte{'a' + byte(n%26)})
		n++
		if n%60 == 0 {
			buf = s.Write(buf[:0], []byte("\r\x1b[K"))
		}
	}
	b.ReportMetric(float64(len(s.Write(nil, []byte("x")))), "paint-bytes/op")
}

// BenchmarkScroll is a line printed at the bottom: the screen scrolls a
// line into the scrollback.
func BenchmarkScroll(b *testing.B) {
	s := loaded(b)
	line := []byte("\x1b[32mok\x1b[m " + strings.Repeat("more text ", 7) + "\r\n")
	buf := make([]byte, 0, 64<<10)
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		buf = s.Write(buf[:0], line)
	}
}

// BenchmarkLoad is a late joiner's first paint: 1,000 scrollback lines
// and the screen.
func BenchmarkLoad(b *testing.B) {
	h := termengine.New(term.Options{Cols: 80, Rows: 24, Scrollback: 1000})
	defer h.Close()
	for i := range 1100 {
		h.Write(fmt.Appendf(nil, "\x1b[3%dmline %d\x1b[m %s\r\n", i%8, i, strings.Repeat("text ", 14)))
	}
	var scr attachwire.Screen
	h.Screen(&scr)
	s := screen.New(1000)
	b.ReportAllocs()
	for b.Loop() {
		b.SetBytes(int64(len(s.Load(nil, &scr))))
	}
}
