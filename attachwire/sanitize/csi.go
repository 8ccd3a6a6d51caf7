package sanitize

// csiDispatch applies the policy to a complete control sequence. Whether a
// sequence can pass depends on its final byte, private marker, intermediate
// byte and number of parameters. Parameter values, which were parsed with
// saturation so that no overflow can wrap them, are then only filtered
// against lists (modes, cursor shapes) and clamped, and the emitted values
// are always small canonical decimals.
func (s *Sanitizer) csiDispatch(dst []byte, final byte) []byte {
	switch {
	case final == 'm' && s.prefix == 0 && s.ninter == 0: // SGR, with ':' forms
		return s.emitCSI(dst, maxCount, final)
	case s.prefix == 0 && s.ninter == 0:
		return s.csiPlain(dst, final)
	case s.prefix == '?' && s.ninter == 0 && (final == 'h' || final == 'l'):
		return s.csiModes(dst, final, s.privateModeAllowed)
	case s.prefix != 0 || s.colon || s.ninter != 1:
		return dst
	case s.inter == ' ' && final == 'q': // DECSCUSR, shapes 0–6
		if s.nfield <= 1 && (s.nfield == 0 || s.fields[0] <= 6) {
			return append(s.emitCSI(dst, 6, ' '), 'q')
		}
	case s.inter == '!' && final == 'p' && s.nfield == 0: // DECSTR
		return append(s.emitCSI(dst, 0, '!'), 'p')
	}
	return dst
}

// csiPlain handles sequences without private marker or intermediate,
// other than SGR.
func (s *Sanitizer) csiPlain(dst []byte, final byte) []byte {
	if s.colon { // only SGR (dispatched above) has sub-parameters
		return dst
	}
	arity, limit := 1, int32(maxCount)
	switch final {
	case '@', 'A', 'B', 'C', 'D', 'E', 'F', 'G', 'I', 'J', 'K', 'L', 'M',
		'P', 'S', 'T', 'X', 'Z', '`', 'a', 'd', 'e', 'g':
	case 'b': // REP
		limit = s.maxREP
	case 'H', 'f', 'r': // CUP, HVP, DECSTBM
		arity = 2
	case 's', 'u': // SCOSC, SCORC; with parameters s is DECSLRM
		arity = 0
	case 'h', 'l': // SM, RM: IRM only
		return s.csiModes(dst, final, func(m int32) bool { return m == 4 })
	default:
		return dst
	}
	if s.nfield > arity {
		return dst
	}
	return s.emitCSI(dst, limit, final)
}

// csiModes emits a set/reset mode sequence holding only the allowed modes
// of its list, or nothing if none is allowed.
func (s *Sanitizer) csiModes(dst []byte, final byte, allowed func(int32) bool) []byte {
	if s.colon {
		return dst
	}
	start := len(dst)
	dst = append(dst, esc, '[')
	if s.prefix != 0 {
		dst = append(dst, s.prefix)
	}
	n := 0
	for _, m := range s.fields[:s.nfield] {
		if m < 0 || !allowed(m) {
			continue
		}
		if n > 0 {
			dst = append(dst, ';')
		}
		dst = appendUint(dst, m)
		n++
	}
	if n == 0 {
		return dst[:start]
	}
	s.lastBEL = false
	return append(dst, final)
}

// privateModeAllowed reports whether DEC private mode m may be set or reset
// under the profile.
func (s *Sanitizer) privateModeAllowed(m int32) bool {
	switch m {
	case 1, 6, 7, 12, 25, 47, 1047, 1048, 1049, 2026, 2027: // display modes
		return true
	case 1000, 1002, 1003, 1004, 1005, 1006, 1015, 2004: // input-generating
		return s.opt.Profile == Driver
	}
	return false
}
