package sanitize

import (
	"encoding/binary"
	"math/bits"
)

// The copy-through fast path. Most of what real programs write is text and
// control sequences already in the canonical form the sanitizer would
// rebuild them in (SGR colors, cursor moves, erases, the usual modes), so
// the output of a long stretch is the stretch itself. passRun finds such
// a stretch by scanning alone, and Append copies it in one go, instead of
// re-serializing each sequence from its parsed parts. Anything the scan
// cannot prove unchanged ends the stretch and takes the parsing paths.

const (
	lanes01 = 0x0101010101010101
	lanes0a = 0x0a0a0a0a0a0a0a0a
	lanes0d = 0x0d0d0d0d0d0d0d0d
	lanes60 = 0x6060606060606060
	lanes7f = 0x7f7f7f7f7f7f7f7f
	lanes80 = 0x8080808080808080
)

// zeroLanes returns a mask with bit 7 of each byte lane set where the byte
// of x is zero (exactly: no carry crosses lanes).
func zeroLanes(x uint64) uint64 { return ^((x&lanes7f + lanes7f) | x | lanes7f) }

// stopLanes returns a mask with bit 7 of each byte lane set where the
// byte of x is neither printable ASCII (0x20–0x7E) nor CR or LF: where a
// scan for text has to look closer.
func stopLanes(x uint64) uint64 {
	low := x & lanes7f
	ge20 := low + lanes60 // bit 7 set iff low ≥ 0x20
	is7f := low + lanes01 // bit 7 set iff low == 0x7f
	unsafe := (^ge20 | is7f | x) & lanes80
	return unsafe &^ (zeroLanes(x^lanes0a) | zeroLanes(x^lanes0d))
}

// passRun returns the length of the longest prefix of p that the
// sanitizer, in the ground state with no rune pending, emits unchanged
// and after which it is in the ground state again: text (printable
// ASCII, BS, HT, LF, CR, and complete valid UTF-8 runes of U+00A0 and
// above), escape sequences the policy passes as they are, and complete
// control sequences whose parameters are already canonical
// (csiCanonical). Nothing in the prefix is a BEL, so after a non-empty
// one the last byte emitted is not a BEL. Text is checked a word at a
// time.
func (s *Sanitizer) passRun(p []byte) int {
	i := 0
	for i < len(p) {
		for i+8 <= len(p) {
			if m := stopLanes(binary.LittleEndian.Uint64(p[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i == len(p) {
			break
		}
		var n int
		switch b := p[i]; {
		case b == esc:
			if i+1 < len(p) && p[i+1] == '[' {
				n = s.csiCanonical(p[i:])
			} else {
				n = s.escCanonical(p[i:])
			}
		case b >= 0x20 && b < del, b == '\n', b == '\r', b == '\t', b == '\b':
			n = 1
		case b >= 0x80:
			n = runeLen(p[i:])
		}
		if n == 0 {
			return i
		}
		i += n
	}
	return i
}

// escCanonical returns the length of the escape or control sequence at
// the start of p (which begins with ESC) if the sanitizer emits it as it
// is, else 0.
func (s *Sanitizer) escCanonical(p []byte) int {
	if len(p) < 2 {
		return 0
	}
	switch p[1] {
	case '[':
		return s.csiCanonical(p)
	case '7', '8', 'D', 'E', 'H', 'M', '>': // as escDispatch passes them
		return 2
	case '=':
		if s.opt.Profile == Driver {
			return 2
		}
	case '(', ')':
		if len(p) > 2 && (p[2] == 'B' || p[2] == '0') {
			return 3
		}
	case '#':
		if len(p) > 2 && p[2] >= '3' && p[2] <= '6' {
			return 3
		}
	}
	return 0
}

// csiCanonical returns the length of the control sequence at the start of
// p (which begins with ESC [) if it is complete within the length cap and
// csiDispatch would emit it byte for byte as it is, else 0. That holds for
// SGR and the plain sequences other than REP and SM/RM whose parameters are
// within the parameter cap, have no leading zeros and are at most
// maxCount (sub-parameters for SGR only), and for DEC private mode set and
// reset (CSI ? … h or l) whose parameters are all present and allowed.
// Everything else, intermediates and other private markers included,
// returns 0 and is left to csiRun.
func (s *Sanitizer) csiCanonical(p []byte) int {
	end := min(len(p), s.opt.MaxCSIBytes)
	i := 2
	private := i < end && p[i] == '?'
	if private {
		i++
	}
	// Private modes are not clamped but checked against their list, whose
	// numbers have up to four digits.
	limit := maxCount
	if private {
		limit = 9999
	}
	n := 0  // parameters so far, 0 while no parameter byte is seen
	v := -1 // the current parameter's value, -1 while empty
	colon := false
	for ; i < end; i++ {
		b := p[i]
		switch {
		case b-'0' <= 9:
			if v == 0 {
				return 0 // a leading zero
			}
			if v = max(v, 0)*10 + int(b-'0'); v > limit {
				return 0 // csiDispatch would lower it
			}
			n = max(n, 1)
		case b == ';' || b == ':':
			n = max(n, 1)
			if n == len(s.fields) || !s.canonicalParam(private, v) {
				return 0
			}
			n, v = n+1, -1
			colon = colon || b == ':'
		case b >= 0x40 && b < del:
			if n > 0 && !s.canonicalParam(private, v) {
				return 0
			}
			if s.passesCanonical(private, colon, n, b) {
				return i + 1
			}
			return 0
		default:
			return 0
		}
	}
	return 0
}

// canonicalParam reports whether a parameter of value v (-1: empty)
// that already passed csiCanonical's digit checks is emitted as it is:
// any is, except that a private mode must be present and allowed.
func (s *Sanitizer) canonicalParam(private bool, v int) bool {
	return !private || v >= 0 && s.privateModeAllowed(int32(v))
}

// passesCanonical reports whether csiDispatch emits a sequence with n
// canonical parameters and this final byte whole: the sequences and
// arities csiDispatch and csiPlain pass, less REP (clamped to the screen)
// and SM/RM (filtered).
func (s *Sanitizer) passesCanonical(private, colon bool, n int, final byte) bool {
	switch {
	case private:
		return n > 0 && !colon && (final == 'h' || final == 'l')
	case final == 'm':
		return true
	case colon:
		return false
	}
	switch final {
	case '@', 'A', 'B', 'C', 'D', 'E', 'F', 'G', 'I', 'J', 'K', 'L', 'M',
		'P', 'S', 'T', 'X', 'Z', '`', 'a', 'd', 'e', 'g':
		return n <= 1
	case 'H', 'f', 'r':
		return n <= 2
	case 's', 'u':
		return n == 0
	}
	return false
}
