package sanitize

import (
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

// runeLen returns the length of the complete, valid UTF-8 rune of U+00A0
// or above at the start of p, whose first byte is 0x80 or above, or 0 if
// there is none: invalid, incomplete, or a C1 control.
func runeLen(p []byte) int {
	switch b := p[0]; {
	case b >= 0xc2 && b < 0xe0: // two bytes, U+0080–U+07FF
		if len(p) < 2 || p[1]&0xc0 != 0x80 || b == 0xc2 && p[1] < 0xa0 {
			return 0
		}
		return 2
	case b >= 0xe0 && b < 0xf0: // three bytes
		_, lo, hi := utf8lead.Lead(b)
		if len(p) < 3 || p[1] < lo || p[1] > hi || p[2]&0xc0 != 0x80 {
			return 0
		}
		return 3
	case b >= 0xf0 && b <= 0xf4:
		if _, n := utf8.DecodeRune(p); n == 1 {
			return 0
		}
		return 4
	}
	return 0
}
