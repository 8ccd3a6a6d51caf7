package engine

import (
	"bytes"
	"unicode/utf8"

	"github.com/ptyhost/ptyhost/internal/term"
)

const maxTitle = 1024

// oscDispatch runs a complete OSC string; bel tells how it was terminated
// (answers use the same terminator).
func (e *Engine) oscDispatch(bel bool) {
	p := &e.p
	e.lastRune = -1
	if p.strOver {
		return
	}
	ps, rest, ok := oscNumber(p.str)
	if !ok {
		return
	}
	switch ps {
	case 0, 2:
		e.setTitle(rest)
	case 4:
		e.oscPalette(rest, bel)
	case 10, 11, 12:
		e.oscDynamicColors(ps, rest, bel)
	case 110:
		e.fgColor = term.DefaultFg()
	case 111:
		e.bgColor = term.DefaultBg()
	case 112:
		e.cursorColor = term.DefaultCursor()
	}
}

// oscNumber splits "Ps;rest".
func oscNumber(s []byte) (ps int, rest []byte, ok bool) {
	i := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		if ps = ps*10 + int(s[i]-'0'); ps > 1<<16 {
			return 0, nil, false
		}
	}
	if i == 0 {
		return 0, nil, false
	}
	if i == len(s) {
		return ps, nil, true
	}
	if s[i] != ';' {
		return 0, nil, false
	}
	return ps, s[i+1:], true
}

// setTitle keeps the title, cut to maxTitle bytes on a rune boundary.
func (e *Engine) setTitle(t []byte) {
	if !utf8.Valid(t) {
		return
	}
	if len(t) > maxTitle {
		t = t[:maxTitle]
		for len(t) > 0 && !utf8.Valid(t) {
			t = t[:len(t)-1]
		}
	}
	e.title = append(e.title[:0], t...)
}

// nextField splits s at the first ';'.
func nextField(s []byte) (field, rest []byte, more bool) {
	if i := bytes.IndexByte(s, ';'); i >= 0 {
		return s[:i], s[i+1:], true
	}
	return s, nil, false
}

// oscPalette answers each "index;?" pair of OSC 4 with the default
// palette; setting the palette is accepted and not tracked.
func (e *Engine) oscPalette(s []byte, bel bool) {
	for len(s) > 0 {
		idx, spec, more := nextField(s)
		if !more {
			return
		}
		spec, s, _ = nextField(spec)
		n, _, ok := oscNumber(idx)
		if !ok || n > 255 {
			return
		}
		if string(spec) == "?" {
			e.answer(term.AppendOSC4(e.answerBuf, uint8(n), bel))
		}
	}
}

// oscDynamicColors handles OSC 10/11/12: each field sets or queries the
// next color in order (foreground, background, cursor).
func (e *Engine) oscDynamicColors(ps int, s []byte, bel bool) {
	for ; ps <= 12; ps++ {
		var spec []byte
		var more bool
		spec, s, more = nextField(s)
		slot := &e.fgColor
		switch ps {
		case 11:
			slot = &e.bgColor
		case 12:
			slot = &e.cursorColor
		}
		if string(spec) == "?" {
			e.answer(term.AppendOSCColor(e.answerBuf, ps, *slot, bel))
		} else if c, ok := parseColor(spec); ok {
			*slot = c
		}
		if !more {
			return
		}
	}
}

// parseColor reads the X11 forms rgb:r/g/b (1-4 hex digits each) and
// #rgb, #rrggbb, #rrrgggbbb, #rrrrggggbbbb.
func parseColor(s []byte) ([3]uint8, bool) {
	var c [3]uint8
	switch {
	case bytes.HasPrefix(s, []byte("rgb:")):
		parts := s[4:]
		for i := range 3 {
			var f []byte
			if i < 2 {
				j := bytes.IndexByte(parts, '/')
				if j < 0 {
					return c, false
				}
				f, parts = parts[:j], parts[j+1:]
			} else {
				f = parts
			}
			v, ok := hexScaled(f)
			if !ok {
				return c, false
			}
			c[i] = v
		}
		return c, true
	case len(s) > 1 && s[0] == '#' && (len(s)-1)%3 == 0 && len(s)-1 <= 12:
		n := (len(s) - 1) / 3
		for i := range 3 {
			v, ok := hexScaled(s[1+i*n : 1+(i+1)*n])
			if !ok {
				return c, false
			}
			c[i] = v
		}
		return c, true
	}
	return c, false
}

// hexScaled reads 1-4 hex digits and scales them to 8 bits.
func hexScaled(f []byte) (uint8, bool) {
	if len(f) == 0 || len(f) > 4 {
		return 0, false
	}
	v := 0
	for _, ch := range f {
		var d int
		switch {
		case ch >= '0' && ch <= '9':
			d = int(ch - '0')
		case ch >= 'a' && ch <= 'f':
			d = int(ch-'a') + 10
		case ch >= 'A' && ch <= 'F':
			d = int(ch-'A') + 10
		default:
			return 0, false
		}
		v = v<<4 | d
	}
	maxV := 1<<(4*len(f)) - 1
	return uint8(v * 255 / maxV), true
}

// clearStr starts a new OSC string.
func (e *Engine) clearStr(s parserState) {
	p := &e.p
	p.state = s
	p.str = p.str[:0]
	p.strOver = false
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
