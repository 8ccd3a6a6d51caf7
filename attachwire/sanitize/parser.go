package sanitize

// The parser is the DEC VT500 state machine (the one xterm.js and tmux
// implement) with three changes the policy makes: UTF-8 is decoded in every
// state before C1 classification, ESC inside a string ends the string unless
// it begins the ST terminator, and a non-ASCII character inside an escape or
// control sequence invalidates it. Dispatch decisions live in esc.go, csi.go
// and osc.go; this file only tracks where the stream is.

// state is a parser state.
type state uint8

const (
	stGround    state = iota
	stEscape          // after ESC
	stEscInter        // after ESC and an intermediate byte (0x20–0x2F)
	stEscIgnore       // invalid escape sequence, consumed to its final byte
	stCSIEntry        // after CSI
	stCSIParam        // in the parameters
	stCSIInter        // after an intermediate byte
	stCSIIgnore       // invalid or over-cap sequence, consumed to its final byte
	stDCSEntry        // after DCS
	stDCSParam        // in the DCS parameters
	stDCSInter        // after a DCS intermediate byte
	stDCSPass         // in the DCS data string
	stDCSIgnore       // invalid DCS, consumed to its terminator
	stOSC             // in an OSC string
	stSOS             // in an SOS, PM or APC string
)

const (
	esc = 0x1b
	bel = 0x07
	can = 0x18
	sub = 0x1a
	del = 0x7f
	st  = 0x9c // C1 string terminator
)

// Append sanitizes p, the next bytes of the stream, appends the result to
// dst and returns the extended slice. Parser state carries over to the next
// call. It allocates only when dst must grow, when the title and hyperlink
// buffer first grows (up to its cap, then reused), and to build the strings
// handed to OnTitle and OnClipboard.
func (s *Sanitizer) Append(dst, p []byte) []byte {
	for len(p) > 0 {
		if s.u8.need == 0 {
			var n int
			switch {
			case s.state != stGround:
				if s.skipping() {
					n = stringRun(p, s.state == stOSC)
				}
			default:
				if n = s.passRun(p); n > 0 {
					dst = append(dst, p[:n]...)
					s.lastBEL = false
				} else if len(p) > 2 && p[0] == esc && p[1] == '[' {
					dst, n = s.csiRun(dst, p)
				}
			}
			if n > 0 {
				p = p[n:]
				continue
			}
		}
		dst = s.byte(dst, p[0])
		p = p[1:]
	}
	return dst
}

// skipping reports whether the parser is in a string it discards whole,
// where 7-bit data bytes have no effect.
func (s *Sanitizer) skipping() bool {
	switch s.state {
	case stDCSPass, stDCSIgnore, stSOS:
		return true
	case stOSC:
		return s.osc == oscDiscard
	}
	return false
}

// stringRun returns the length of the prefix of p that a discarded string
// consumes without effect: 7-bit bytes other than ESC, CAN, SUB and, in an
// OSC, BEL.
func stringRun(p []byte, osc bool) int {
	for i, b := range p {
		if b >= 0x80 || b == esc || b == can || b == sub || b == bel && osc {
			return i
		}
	}
	return len(p)
}

// csiRun is a fast path for the common case of a complete, plain control
// sequence at the start of p, which begins with ESC [: an optional private
// marker, parameter bytes, at most one intermediate byte and a final byte,
// within the caps. It parses and dispatches the sequence exactly as the
// byte-at-a-time path would, and returns the bytes consumed, or 0 (with
// only scratch fields changed) for anything else.
func (s *Sanitizer) csiRun(dst, p []byte) ([]byte, int) {
	end := min(len(p), s.opt.MaxCSIBytes)
	i := 2
	var prefix, inter byte
	if p[i] >= '<' && p[i] <= '?' {
		prefix = p[i]
		i++
	}
	// The parameters are emitted as they are parsed, in SGR's canonical
	// form; for any other final byte that output is cut off again and the
	// sequence dispatched from its parsed fields.
	start := len(dst)
	dst = append(dst, esc, '[')
	fields, seps := s.fields, s.seps
	n, v, colon := 0, int32(-1), false // fields so far, current value
	for ; i < end; i++ {
		b := p[i]
		switch {
		case b-'0' <= 9 && inter == 0:
			v = min(max(v, 0)*10+int32(b-'0'), 99999)
			n = max(n, 1)
		case (b == ';' || b == ':') && inter == 0:
			n = max(n, 1)
			if n == len(fields) {
				return dst[:start], 0 // too many parameters
			}
			if v >= 0 {
				dst = appendUint(dst, min(v, maxCount))
			}
			dst = append(dst, b)
			fields[n-1], seps[n] = v, b
			n, v = n+1, -1
			colon = colon || b == ':'
		case b >= 0x20 && b < 0x30 && inter == 0:
			inter = b
		case b >= 0x40 && b < del:
			if n > 0 {
				fields[n-1] = v
			}
			if b == 'm' && prefix == 0 && inter == 0 {
				if v >= 0 {
					dst = appendUint(dst, min(v, maxCount))
				}
				s.lastBEL = false
				return append(dst, 'm'), i + 1
			}
			s.prefix, s.inter, s.colon, s.nfield = prefix, inter, colon, n
			s.ninter = 0
			if inter != 0 {
				s.ninter = 1
			}
			return s.csiDispatch(dst[:start], b), i + 1
		default:
			return dst[:start], 0
		}
	}
	return dst[:start], 0 // incomplete here, or over the length cap
}

