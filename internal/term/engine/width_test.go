package engine

import "testing"

func TestRuneWidth(t *testing.T) {
	tests := []struct {
		r    rune
		want int
	}{
		{'a', 1}, {'é', 1}, {0x0301, 0}, {0x200D, 0}, {0xFE0F, 0}, {0x200B, 0},
		{'─', 1}, {'│', 1}, {'•', 1}, {'→', 1}, {'✓', 1}, {'❤', 1},
		{'世', 2}, {'한', 2}, {'テ', 2}, {'ぁ', 2}, {0x3099, 0}, {0x3000, 2},
		{'😀', 2}, {'🚀', 2}, {'👍', 2}, {0x1F3FD, 2}, {0x1F321, 1},
		{0xFF01, 2}, {0xFF61, 1}, {0x1160, 0}, {0xE0041, 0}, {0x20000, 2},
	}
	for _, tt := range tests {
		if got := runeWidth(tt.r); got != tt.want {
			t.Errorf("runeWidth(%U) = %d, want %d", tt.r, got, tt.want)
		}
	}
}

// TestRuneWidthFastRanges checks the ranges runeWidth answers before
// consulting the Unicode tables against those tables.
func TestRuneWidthFastRanges(t *testing.T) {
	for r := rune(0x300); r < 0x370; r++ {
		if !isZeroWidth(r) {
			t.Errorf("%U is not zero width", r)
		}
	}
	for _, rg := range [][2]rune{{0x370, 0x483}, {0x2010, 0x2028}} {
		for r := rg[0]; r < rg[1]; r++ {
			if isZeroWidth(r) || wideWidth(r) != 1 {
				t.Errorf("%U is not one cell wide", r)
			}
		}
	}
}

// TestWidthCache checks Engine.width against runeWidth for every code
// point above U+009F, each asked twice (a miss, then a hit) between
// runes that share its cache entry.
func TestWidthCache(t *testing.T) {
	e, _ := newTest(t, 10, 2, 0)
	for r := rune(0xA0); r <= 0x10FFFF; r++ {
		if r >= 0xD800 && r < 0xE000 {
			continue // surrogates: never decoded
		}
		want := runeWidth(r)
		if got := e.width(r); got != want {
			t.Fatalf("width(%U) = %d, want %d (first)", r, got, want)
		}
		if got := e.width(r); got != want {
			t.Fatalf("width(%U) = %d, want %d (cached)", r, got, want)
		}
		if other := r ^ 0x100; other >= 0xA0 && e.width(other) != runeWidth(other) {
			t.Fatalf("width(%U) wrong after %U", other, r)
		}
	}
}
