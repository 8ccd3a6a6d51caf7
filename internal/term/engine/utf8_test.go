package engine

import (
	"testing"
	"unicode/utf8"
)

// TestDecodeText checks decodeText against utf8.DecodeRune for every lead
// byte it can get, every second byte and a spread of third and fourth
// bytes, and at every length up to four.
func TestDecodeText(t *testing.T) {
	thirds := []byte{0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xE0, 0xFF}
	for c0 := 0xC2; c0 < 0x100; c0++ {
		for c1 := range 0x100 {
			for _, c2 := range thirds {
				b := []byte{byte(c0), byte(c1), c2, 0x80}
				for n := 1; n <= len(b); n++ {
					r, size := decodeText(b[:n])
					wr, wsize := utf8.DecodeRune(b[:n])
					if r != wr || size != wsize {
						t.Fatalf("decodeText(% x) = %U, %d; utf8.DecodeRune gives %U, %d", b[:n], r, size, wr, wsize)
					}
				}
			}
		}
	}
}
