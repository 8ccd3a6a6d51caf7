package streamgen

import (
	"bytes"
	"testing"
	"unicode/utf8"
)

func TestDeterministic(t *testing.T) {
	for _, f := range []struct {
		name string
		fn   func(uint64, int) []byte
	}{{"Mixed", Mixed}, {"ASCII", ASCII}} {
		t.Run(f.name, func(t *testing.T) {
			a, b := f.fn(7, 1<<16), f.fn(7, 1<<16)
			if !bytes.Equal(a, b) {
				t.Fatal("same seed gave different output")
			}
			if len(a) != 1<<16 {
				t.Fatalf("len = %d, want %d", len(a), 1<<16)
			}
			if bytes.Equal(a, f.fn(8, 1<<16)) {
				t.Fatal("different seeds gave the same output")
			}
		})
	}
}

func TestMixedContent(t *testing.T) {
	p := Mixed(1, 1<<20)
	// Trim to the last line so no rune is cut.
	p = p[:bytes.LastIndexByte(p, '\n')+1]
	if !utf8.Valid(p) {
		t.Fatal("output is not valid UTF-8")
	}
	for _, want := range []string{"\x1b[38;2;", "\r\x1b[K", "\x1b7", "日本語", "👩\u200d💻"} {
		if !bytes.Contains(p, []byte(want)) {
			t.Errorf("output lacks %q", want)
		}
	}
	// No queries: nothing that makes a terminal answer.
	for _, q := range []string{"\x1b[c", "\x1b[6n", "\x1b[5n", "\x1bP", "\x1b]"} {
		if bytes.Contains(p, []byte(q)) {
			t.Errorf("output contains %q", q)
		}
	}
}

func TestASCIIIsPlain(t *testing.T) {
	for _, c := range ASCII(3, 1<<16) {
		if (c < 0x20 || c > 0x7e) && c != '\r' && c != '\n' {
			t.Fatalf("non-printable byte %#x", c)
		}
	}
}

func BenchmarkMixed(b *testing.B) {
	b.SetBytes(1 << 20)
	for b.Loop() {
		Mixed(1, 1<<20)
	}
}
