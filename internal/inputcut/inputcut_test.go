package inputcut

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCut(t *testing.T) {
	cases := []struct {
		name string
		p    string
		max  int
		want int
	}{
		{"fits", "abc", 3, 3},
		{"empty", "", 4, 0},
		{"plain text", "abcdefgh", 5, 5},
		{"before the paste end marker", "abcdefgh\x1b[201~", 11, 8},
		{"before a lone ESC at the end", "abcdefgh\x1b", 8, 8},
		{"ESC as the chunk's last byte", "abcdefg\x1bOA", 8, 7},
		{"not inside a rune", "abcdé", 5, 4},
		{"not inside a 4-byte rune", "ab\U0001F600", 5, 2},
		{"a rune that ends at the cut", "abé!", 4, 4},
		{"ESC at the start: no cut before it", "\x1b[200~abc", 4, 4},
		{"not UTF-8: cut at max", "ab\x80\x80\x80\x80\x80", 5, 5},
		{"ESC out of the window", "\x1b" + strings.Repeat("x", 40), 40, 40},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Cut([]byte(c.p), c.max); got != c.want {
				t.Errorf("Cut(%q, %d) = %d, want %d", c.p, c.max, got, c.want)
			}
		})
	}
}

// chunks cuts p the way the viewers do.
func chunks(p []byte, max int) [][]byte {
	var out [][]byte
	for len(p) > 0 {
		n := Cut(p, max)
		out = append(out, p[:n])
		p = p[n:]
	}
	return out
}

// Whatever the input and bound, the chunks are at most max bytes, never
// empty, and give p back whole; in text with bracketed paste markers and
// multi-byte runes no chunk ends inside a marker or a rune. Seeded, so a
// failure replays.
func TestCutProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "word ", "é", "€", "\U0001F600", "\r\n", "\x1b[200~", "\x1b[201~", "\x1b[<0;120;40M"}
	for i := range 500 {
		var b strings.Builder
		for b.Len() < 300 {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		p := []byte(b.String())
		max := escWindow + 8 + rng.IntN(100) // room for a cut before any sequence
		cs := chunks(p, max)
		if !bytes.Equal(bytes.Join(cs, nil), p) {
			t.Fatalf("case %d: the chunks do not give the input back", i)
		}
		for j, c := range cs {
			if len(c) == 0 || len(c) > max {
				t.Fatalf("case %d: chunk %d has %d bytes, max %d", i, j, len(c), max)
			}
			if !utf8.Valid(c) {
				t.Fatalf("case %d: chunk %d (%q) cuts a rune", i, j, c)
			}
			if k := bytes.LastIndexByte(c, 0x1b); k >= 0 && j < len(cs)-1 {
				if rest := c[k:]; !complete(rest) {
					t.Fatalf("case %d: chunk %d ends inside %q", i, j, rest)
				}
			}
		}
	}
}

// complete reports whether an escape sequence from pieces is whole at the
// start of s.
func complete(s []byte) bool {
	for _, seq := range []string{"\x1b[200~", "\x1b[201~", "\x1b[<0;120;40M"} {
		if bytes.HasPrefix(s, []byte(seq)) {
			return true
		}
	}
	return false
}
