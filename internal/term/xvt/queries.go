package xvt

import (
	"bytes"
	"image/color"
	"strconv"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"

	"github.com/ptyhost/ptyhost/internal/repaint"
	"github.com/ptyhost/ptyhost/internal/term"
)

// registerHooks installs handlers over x/vt's defaults (x/vt tries the
// last registered handler first). Every query x/vt knows is answered here
// instead, synchronously during Write, so all answers leave in query order
// through one path.
func (t *Terminal) registerHooks() {
	e := t.emu
	e.RegisterCsiHandler('c', t.da1)
	e.RegisterCsiHandler(ansi.Command('>', 0, 'c'), t.da2)
	e.RegisterCsiHandler('n', t.dsr)
	e.RegisterCsiHandler(ansi.Command('?', 0, 'n'), t.decDSR)
	e.RegisterCsiHandler(ansi.Command(0, '$', 'p'), func(p ansi.Params) bool { return t.decrqm(p, false) })
	e.RegisterCsiHandler(ansi.Command('?', '$', 'p'), func(p ansi.Params) bool { return t.decrqm(p, true) })
	e.RegisterCsiHandler('t', t.windowOps)
	e.RegisterCsiHandler(ansi.Command('>', 0, 'q'), t.xtversion)
	e.RegisterDcsHandler(ansi.Command(0, '$', 'q'), t.decrqss)
	e.RegisterDcsHandler(ansi.Command(0, '+', 'q'), t.xtgettcap)
	for _, ps := range []int{10, 11, 12} {
		e.RegisterOscHandler(ps, func(data []byte) bool { return t.oscColor(ps, data) })
	}
	e.RegisterOscHandler(4, t.osc4)

	t.registerObservers()
}

func (t *Terminal) da1(p ansi.Params) bool {
	if n, _, _ := p.Param(0, 0); n == 0 {
		t.answer(append(t.ans[:0], term.DA1...))
	}
	return true
}

func (t *Terminal) da2(p ansi.Params) bool {
	if n, _, _ := p.Param(0, 0); n == 0 {
		t.answer(append(t.ans[:0], term.DA2...))
	}
	return true
}

func (t *Terminal) dsr(p ansi.Params) bool {
	switch n, _, _ := p.Param(0, 0); n {
	case 5:
		t.answer(append(t.ans[:0], term.DSROK...))
	case 6:
		row, col := t.cursorReport()
		t.ans = term.AppendCPR(t.ans[:0], row, col, false)
		t.answer(t.ans)
	}
	return true
}

func (t *Terminal) decDSR(p ansi.Params) bool {
	switch n, _, _ := p.Param(0, 0); n {
	case 6:
		row, col := t.cursorReport()
		t.ans = term.AppendCPR(t.ans[:0], row, col, true)
		t.answer(t.ans)
	case 996:
		t.answer(append(t.ans[:0], term.ColorSchemeDark...))
	}
	return true
}

// cursorReport returns the 1-based cursor position a CPR reports: relative
// to the top margin in origin mode.
func (t *Terminal) cursorReport() (row, col int) {
	pos := t.emu.CursorPosition()
	row, col = pos.Y+1, pos.X+1
	if t.modes.dec(6) && t.top > 0 {
		row = max(row-t.top+1, 1)
	}
	return row, col
}

func (t *Terminal) decrqm(p ansi.Params, dec bool) bool {
	n, _, ok := p.Param(0, 0)
	if !ok || n == 0 {
		return true
	}
	t.ans = term.AppendDECRPM(t.ans[:0], n, t.modes.report(n, dec), dec)
	t.answer(t.ans)
	return true
}

func (t *Terminal) windowOps(p ansi.Params) bool {
	n, _, _ := p.Param(0, 0)
	t.ans = term.AppendWindowReport(t.ans[:0], n, t.cols, t.rows, t.pxW, t.pxH)
	t.answer(t.ans)
	return true
}

func (t *Terminal) xtversion(p ansi.Params) bool {
	if n, _, _ := p.Param(0, 0); n == 0 {
		t.ans = term.AppendXTVERSION(t.ans[:0], t.opts.Version)
		t.answer(t.ans)
	}
	return true
}

