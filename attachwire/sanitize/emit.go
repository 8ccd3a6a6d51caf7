package sanitize

// Canonical 7-bit emission. Every sequence that passes is what these
// functions build from its parsed parts. The copy-through path (pass.go)
// copies input only where it has checked that the input is byte for byte
// what they would build.

// appendUint appends v in decimal without leading zeros.
func appendUint(dst []byte, v int32) []byte {
	switch {
	case v < 10:
		return append(dst, byte('0'+v))
	case v < 100:
		return append(dst, byte('0'+v/10), byte('0'+v%10))
	}
	var b [10]byte
	i := len(b)
	for v > 0 {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return append(dst, b[i:]...)
}

// appendFields appends the parsed parameters with their separators, each
// value clamped to limit; empty (default) parameters stay empty.
func (s *Sanitizer) appendFields(dst []byte, limit int32) []byte {
	for i := range s.nfield {
		if i > 0 {
			dst = append(dst, s.seps[i])
		}
		if v := s.fields[i]; v >= 0 {
			dst = appendUint(dst, min(v, limit))
		}
	}
	return dst
}

// emitCSI appends ESC [ fields final, with every parameter clamped to limit.
func (s *Sanitizer) emitCSI(dst []byte, limit int32, final byte) []byte {
	s.lastBEL = false
	dst = append(dst, esc, '[')
	dst = s.appendFields(dst, limit)
	return append(dst, final)
}

// emitEsc appends ESC, the intermediate byte if non-zero, and final.
func (s *Sanitizer) emitEsc(dst []byte, inter, final byte) []byte {
	s.lastBEL = false
	if inter != 0 {
		return append(dst, esc, inter, final)
	}
	return append(dst, esc, final)
}

// emitOSC appends ESC ] num ; text ESC \ (always ST, never BEL).
func (s *Sanitizer) emitOSC(dst []byte, num int32, text ...[]byte) []byte {
	s.lastBEL = false
	dst = append(dst, esc, ']')
	dst = appendUint(dst, num)
	for _, t := range text {
		dst = append(dst, ';')
		dst = append(dst, t...)
	}
	return append(dst, esc, '\\')
}
