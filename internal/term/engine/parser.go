package engine

// The parser is the VT500-style state machine (DEC's, as Paul Williams
// described it) with the sanitizer's structure rules (package
// attachwire/sanitize), so that the host's screen is the one a viewer's
// terminal shows after the sanitizer: UTF-8 is decoded statefully, across
// writes, before anything else looks at a byte above 0x7F; a C1 control,
// whether a raw byte 0x80–0x9F outside valid UTF-8 or UTF-8-encoded
// (U+0080–U+009F), acts as ESC followed by c-0x40 (ST ends a string, any
// other C1 abandons what is being parsed); a non-ASCII character or
// invalid UTF-8 inside an escape, control or DCS header makes the
// sequence invalid, consumed to its final byte and dropped; invalid
// UTF-8 inside an OSC or DCS string drops the string; ESC inside any
// sequence or string ends it; CAN and SUB abort; C0 controls inside a
// sequence are executed and the sequence goes on; parameters saturate
// instead of wrapping and one past 2^31-1 discards its sequence;
// buffered strings are capped and an over-long one is dropped whole at
// its terminator.
//
// Invalid UTF-8 in text is dropped, as tmux does.
//
// This file tracks where the stream is; the UTF-8 decoder is in utf8.go,
// parameter collection in params.go, and each kind of sequence is parsed
// and dispatched in its own file (csi.go, dcs.go, osc.go, control.go for
// C0 controls and escape sequences).

const (
	maxParams   = 32
	maxParamVal = 65535
	maxCSILen   = 256
	maxOSC      = 4096
	maxDCS      = 1024
)

type parserState uint8

const (
	stGround parserState = iota
	stEscape
	stEscInter
	stEscIgnore // invalid escape sequence, consumed to its final byte
	stCSIEntry
	stCSIParam
	stCSIInter
	stCSIIgnore
	stDCSEntry
	stDCSParam
	stDCSInter
	stDCSPass
	stDCSIgnore
	stOSC
	stSOS // SOS, PM and APC: ignored up to their terminator
	stStrEsc
)

type parser struct {
	state parserState
	// strState is the string state an ESC interrupted (in stStrEsc).
	strState parserState

	// utf decodes UTF-8 across Write calls.
	utf utf8Decoder

	params  [maxParams]int32
	nparams int
	// colons has bit i set when params[i] followed a ':' (a
	// sub-parameter of the one before).
	colons   uint32
	hasParam bool
	// raw accumulates the current parameter's true value, to notice one
	// past 2^31-1: tmux discards such a sequence, and so does the engine
	// (parameters themselves saturate at maxParamVal).
	raw      uint64
	prefix   byte // private marker: < = > ?
	inter    [2]byte
	ninter   int
	badInter bool
	seqLen   int

	final   byte   // a DCS's final byte, kept for its dispatch
	str     []byte // OSC or DCS data
	strOver bool
}

// Write feeds bytes the child wrote. Answers to queries are handed to
// Options.Answer before Write returns, in query order.
//
// Work bound: every byte costs O(cols) steps, except that a complete
// sequence acting on the whole screen (ED, SU/SD, IL/DL, DECALN, mode
// switches that clear) costs O(rows·cols); such sequences are at least

// Write feeds bytes the child wrote. Answers to queries are handed to
// Options.Answer before Write returns, in query order.
//
// Work bound: every byte costs O(cols) steps, except that a complete
// sequence acting on the whole screen (ED, SU/SD, IL/DL, DECALN, mode
// switches that clear) costs O(rows·cols); such sequences are at least
// three bytes long.
func (e *Engine) Write(b []byte) {
	if e.closed {
		return
	}
	e.work += uint64(len(b)) // one step per byte; loops add their extra work
	p := &e.p
	for i := 0; i < len(b); {
		c := b[i]
		// Fast paths for the common cases; everything else, and every
		// byte while a UTF-8 character is pending, takes byte.
		if p.utf.need != 0 {
			e.byte(c)
			i++
			continue
		}
		switch p.state {
		case stGround:
			if j := e.ground(b, i); j != i {
				i = j
				continue
			}
		case stEscape:
			if c == '[' {
				e.clearSeq(stCSIEntry)
				i++
				continue
			}
		case stCSIEntry, stCSIParam:
			if p.seqLen >= maxCSILen || p.badInter {
				break
			}
			switch {
			case c-'0' < 10:
				p.digit(c)
			case c == ';' && p.hasParam && p.nparams < maxParams:
				p.params[p.nparams] = 0
				p.nparams++
				p.raw = 0
			case c >= 0x40 && c < 0x7F:
				p.state = stGround
				i++
				e.csiDispatch(c)
				continue
			default:
				e.byte(c)
				i++
				continue
			}
			p.state = stCSIParam
			p.seqLen++
			i++
			continue
		}
		e.byte(c)
		i++
	}
}

