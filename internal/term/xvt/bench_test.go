package xvt

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/vt"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term"
)

// logData is a realistic scrolling log: colored levels, timestamps, text.
func logData(size int) []byte {
	var b strings.Builder
	levels := []string{"\x1b[32mINFO\x1b[0m", "\x1b[33mWARN\x1b[0m", "\x1b[1;31mERROR\x1b[0m", "\x1b[36mDEBUG\x1b[0m"}
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "2026-12-01T21:%02d:%02d.%03dZ %s worker-%d: request %d handled in %dms path=/api/v1/items/%d\r\n",
			i/3600%60, i/60%60, i%1000, levels[i%len(levels)], i%8, i, i%97, i*7)
	}
	return []byte(b.String())
}

// BenchmarkWrite feeds a scrolling log to the backend (120×40, scrollback
// 200) in 4 KiB chunks, the way the host's read loop does.
func BenchmarkWrite(b *testing.B) {
	data := logData(1 << 20)
	t, err := New(term.Options{Cols: 120, Rows: 40, Scrollback: 200})
	if err != nil {
		b.Fatal(err)
	}
	defer t.Close()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		for p := data; len(p) > 0; {
			n := min(4096, len(p))
			t.Write(p[:n])
			p = p[n:]
		}
	}
}

// BenchmarkWriteRawEmulator is BenchmarkWrite on a bare x/vt Emulator:
// the difference is the cost of the filter and hooks.
func BenchmarkWriteRawEmulator(b *testing.B) {
	data := logData(1 << 20)
	e := vt.NewEmulator(120, 40)
	e.SetScrollbackSize(200)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		for p := data; len(p) > 0; {
			n := min(4096, len(p))
			_, _ = e.Write(p[:n])
			p = p[n:]
		}
	}
}

// BenchmarkFilter is the filter alone.
func BenchmarkFilter(b *testing.B) {
	data := logData(1 << 20)
	f := newFilter(120, 40)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		for p := data; len(p) > 0; {
			n, _ := f.scan(p)
			p = p[n:]
			f.out = f.out[:0]
		}
	}
}

// BenchmarkScreen extracts a full 120×40 screen with 200 scrollback lines.
func BenchmarkScreen(b *testing.B) {
	t, err := New(term.Options{Cols: 120, Rows: 40, Scrollback: 200})
	if err != nil {
		b.Fatal(err)
	}
	defer t.Close()
	t.Write(logData(64 << 10))
	var s attachwire.Screen
	for b.Loop() {
		t.Screen(&s)
	}
}
