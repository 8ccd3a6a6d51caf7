package sanitize

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"

	"github.com/ptyhost/ptyhost/internal/utf8lead"
)

// utf8State decodes UTF-8 one byte at a time, so a rune split across Append
// calls is still recognized. It accepts exactly what unicode/utf8 accepts
// (no overlongs, surrogates or values above U+10FFFF) and rejects a bad
// sequence at the first byte that cannot continue it, which is then
// processed afresh.
type utf8State struct {
	buf    [utf8.UTFMax]byte
	n      uint8 // bytes in buf
	need   uint8 // length of the rune being decoded; 0 when idle
	lo, hi byte  // range the next byte must fall in
}

// start begins a rune at lead byte b and reports whether b is a valid lead.
func (u *utf8State) start(b byte) bool {
	n, lo, hi := utf8lead.Lead(b)
	if n == 0 {
		return false
	}
	u.need, u.lo, u.hi = uint8(n), lo, hi
	u.buf[0], u.n = b, 1
	return true
}

// accepts reports whether b continues the rune being decoded.
func (u *utf8State) accepts(b byte) bool { return b >= u.lo && b <= u.hi }

// add appends continuation byte b and, once the rune is complete, returns
// its encoding and true. The returned slice aliases u and is valid until the
// next call.
func (u *utf8State) add(b byte) ([]byte, bool) {
	u.buf[u.n] = b
	u.n++
	u.lo, u.hi = 0x80, 0xbf
	if u.n < u.need {
		return nil, false
	}
	n := u.n
	u.n, u.need = 0, 0
	return u.buf[:n], true
}

const (
	lanes01 = 0x0101010101010101
	lanes60 = 0x6060606060606060
	lanes7f = 0x7f7f7f7f7f7f7f7f
	lanes80 = 0x8080808080808080
)

// unsafeLanes returns a mask with bit 7 of each byte lane set where the
// byte of x is not printable ASCII (0x20–0x7E).
func unsafeLanes(x uint64) uint64 {
	low := x & lanes7f
	ge20 := low + lanes60 // bit 7 set iff low ≥ 0x20
	is7f := low + lanes01 // bit 7 set iff low == 0x7f
	return (^ge20 | is7f | x) & lanes80
}

// textRun returns the length of the longest prefix of p that is text the
// Viewer profile passes unchanged: printable ASCII, BS, HT, LF, CR, and
// complete valid UTF-8 runes of U+00A0 and above. Printable ASCII is
// checked a word at a time, and 32 bytes at a time inside long runs.
func textRun(p []byte) int {
	i := 0
	for i < len(p) {
		switch b := p[i]; {
		case b >= 0x20 && b < del:
			i++
			if i+8 > len(p) {
				continue
			}
			if m := unsafeLanes(binary.LittleEndian.Uint64(p[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				continue
			}
			i += 8
			for i+32 <= len(p) {
				q := p[i : i+32]
				if unsafeLanes(binary.LittleEndian.Uint64(q))|
					unsafeLanes(binary.LittleEndian.Uint64(q[8:]))|
					unsafeLanes(binary.LittleEndian.Uint64(q[16:]))|
					unsafeLanes(binary.LittleEndian.Uint64(q[24:])) != 0 {
					break
				}
				i += 32
			}
			for i+8 <= len(p) {
				if m := unsafeLanes(binary.LittleEndian.Uint64(p[i:])); m != 0 {
					i += bits.TrailingZeros64(m) >> 3
					break
				}
				i += 8
			}
		case b == '\n', b == '\r', b == '\t', b == '\b':
			i++
		case b >= 0xc2 && b < 0xe0: // two bytes, U+0080–U+07FF
			if i+1 >= len(p) || p[i+1]&0xc0 != 0x80 || b == 0xc2 && p[i+1] < 0xa0 {
				return i // invalid, incomplete, or a C1 control
			}
			i += 2
		case b >= 0xe0 && b < 0xf0: // three bytes
			_, lo, hi := utf8lead.Lead(b)
			if i+2 >= len(p) || p[i+1] < lo || p[i+1] > hi || p[i+2]&0xc0 != 0x80 {
				return i
			}
			i += 3
		case b >= 0xf0 && b <= 0xf4:
			if _, n := utf8.DecodeRune(p[i:]); n == 1 {
				return i
			}
			i += 4
		default:
			return i
		}
	}
	return i
}
