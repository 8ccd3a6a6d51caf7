package sanitize

// risRewrite replaces RIS (ESC c), which would also reset the viewer's
// modes, colors and keyboard state, with a soft reset, home and clear.
const risRewrite = "\x1b[!p\x1b[H\x1b[2J"

// escDispatch applies the policy to a complete escape sequence ESC [inter]
// final; inter is 0 when there is no intermediate byte.
func (s *Sanitizer) escDispatch(dst []byte, inter, final byte) []byte {
	switch inter {
	case 0:
		switch final {
		case '7', '8', 'D', 'E', 'H', 'M', '>': // DECSC, DECRC, IND, NEL, HTS, RI, DECKPNM
			return s.emitEsc(dst, 0, final)
		case '=': // DECKPAM changes what the keypad sends
			if s.opt.Profile == Driver {
				return s.emitEsc(dst, 0, final)
			}
		case 'c':
			s.lastBEL = false
			return append(dst, risRewrite...)
		}
	case '(', ')': // designate G0/G1: ASCII or DEC special graphics only
		if final == 'B' || final == '0' {
			return s.emitEsc(dst, inter, final)
		}
	case '#': // double-height and double-width lines; not DECALN (8)
		if final >= '3' && final <= '6' {
			return s.emitEsc(dst, inter, final)
		}
	}
	return dst
}
