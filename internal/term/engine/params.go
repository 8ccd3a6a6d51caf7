package engine

// Collection of a sequence's parameters, private marker and
// intermediates, shared by escape, CSI and DCS parsing.

// clearSeq starts a new escape, CSI or DCS sequence.
func (e *Engine) clearSeq(s parserState) {
	p := &e.p
	p.state = s
	p.nparams, p.colons, p.hasParam = 0, 0, false
	p.params[0] = 0
	p.prefix, p.ninter, p.badInter, p.seqLen = 0, 0, false, 0
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
