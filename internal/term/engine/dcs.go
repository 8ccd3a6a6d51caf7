package engine

import (
	"strconv"

	"github.com/ptyhost/ptyhost/internal/term"
)

// dcsDispatch answers the two DCS queries of TERMINAL.md: DECRQSS
// (DCS $ q Pt ST) and XTGETTCAP (DCS + q hex ST). Every other DCS is
// ignored.
func (e *Engine) dcsDispatch() {
	p := &e.p
	if p.strOver || p.badInter || p.ninter != 1 || p.prefix != 0 || p.final != 'q' || p.nparams > 0 {
		return
	}
	switch p.inter[0] {
	case '$':
		e.answer(e.appendDECRQSS(e.answerBuf, string(p.str)))
	case '+':
		e.answer(term.AppendXTGETTCAP(e.answerBuf, p.str))
	}
}

// appendDECRQSS computes the answer for setting; the query's bytes only
// select which state is reported.
func (e *Engine) appendDECRQSS(dst []byte, setting string) []byte {
	var b [64]byte
	s := b[:0]
	switch setting {
	case "m":
		s = appendSGR(s, e.cur.pen)
	case " q":
		s = strconv.AppendInt(s, int64(e.mode.cursorStyle), 10)
		s = append(s, " q"...)
	case "r":
		s = strconv.AppendInt(s, int64(e.top+1), 10)
		s = append(s, ';')
		s = strconv.AppendInt(s, int64(e.bot+1), 10)
		s = append(s, 'r')
	default:
		return append(dst, term.DECRQSSInvalid...)
	}
	return term.AppendDECRQSS(dst, string(s))
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