// byte runs one byte through the UTF-8 decoder and the state machine. A
// byte that cannot continue a pending character makes that character
// invalid and is then handled afresh (so "\xe0\x9b" is an invalid byte,
// then CSI), as in the sanitizer.
func (e *Engine) byte(c byte) {
	p := &e.p
	if p.utf.need != 0 {
		r, done, ok := p.utf.add(c)
		switch {
		case ok && !done:
			return
		case ok && r < 0xA0:
			e.c1(byte(r)) // U+0080–U+009F
			return
		case ok:
			e.char(r)
			return
		}
		e.invalid() // then c starts afresh
	}
	switch {
	case c < 0x80:
		e.ascii(c)
	case c < 0xA0:
		e.c1(c) // a raw C1 byte
	case !p.utf.start(c):
		e.invalid() // a stray continuation byte, an overlong lead, F5..FF
	}
}

// c1 handles a C1 control, from a raw byte or U+0080–U+009F, as the
// sanitizer does: ST (0x9C) ends a string; any other C1, and ST outside a
// string, abandons whatever is being parsed and acts as its 7-bit form,
// ESC followed by c-0x40 (0x9B is CSI, 0x9D OSC, 0x90 DCS, 0x84 IND, 0x85
// NEL, 0x88 HTS, 0x8D RI, ...).
func (e *Engine) c1(c byte) {
	p := &e.p
	if c == 0x9C {
		switch p.state {
		case stOSC:
			p.state = stGround
			e.oscDispatch(false)
			return
		case stDCSPass:
			p.state = stGround
			e.dcsDispatch()
			return
		case stDCSIgnore, stSOS:
			p.state = stGround
			return
		}
	}
	e.clearSeq(stEscape)
	e.escapeByte(c - 0x40)
}

// poison marks the escape, control or DCS sequence being parsed invalid:
// it is consumed to its final byte and dropped. After an ESC inside a
// string, the string is dropped and so is the escape sequence.
func (e *Engine) poison() {
	p := &e.p
	switch p.state {
	case stStrEsc:
		e.clearSeq(stEscIgnore)
	case stEscape, stEscInter:
		p.state = stEscIgnore
	case stCSIEntry, stCSIParam, stCSIInter:
		p.state = stCSIIgnore
	case stDCSEntry, stDCSParam, stDCSInter:
		p.state = stDCSIgnore
	}
}

// ascii handles a 7-bit byte.
func (e *Engine) ascii(c byte) {
	p := &e.p
	switch c {
	case 0x18, 0x1A: // CAN, SUB
		p.state = stGround
		return
	case 0x1B:
		switch p.state {
		case stOSC, stDCSPass, stSOS, stDCSIgnore:
			p.strState = p.state
			p.state = stStrEsc
		default:
			e.clearSeq(stEscape)
		}
		return
	}
	switch p.state {
	case stGround:
		if c < 0x20 {
			e.execute(c)
		} else if c < 0x7F {
			e.printRune(rune(c))
		}
	case stEscape:
		e.escapeByte(c)
	case stEscInter, stEscIgnore:
		switch {
		case c < 0x20:
			e.execute(c)
		case c < 0x30:
			e.collect(c)
		case c < 0x7F:
			if p.state == stEscIgnore {
				p.state = stGround // dropped, as if it never came
				return
			}
			p.state = stGround
			e.escDispatch(c)
		}
	case stCSIEntry, stCSIParam, stCSIInter, stCSIIgnore:
		e.csiByte(c)
	case stDCSEntry, stDCSParam, stDCSInter:
		e.dcsHeadByte(c)
	case stDCSPass:
		if c >= 0x20 && c < 0x7F {
			e.strPut(c)
		}
	case stOSC:
		switch {
		case c == 0x07:
			p.state = stGround
			e.oscDispatch(true)
		case c >= 0x20 && c < 0x7F:
			e.strPut(c)
		}
	case stStrEsc:
		if c == '\\' {
			p.state = stGround
			switch p.strState {
			case stOSC:
				e.oscDispatch(false)
			case stDCSPass:
				e.dcsDispatch()
			}
			return
		}
		// The string is dropped; ESC starts a new escape sequence.
		e.clearSeq(stEscape)
		e.escapeByte(c)
	}
}

func (e *Engine) escapeByte(c byte) {
	p := &e.p
	switch {
	case c < 0x20:
		e.execute(c)
	case c < 0x30:
		e.collect(c)
		p.state = stEscInter
	case c == '[':
		e.clearSeq(stCSIEntry)
	case c == ']':
		e.clearStr(stOSC)
	case c == 'P':
		e.clearSeq(stDCSEntry)
	case c == 'X' || c == '^' || c == '_':
		p.state = stSOS
	case c == '\\':
		p.state = stGround // a lone ST
	case c < 0x7F:
		p.state = stGround
		e.escDispatch(c)
	}
}