// byte runs one input byte through the UTF-8 decoder and hands what it
// completes to the state machine.
func (s *Sanitizer) byte(dst []byte, b byte) []byte {
	if s.u8.need > 0 {
		if s.u8.accepts(b) {
			r, done := s.u8.add(b)
			switch {
			case !done:
				return dst
			case len(r) == 2 && r[0] == 0xc2 && r[1] < 0xa0:
				return s.c1(dst, r[1]) // U+0080–U+009F
			default:
				return s.char(dst, r)
			}
		}
		s.u8 = utf8State{}
		dst = s.invalid(dst) // then b starts afresh
	}
	switch {
	case b < 0x80:
		return s.ascii(dst, b)
	case b < 0xa0:
		return s.c1(dst, b)
	case s.u8.start(b):
		return dst
	default:
		return s.invalid(dst)
	}
}

// ascii handles a 7-bit byte.
func (s *Sanitizer) ascii(dst []byte, b byte) []byte {
	switch b {
	case can, sub:
		s.abort()
		return dst
	case esc:
		pending := s.state == stOSC && s.osc.buffers()
		s.abort()
		s.enterEscape()
		s.oscPending = pending
		return dst
	}
	switch s.state {
	case stGround:
		return s.ground(dst, b)
	case stEscape:
		return s.escape(dst, b)
	case stEscInter, stEscIgnore:
		return s.escInter(dst, b)
	case stCSIEntry, stCSIParam, stCSIInter, stCSIIgnore:
		return s.csi(dst, b)
	case stDCSEntry, stDCSParam, stDCSInter:
		s.dcsHeader(b)
	case stOSC:
		if b == bel {
			s.state = stGround
			return s.oscDispatch(dst)
		}
		s.oscPut(b)
	}
	return dst // DCS data, SOS/PM/APC: consumed until their terminator
}

// c1 handles a C1 control, from a raw byte or U+0080–U+009F: ST ends a
// string; anything else abandons the current sequence and acts as its 7-bit
// equivalent, ESC followed by c-0x40.
func (s *Sanitizer) c1(dst []byte, c byte) []byte {
	if c == st {
		switch s.state {
		case stOSC:
			s.state = stGround
			return s.oscDispatch(dst)
		case stDCSPass, stDCSIgnore, stSOS:
			s.state = stGround
			return dst
		}
	}
	s.abort()
	s.enterEscape()
	return s.escape(dst, c-0x40)
}

// char handles a valid UTF-8 character of U+00A0 or above, encoded in r.
func (s *Sanitizer) char(dst []byte, r []byte) []byte {
	switch s.state {
	case stGround:
		s.lastBEL = false
		return append(dst, r...)
	case stOSC:
		s.oscPut(r...)
		return dst
	}
	s.poison()
	return dst
}

// invalid handles a byte sequence that is not UTF-8.
func (s *Sanitizer) invalid(dst []byte) []byte {
	switch s.state {
	case stGround:
		s.lastBEL = false
		return append(dst, "\uFFFD"...)
	case stOSC:
		s.osc = oscDiscard
		return dst
	}
	s.poison()
	return dst
}

// poison marks the current escape, control or device control sequence
// invalid: it is consumed to its final byte and dropped.
func (s *Sanitizer) poison() {
	s.oscPending = false
	switch s.state {
	case stEscape, stEscInter:
		s.state = stEscIgnore
	case stCSIEntry, stCSIParam, stCSIInter:
		s.state = stCSIIgnore
	case stDCSEntry, stDCSParam, stDCSInter:
		s.state = stDCSIgnore
	}
}

// abort abandons whatever is being parsed.
func (s *Sanitizer) abort() {
	s.state = stGround
	s.oscPending = false
}

func (s *Sanitizer) enterEscape() {
	s.state = stEscape
	s.inter, s.ninter = 0, 0
}

// ground handles a 7-bit byte outside any sequence. Printable bytes usually
// take passRun's fast path instead.
func (s *Sanitizer) ground(dst []byte, b byte) []byte {
	switch {
	case b >= 0x20 && b < del:
		s.lastBEL = false
		return append(dst, b)
	case b == bel:
		if !s.lastBEL {
			s.lastBEL = true
			dst = append(dst, bel)
		}
		return dst
	case b == '\b' || b == '\t' || b == '\n' || b == '\r' || b == 0x0e || b == 0x0f:
		s.lastBEL = false
		return append(dst, b)
	}
	return dst // other C0 and DEL
}

