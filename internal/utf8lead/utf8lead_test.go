package utf8lead

import (
	"testing"
	"unicode/utf8"
)

// TestLeadMatchesUnicodeUTF8: for every lead byte and second byte, Lead
// accepts the pair exactly when some valid rune starts with it, and gives
// the rune's length.
func TestLeadMatchesUnicodeUTF8(t *testing.T) {
	for b := range 256 {
		n, lo, hi := Lead(byte(b))
		for c := range 256 {
			// Complete the pair with the smallest continuation bytes;
			// whether any valid rune starts with b, c does not depend on
			// them.
			buf := []byte{byte(b), byte(c), 0x80, 0x80}
			want, size := 0, 0
			for l := 2; l <= 4; l++ {
				if r, s := utf8.DecodeRune(buf[:l]); r != utf8.RuneError && s == l {
					want, size = l, s
					break
				}
			}
			got := 0
			if n != 0 && byte(c) >= lo && byte(c) <= hi {
				got = n
			}
			if got != want {
				t.Fatalf("Lead(%#x) with second byte %#x: length %d, unicode/utf8 says %d (size %d)", b, c, got, want, size)
			}
		}
	}
}
