package engine

import (
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/repaint"
)

// sgr applies SGR parameters to the pen: 16, 256 and 24-bit colors in the
// ';' and ':' forms, and underline styles (4:x) mapped to the underline
// bit. Attributes the Screen model has no bit for are accepted and
// dropped.
func (e *Engine) sgr() {
	p := &e.p
	if p.nparams == 0 {
		e.cur.pen = pen{}
		return
	}
	e.sgrFrom(0)
}

// plainSGR is sgr for parameters without sub-parameters (csiFast's): the
// common codes go through sgrOps, without a branch on the code.
func (e *Engine) plainSGR() {
	p := &e.p
	if p.nparams == 0 {
		e.cur.pen = pen{}
		return
	}
	for i, v := range p.params[:p.nparams] {
		if uint32(v) >= uint32(len(sgrOps)) {
			continue // no attribute of the model
		}
		op := &sgrOps[v]
		if op.kind != sgrSimple {
			e.sgrFrom(i)
			return
		}
		op.apply(&e.cur.pen)
	}
}

// sgrFrom applies the SGR parameters from params[i] on.
func (e *Engine) sgrFrom(i int) {
	p := &e.p
	pn := &e.cur.pen
	for i < p.nparams {
		v := int(p.params[i])
		subs := 0
		if p.colons != 0 {
			subs = p.subparams(i)
		}
		next := i + 1 + subs
		switch v {
		case 0:
			*pn = pen{}
		case 1:
			pn.style |= attachwire.StyleBold
		case 2:
			pn.style |= attachwire.StyleDim
		case 3:
			pn.style |= attachwire.StyleItalic
		case 4:
			if subs > 0 && p.params[i+1] == 0 {
				pn.style &^= attachwire.StyleUnderline
			} else {
				pn.style |= attachwire.StyleUnderline
			}
		case 7:
			pn.style |= attachwire.StyleReverse
		case 9:
			pn.style |= attachwire.StyleStrikethrough
		case 21:
			pn.style |= attachwire.StyleUnderline
		case 22:
			pn.style &^= attachwire.StyleBold | attachwire.StyleDim
		case 23:
			pn.style &^= attachwire.StyleItalic
		case 24:
			pn.style &^= attachwire.StyleUnderline
		case 27:
			pn.style &^= attachwire.StyleReverse
		case 29:
			pn.style &^= attachwire.StyleStrikethrough
		case 30, 31, 32, 33, 34, 35, 36, 37:
			pn.fg = attachwire.IndexedColor(uint8(v - 30))
		case 39:
			pn.fg = 0
		case 40, 41, 42, 43, 44, 45, 46, 47:
			pn.bg = attachwire.IndexedColor(uint8(v - 40))
		case 49:
			pn.bg = 0
		case 90, 91, 92, 93, 94, 95, 96, 97:
			pn.fg = attachwire.IndexedColor(uint8(v - 90 + 8))
		case 100, 101, 102, 103, 104, 105, 106, 107:
			pn.bg = attachwire.IndexedColor(uint8(v - 100 + 8))
		case 38, 48, 58:
			c, used, ok := p.extColor(i, subs)
			next = i + 1 + used
			if ok && v == 38 {
				pn.fg = c
			} else if ok && v == 48 {
				pn.bg = c
			}
		}
		i = next
	}
}

// sgrOp is what one SGR code does to the pen. Most codes are simple: they
// clear and set style bits and replace a color or leave it, which sgrOps
// encodes as masks so that applying one takes no branch on the code
// (the codes of real output are too irregular to predict).
type sgrOp struct {
	kind           uint8
	clear, set     attachwire.Style
	fgKeep, bgKeep attachwire.Color // all ones, or 0 to replace the color
	fg, bg         attachwire.Color
}

const (
	sgrSimple  = iota
	sgrComplex // 4 (its sub-parameter may turn underline off), 38, 48, 58
)

func (op *sgrOp) apply(pn *pen) {
	pn.style = pn.style&^op.clear | op.set
	pn.fg = pn.fg&op.fgKeep | op.fg
	pn.bg = pn.bg&op.bgKeep | op.bg
}