// execute handles a C0 control inside an escape or control sequence: the
// sequence continues, formatting controls are emitted as text and the rest
// dropped.
func (s *Sanitizer) execute(dst []byte, b byte) []byte {
	switch b {
	case '\b', '\t', '\n', '\r':
		s.lastBEL = false
		return append(dst, b)
	}
	return dst
}

// escape handles a 7-bit byte right after ESC.
func (s *Sanitizer) escape(dst []byte, b byte) []byte {
	if s.oscPending {
		s.oscPending = false
		if b == '\\' {
			s.state = stGround
			return s.oscDispatch(dst)
		}
	}
	switch {
	case b < 0x20:
		return s.execute(dst, b)
	case b < 0x30:
		s.inter, s.ninter = b, 1
		s.state = stEscInter
		return dst
	case b == del:
		return dst
	}
	s.state = stGround
	switch b {
	case '[':
		s.enterCSI()
	case ']':
		s.enterOSC()
	case 'P':
		s.state = stDCSEntry
	case 'X', '^', '_':
		s.state = stSOS
	default:
		return s.escDispatch(dst, 0, b)
	}
	return dst
}

// escInter handles a 7-bit byte after an escape sequence's intermediate
// byte, or in an invalid escape sequence.
func (s *Sanitizer) escInter(dst []byte, b byte) []byte {
	switch {
	case b < 0x20:
		return s.execute(dst, b)
	case b < 0x30:
		if s.ninter < 255 {
			s.ninter++
		}
		return dst
	case b == del:
		return dst
	}
	invalid := s.state == stEscIgnore
	s.state = stGround
	if invalid || s.ninter > 1 {
		return dst
	}
	return s.escDispatch(dst, s.inter, b)
}

func (s *Sanitizer) enterCSI() {
	s.state = stCSIEntry
	s.prefix, s.inter, s.ninter = 0, 0, 0
	s.colon = false
	s.seqLen = 2
	s.nfield = 0
}

// csi handles a 7-bit byte inside a control sequence.
func (s *Sanitizer) csi(dst []byte, b byte) []byte {
	switch {
	case b < 0x20:
		return s.execute(dst, b)
	case b == del:
		return dst
	}
	s.seqLen++
	if b >= 0x40 { // final byte
		ok := s.state != stCSIIgnore && s.seqLen <= s.opt.MaxCSIBytes
		s.state = stGround
		if !ok {
			return dst
		}
		return s.csiDispatch(dst, b)
	}
	if s.state == stCSIIgnore {
		return dst
	}
	if s.seqLen > s.opt.MaxCSIBytes {
		s.state = stCSIIgnore
		return dst
	}
	switch {
	case b < 0x30: // intermediate
		s.inter, s.ninter = b, min(s.ninter+1, 255)
		if s.ninter > 1 {
			s.state = stCSIIgnore // no allowed sequence has two
			return dst
		}
		s.state = stCSIInter
	case s.state == stCSIInter:
		s.state = stCSIIgnore // parameter byte after an intermediate
	case b <= '9':
		s.digit(b - '0')
	case b <= ';':
		s.separator(b)
	case s.state == stCSIEntry:
		s.prefix = b
		s.state = stCSIParam
	default:
		s.state = stCSIIgnore // private marker inside the parameters
	}
	return dst
}

// digit adds a decimal digit to the current parameter. Values saturate, so
// an overflowing parameter can never wrap around to a small one.
func (s *Sanitizer) digit(d byte) {
	s.state = stCSIParam
	if s.nfield == 0 {
		s.nfield, s.fields[0] = 1, -1
	}
	v := max(s.fields[s.nfield-1], 0)*10 + int32(d)
	s.fields[s.nfield-1] = min(v, 99999)
}

// separator starts a new parameter (';') or sub-parameter (':').
func (s *Sanitizer) separator(b byte) {
	s.state = stCSIParam
	if s.nfield == 0 {
		s.nfield, s.fields[0] = 1, -1
	}
	if s.nfield == len(s.fields) {
		s.state = stCSIIgnore // too many parameters
		return
	}
	s.fields[s.nfield], s.seps[s.nfield] = -1, b
	s.nfield++
	s.colon = s.colon || b == ':'
}

// dcsHeader handles a 7-bit byte between DCS and the start of its data. C0
// controls are ignored there, as in the DEC parser.
func (s *Sanitizer) dcsHeader(b byte) {
	switch {
	case b < 0x20 || b == del:
	case b >= 0x40:
		s.state = stDCSPass
	case b < 0x30:
		s.state = stDCSInter
	case s.state == stDCSInter:
		s.state = stDCSIgnore
	default:
		s.state = stDCSParam
	}
}
