package utf8lead

// Lead reports how a UTF-8 sequence that starts with byte b goes on: n is
// its length in bytes (2, 3 or 4), and lo..hi is the range its second byte
// must fall in; every later byte is a plain continuation, 0x80..0xBF. The
// narrowed ranges are what unicode/utf8 accepts: E0 and F0 exclude
// overlong forms, ED the surrogates, F4 values above U+10FFFF. n is 0 if b
// cannot start a multi-byte sequence (ASCII, a continuation byte, C0, C1,
// or F5..FF).
func Lead(b byte) (n int, lo, hi byte) {
	lo, hi = 0x80, 0xBF
	switch {
	case b < 0xC2 || b > 0xF4:
		return 0, 0, 0
	case b < 0xE0:
		return 2, lo, hi
	case b == 0xE0:
		lo = 0xA0
	case b == 0xED:
		hi = 0x9F
	case b == 0xF0:
		return 4, 0x90, hi
	case b == 0xF4:
		return 4, lo, 0x8F
	case b > 0xF0:
		return 4, lo, hi
	}
	return 3, lo, hi
}