// sgrOps maps the SGR codes below 108 as sgrFrom handles them; higher
// codes do nothing.
var sgrOps = func() (ops [108]sgrOp) {
	const all = ^attachwire.Color(0)
	for i := range ops {
		ops[i] = sgrOp{fgKeep: all, bgKeep: all}
	}
	set := func(v int, s attachwire.Style) { ops[v].set = s }
	unset := func(v int, s attachwire.Style) { ops[v].clear = s }
	fg := func(v int, c attachwire.Color) { ops[v].fgKeep, ops[v].fg = 0, c }
	bg := func(v int, c attachwire.Color) { ops[v].bgKeep, ops[v].bg = 0, c }
	ops[0] = sgrOp{clear: ^attachwire.Style(0)}
	set(1, attachwire.StyleBold)
	set(2, attachwire.StyleDim)
	set(3, attachwire.StyleItalic)
	set(7, attachwire.StyleReverse)
	set(9, attachwire.StyleStrikethrough)
	set(21, attachwire.StyleUnderline)
	unset(22, attachwire.StyleBold|attachwire.StyleDim)
	unset(23, attachwire.StyleItalic)
	unset(24, attachwire.StyleUnderline)
	unset(27, attachwire.StyleReverse)
	unset(29, attachwire.StyleStrikethrough)
	for i := range 8 {
		fg(30+i, attachwire.IndexedColor(uint8(i)))
		bg(40+i, attachwire.IndexedColor(uint8(i)))
		fg(90+i, attachwire.IndexedColor(uint8(i+8)))
		bg(100+i, attachwire.IndexedColor(uint8(i+8)))
	}
	fg(39, 0)
	bg(49, 0)
	// Alone, 4 sets underline and 38, 48 and 58 do nothing (shortSGR
	// applies them so); with more parameters sgrFrom reads them.
	set(4, attachwire.StyleUnderline)
	ops[4].kind, ops[38].kind, ops[48].kind, ops[58].kind = sgrComplex, sgrComplex, sgrComplex, sgrComplex
	return ops
}()

// subparams counts the ':'-joined parameters after params[i].
func (p *parser) subparams(i int) int {
	n := 0
	for j := i + 1; j < p.nparams && p.colons&(1<<j) != 0; j++ {
		n++
	}
	return n
}

// extColor reads the color after a 38/48/58 at params[i]: 5;n or 2;r;g;b,
// or their ':' forms (2:cs:r:g:b with a colorspace id, or 2:r:g:b). It
// returns how many parameters after params[i] it used.
func (p *parser) extColor(i, subs int) (c attachwire.Color, used int, ok bool) {
	get := func(k int) (uint8, bool) {
		if i+k >= p.nparams || p.params[i+k] > 255 {
			return 0, false
		}
		return uint8(p.params[i+k]), true
	}
	if subs > 0 { // colon form: exactly the sub-parameters
		used = subs
		switch p.params[i+1] {
		case 5:
			if n, ok := get(2); ok && subs >= 2 {
				return attachwire.IndexedColor(n), used, true
			}
		case 2:
			k := 2
			if subs >= 5 {
				k = 3 // skip the colorspace id
			}
			if subs < 4 {
				return 0, used, false
			}
			r, ok1 := get(k)
			g, ok2 := get(k + 1)
			b, ok3 := get(k + 2)
			return attachwire.RGBColor(r, g, b), used, ok1 && ok2 && ok3
		}
		return 0, used, false
	}
	if i+1 >= p.nparams {
		return 0, 0, false
	}
	switch p.params[i+1] {
	case 5:
		n, ok := get(2)
		return attachwire.IndexedColor(n), min(2, p.nparams-i-1), ok
	case 2:
		r, ok1 := get(2)
		g, ok2 := get(3)
		b, ok3 := get(4)
		return attachwire.RGBColor(r, g, b), min(4, p.nparams-i-1), ok1 && ok2 && ok3
	}
	return 0, 1, false
}

// appendSGR appends the pen as an SGR parameter string (for DECRQSS m):
// computed from state, never copied from input.
func appendSGR(dst []byte, pn pen) []byte {
	dst = append(dst, '0')
	for _, a := range [...]struct {
		bit  attachwire.Style
		code string
	}{
		{attachwire.StyleBold, ";1"}, {attachwire.StyleDim, ";2"}, {attachwire.StyleItalic, ";3"},
		{attachwire.StyleUnderline, ";4"}, {attachwire.StyleReverse, ";7"}, {attachwire.StyleStrikethrough, ";9"},
	} {
		if pn.style&a.bit != 0 {
			dst = append(dst, a.code...)
		}
	}
	dst = repaint.AppendSGRColor(dst, pn.fg, 30)
	dst = repaint.AppendSGRColor(dst, pn.bg, 40)
	return append(dst, 'm')
}
