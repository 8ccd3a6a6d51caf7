package engine

import (
	"unicode/utf8"

	"github.com/ptyhost/ptyhost/internal/utf8lead"
)

// utf8Decoder decodes UTF-8 one byte at a time, so that a character split
// across Write calls is still one character. It accepts exactly what
// unicode/utf8 accepts (no overlongs, surrogates or values above U+10FFFF;
// the lead-byte rule is utf8lead's, shared with the sanitizer) and
// rejects a bad sequence at the first byte that cannot continue it.
type utf8Decoder struct {
	need   uint8 // continuation bytes still to come; 0 when idle
	lo, hi byte  // the range the next one must fall in
	acc    rune  // the payload bits so far
}

// start begins a character at lead byte c and reports whether c can lead
// one; if not, the decoder stays idle.
func (u *utf8Decoder) start(c byte) bool {
	n, lo, hi := utf8lead.Lead(c)
	if n == 0 {
		return false
	}
	// The lead's payload bits: 5, 4 or 3 for 2, 3 or 4 bytes.
	u.need, u.lo, u.hi = uint8(n-1), lo, hi
	u.acc = rune(c & (0x7F >> n))
	return true
}

// add feeds the byte after a lead or a continuation. ok is false when c
// cannot continue the character: the decoder is idle again and c is still
// to be handled. done is true when c completed character r.
func (u *utf8Decoder) add(c byte) (r rune, done, ok bool) {
	if c < u.lo || c > u.hi {
		u.need = 0
		return 0, false, false
	}
	u.acc = u.acc<<6 | rune(c&0x3F)
	u.lo, u.hi = 0x80, 0xBF
	if u.need--; u.need > 0 {
		return 0, false, true
	}
	return u.acc, true, true
}

// char handles a decoded character of U+00A0 or above: printed in ground,
// data in an OSC or DCS string, ignored in SOS/PM/APC; anywhere else it
// makes the sequence invalid.
func (e *Engine) char(r rune) {
	switch e.p.state {
	case stGround:
		e.printRune(r)
	case stOSC, stDCSPass:
		var buf [utf8.UTFMax]byte
		e.strPut(utf8.AppendRune(buf[:0], r)...)
	case stSOS, stDCSIgnore:
	default:
		e.poison()
	}
}

// invalid handles bytes that are not UTF-8: dropped in text, they drop
// the OSC or DCS string they are in and make any other sequence invalid.
func (e *Engine) invalid() {
	p := &e.p
	switch p.state {
	case stGround, stSOS, stDCSIgnore:
	case stOSC, stDCSPass:
		p.strOver = true
	default:
		e.poison()
	}
}

// decodeText decodes the character b starts with, whose lead byte is at
// least 0xC2: one of two or three bytes (accents, symbols, CJK), whole
// and valid, without utf8.DecodeRune's call; anything else goes to
// utf8.DecodeRune, so the result is always DecodeRune's.
func decodeText(b []byte) (r rune, size int) {
	if len(b) >= 3 {
		c0, c1, c2 := b[0], b[1], b[2]
		switch {
		case c0 < 0xE0:
			if c1&0xC0 == 0x80 {
				return rune(c0&0x1F)<<6 | rune(c1&0x3F), 2
			}
		case c0 < 0xF0:
			_, lo, hi := utf8lead.Lead(c0)
			if c1 >= lo && c1 <= hi && c2&0xC0 == 0x80 {
				return rune(c0&0x0F)<<12 | rune(c1&0x3F)<<6 | rune(c2&0x3F), 3
			}
		}
	}
	return utf8.DecodeRune(b)
}