// decrqss answers DECRQSS for SGR, DECSCUSR and DECSTBM from the state the
// hooks mirror; the setting named in the query is never echoed.
func (t *Terminal) decrqss(_ ansi.Params, data []byte) bool {
	var setting []byte
	switch string(data) {
	case "m":
		setting = append(appendSGR(nil, &t.pens.pen), 'm')
	case " q":
		setting = strconv.AppendInt(nil, int64(max(t.scusr, 1)), 10)
		setting = append(setting, " q"...)
	case "r":
		top, bottom := max(t.top, 1), t.bottom
		if bottom == 0 {
			bottom = t.rows
		}
		setting = strconv.AppendInt(nil, int64(top), 10)
		setting = append(setting, ';')
		setting = strconv.AppendInt(setting, int64(bottom), 10)
		setting = append(setting, 'r')
	default:
		t.answer(append(t.ans[:0], term.DECRQSSInvalid...))
		return true
	}
	t.ans = term.AppendDECRQSS(t.ans[:0], string(setting))
	t.answer(t.ans)
	return true
}

func (t *Terminal) xtgettcap(_ ansi.Params, data []byte) bool {
	t.ans = term.AppendXTGETTCAP(t.ans[:0], data)
	t.answer(t.ans)
	return true
}

// oscColor answers OSC 10/11/12 ; ? with the current color and the query's
// terminator; anything else goes to x/vt (which sets or resets the color).
func (t *Terminal) oscColor(ps int, data []byte) bool {
	parts := bytes.Split(data, []byte{';'})
	if len(parts) != 2 || string(parts[1]) != "?" {
		return false
	}
	var c color.Color
	switch ps {
	case 10:
		c = t.emu.ForegroundColor()
	case 11:
		c = t.emu.BackgroundColor()
	default:
		c = t.emu.CursorColor()
	}
	t.ans = term.AppendOSCColor(t.ans[:0], ps, rgb8(c), t.oscBEL)
	t.answer(t.ans)
	return true
}

// osc4 answers each "index ; ?" pair of OSC 4 from the default palette;
// palette changes are not applied (x/vt keeps no palette in its cells).
func (t *Terminal) osc4(data []byte) bool {
	parts := bytes.Split(data, []byte{';'})
	t.ans = t.ans[:0]
	for i := 1; i+1 < len(parts); i += 2 {
		if string(parts[i+1]) != "?" {
			continue
		}
		idx, err := strconv.ParseUint(string(parts[i]), 10, 8)
		if err != nil {
			continue
		}
		t.ans = term.AppendOSC4(t.ans, uint8(idx), t.oscBEL)
	}
	t.answer(t.ans)
	return true
}

// rgb8 returns the 8-bit components of c.
func rgb8(c color.Color) [3]uint8 {
	if c == nil {
		return [3]uint8{}
	}
	r, g, b, _ := c.RGBA()
	return [3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8)}
}

// appendSGR appends the SGR parameters that recreate pen, "0" first.
func appendSGR(dst []byte, pen *uv.Style) []byte {
	dst = append(dst, '0')
	attrs := []struct {
		bit  uint8
		code string
	}{
		{uv.AttrBold, "1"}, {uv.AttrFaint, "2"}, {uv.AttrItalic, "3"},
		{uv.AttrBlink, "5"}, {uv.AttrRapidBlink, "6"}, {uv.AttrReverse, "7"},
		{uv.AttrConceal, "8"}, {uv.AttrStrikethrough, "9"},
	}
	for _, a := range attrs {
		if pen.Attrs&a.bit != 0 {
			dst = append(dst, ';')
			dst = append(dst, a.code...)
		}
	}
	if pen.Underline != uv.UnderlineNone {
		dst = append(dst, ";4"...)
	}
	dst = appendSGRColor(dst, pen.Fg, 30)
	return appendSGRColor(dst, pen.Bg, 40)
}

// appendSGRColor appends the SGR parameters of an x/vt color (see
// repaint.AppendSGRColor).
func appendSGRColor(dst []byte, c color.Color, base int) []byte {
	return repaint.AppendSGRColor(dst, convertColor(c), base)
}
