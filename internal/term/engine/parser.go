package engine

import (
	"unicode/utf8"

	"github.com/ptyhost/ptyhost/internal/utf8lead"
)

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

	// UTF-8 decoding, across Write calls: utfNeed continuation bytes
	// are still to come, the next one in utfLo..utfHi.
	utfNeed      uint8
	utfLo, utfHi byte
	utfAcc       rune

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
		if p.utfNeed != 0 {
			e.byte(c)
			i++
			continue
		}
		switch p.state {
		case stGround:
			// Tested in order of frequency in real output.
			if c-0x20 < 0x5f {
				i += e.printASCII(b[i:])
				continue
			}
			if c == 0x1B {
				e.clearSeq(stEscape)
				i++
				if i < len(b) && b[i] == '[' {
					p.state = stCSIEntry
					i = e.csiFast(b, i+1)
				}
				continue
			}
			if c == '\r' {
				e.cur.col = 0
				e.cur.wrapPending = false
				e.lastRune = -1
				i++
				continue
			}
			if c == '\n' {
				e.lastRune = -1
				e.index()
				i++
				continue
			}
			if c >= 0xC2 && c < 0xF5 {
				// A whole, valid UTF-8 character (not C1): decode it here.
				if r, size := utf8.DecodeRune(b[i:]); size > 1 && r >= 0xA0 {
					e.printRune(r)
					i += size
					continue
				}
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

// csiFast parses the plain-parameter part of a CSI sequence starting at
// b[i] in one loop, with the current parameter in a register, and
// dispatches it when its final byte follows. It stops (handing its state
// to the state machine) at anything else: a private marker, an
// intermediate, a ':', a control, the end of b.
func (e *Engine) csiFast(b []byte, i int) int {
	p := &e.p
	start := i
	seq := b[:min(len(b), i+maxCSILen)]
	n := 0
	var v uint64
	has := false
	for ; i < len(seq); i++ {
		c := seq[i]
		if d := c - '0'; d < 10 {
			v = min(v*10+uint64(d), 1<<40)
			has = true
			continue
		}
		if c == ';' && n+1 < maxParams {
			p.params[n] = int32(min(v, maxParamVal))
			p.badInter = p.badInter || v > 1<<31-1
			n++
			v, has = 0, true
			continue
		}
		if c >= 0x40 && c < 0x7F {
			if has {
				p.params[n] = int32(min(v, maxParamVal))
				p.badInter = p.badInter || v > 1<<31-1
				n++
			}
			p.nparams, p.hasParam = n, has
			p.state = stGround
			if c == 'm' && !p.badInter {
				// SGR, the most frequent sequence by far: Write cleared
				// the sequence, so it has no private marker,
				// intermediate or sub-parameter.
				e.lastRune = -1
				if n == 1 && v < uint64(len(sgrOps)) && sgrOps[v].kind == sgrSimple {
					sgrOps[v].apply(&e.cur.pen) // one code, as most SGRs
				} else {
					e.plainSGR()
				}
			} else {
				e.csiDispatch(c)
			}
			return i + 1
		}
		break
	}
	if has {
		p.params[n] = int32(min(v, maxParamVal))
		p.badInter = p.badInter || v > 1<<31-1
		p.nparams, p.hasParam, p.raw = n+1, true, v
		p.state = stCSIParam
	}
	p.seqLen = i - start
	return i
}

// byte runs one byte through the UTF-8 decoder and the state machine.
// The decoder accepts exactly what unicode/utf8 does and rejects a bad
// sequence at the first byte that cannot continue it, which is then
// handled afresh (so "\xe0\x9b" is an invalid byte, then CSI), as the
// sanitizer's does.
func (e *Engine) byte(c byte) {
	p := &e.p
	if p.utfNeed > 0 {
		if c >= p.utfLo && c <= p.utfHi {
			p.utfAcc = p.utfAcc<<6 | rune(c&0x3F)
			p.utfLo, p.utfHi = 0x80, 0xBF
			if p.utfNeed--; p.utfNeed > 0 {
				return
			}
			if r := p.utfAcc; r < 0xA0 {
				e.c1(byte(r)) // U+0080–U+009F
			} else {
				e.char(r)
			}
			return
		}
		p.utfNeed = 0
		e.invalid() // then c starts afresh
	}
	switch {
	case c < 0x80:
		e.ascii(c)
	case c < 0xA0:
		e.c1(c) // a raw C1 byte
	case c < 0xC2:
		e.invalid() // a stray continuation byte or an overlong lead
	default:
		n, lo, hi := utf8lead.Lead(c)
		if n == 0 {
			e.invalid()
			return
		}
		// The lead's payload bits: 5, 4 or 3 for 2, 3 or 4 bytes.
		p.utfNeed, p.utfLo, p.utfHi = uint8(n-1), lo, hi
		p.utfAcc = rune(c & (0x7F >> n))
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

// char handles a decoded character of U+00A0 or above: printed in ground,
// data in an OSC or DCS string, ignored in SOS/PM/APC; anywhere else it
// makes the sequence invalid.
func (e *Engine) char(r rune) {
	switch e.p.state {
	case stGround:
		e.printRune(r)
	case stOSC, stDCSPass:
		var buf [4]byte
		n := encodeRune(buf[:], r)
		e.strPut(buf[:n]...)
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

func encodeRune(dst []byte, r rune) int {
	switch {
	case r < 0x80:
		dst[0] = byte(r)
		return 1
	case r < 0x800:
		dst[0], dst[1] = 0xC0|byte(r>>6), 0x80|byte(r)&0x3F
		return 2
	case r < 0x10000:
		dst[0], dst[1], dst[2] = 0xE0|byte(r>>12), 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F
		return 3
	default:
		dst[0], dst[1], dst[2], dst[3] = 0xF0|byte(r>>18), 0x80|byte(r>>12)&0x3F, 0x80|byte(r>>6)&0x3F, 0x80|byte(r)&0x3F
		return 4
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

func (e *Engine) csiByte(c byte) {
	p := &e.p
	if c < 0x20 {
		e.execute(c) // C0 inside CSI is executed; the sequence goes on
		return
	}
	if p.seqLen++; p.seqLen > maxCSILen && p.state != stCSIIgnore {
		p.state = stCSIIgnore
	}
	switch p.state {
	case stCSIIgnore:
		if c >= 0x40 && c < 0x7F {
			p.state = stGround
		}
	case stCSIEntry, stCSIParam:
		switch {
		case c >= '0' && c <= ';':
			e.param(c)
			p.state = stCSIParam
		case c >= '<' && c <= '?':
			if p.state == stCSIEntry {
				p.prefix = c
				p.state = stCSIParam
			} else {
				p.state = stCSIIgnore
			}
		case c < 0x30:
			e.collect(c)
			p.state = stCSIInter
		case c < 0x7F:
			p.state = stGround
			e.csiDispatch(c)
		}
	case stCSIInter:
		switch {
		case c < 0x30:
			e.collect(c)
		case c < 0x40:
			p.state = stCSIIgnore
		case c < 0x7F:
			p.state = stGround
			e.csiDispatch(c)
		}
	}
}

// dcsHeadByte parses a DCS's parameters and intermediates up to its final
// byte, which selects the string handler.
func (e *Engine) dcsHeadByte(c byte) {
	p := &e.p
	if c < 0x20 {
		return // C0 in a DCS head is ignored
	}
	switch {
	case c >= '0' && c <= ';' && p.state != stDCSInter:
		e.param(c)
		p.state = stDCSParam
	case c >= '<' && c <= '?':
		if p.state == stDCSEntry {
			p.prefix = c
			p.state = stDCSParam
		} else {
			p.state = stDCSIgnore
		}
	case c < 0x30:
		e.collect(c)
		p.state = stDCSInter
	case c < 0x40:
		p.state = stDCSIgnore
	case c < 0x7F:
		p.str = p.str[:0]
		p.strOver = false
		p.final = c
		p.state = stDCSPass
	}
}

// clearSeq starts a new escape, CSI or DCS sequence.
func (e *Engine) clearSeq(s parserState) {
	p := &e.p
	p.state = s
	p.nparams, p.colons, p.hasParam = 0, 0, false
	p.params[0] = 0
	p.prefix, p.ninter, p.badInter, p.seqLen = 0, 0, false, 0
}

// clearStr starts a new OSC string.
func (e *Engine) clearStr(s parserState) {
	p := &e.p
	p.state = s
	p.str = p.str[:0]
	p.strOver = false
}

func (e *Engine) collect(c byte) {
	p := &e.p
	if p.ninter < len(p.inter) {
		p.inter[p.ninter] = c
		p.ninter++
	} else {
		p.badInter = true
	}
}

func (e *Engine) param(c byte) {
	p := &e.p
	if !p.hasParam {
		p.hasParam, p.nparams, p.params[0], p.raw = true, 1, 0, 0
	}
	switch c {
	case ';', ':':
		p.raw = 0
		if p.nparams < maxParams {
			if c == ':' {
				p.colons |= 1 << p.nparams
			}
			p.params[p.nparams] = 0
			p.nparams++
		} else {
			p.badInter = true // too many parameters: ignore the sequence
		}
	default:
		p.digit(c)
	}
}

// digit adds a decimal digit to the current parameter.
func (p *parser) digit(c byte) {
	if !p.hasParam {
		p.hasParam, p.nparams, p.params[0], p.raw = true, 1, 0, 0
	}
	p.raw = min(p.raw*10+uint64(c-'0'), 1<<40)
	if p.raw > 1<<31-1 {
		p.badInter = true // overflow: the whole sequence is discarded
	}
	p.params[p.nparams-1] = int32(min(p.raw, maxParamVal))
}

// strPut appends string data, switching to discard past the cap.
func (e *Engine) strPut(b ...byte) {
	p := &e.p
	limit := maxOSC
	if p.state == stDCSPass {
		limit = maxDCS
	}
	if p.strOver || len(p.str)+len(b) > limit {
		p.strOver = true
		return
	}
	p.str = append(p.str, b...)
	e.work += uint64(len(b))
}

// arg returns parameter i, or def when it is missing or 0.
func (p *parser) arg(i int, def int) int {
	if i >= p.nparams || p.params[i] == 0 {
		return def
	}
	return int(p.params[i])
}

// arg0 returns parameter i, 0 when missing.
func (p *parser) arg0(i int) int {
	if i >= p.nparams {
		return 0
	}
	return int(p.params[i])
}
