package xvt

import (
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// Observer hooks mirror the state x/vt keeps unexported: they run before
// x/vt's default handler and return false so that it runs too. The ED
// hook is the exception: it replaces x/vt's for ED 1, 2 and 3.

// penState mirrors x/vt's SGR pen through saves, restores and screen
// switches: x/vt keeps a pen and a saved cursor per screen, copies the
// primary's cursor into the alternate screen on the way in and finds the
// primary's untouched on the way out.
type penState struct {
	pen     uv.Style
	saved   [2]uv.Style // DECSC slot of the primary and alternate screens
	primary uv.Style    // the primary's pen while the alternate is active
}

func (t *Terminal) registerObservers() {
	e := t.emu
	e.RegisterCsiHandler('m', func(p ansi.Params) bool {
		uv.ReadStyle(p, &t.pens.pen)
		return false
	})
	e.RegisterCsiHandler(ansi.Command(0, ' ', 'q'), t.decscusr)
	e.RegisterCsiHandler('r', t.decstbm)
	e.RegisterCsiHandler(ansi.Command('?', 0, 'h'), func(p ansi.Params) bool { return t.decMode(p, true) })
	e.RegisterCsiHandler(ansi.Command('?', 0, 'l'), func(p ansi.Params) bool { return t.decMode(p, false) })
	e.RegisterEscHandler('7', func() bool { t.savePen(); return false })
	e.RegisterEscHandler('8', func() bool { t.restorePen(); return false })
	e.RegisterCsiHandler('s', func(ansi.Params) bool {
		if !t.modes.dec(69) { // SCOSC unless left/right margins are on
			t.savePen()
		}
		return false
	})
	e.RegisterEscHandler('c', func() bool {
		t.pens, t.scusr, t.top, t.bottom, t.alt1049 = penState{}, 0, 0, 0, savedPos{}
		t.modes.reset()
		return false
	})
	e.RegisterCsiHandler('J', t.ed)
	for _, final := range []int{'L', 'M'} {
		e.RegisterCsiHandler(final, func(ansi.Params) bool {
			t.fixups = append(t.fixups, fixup{kind: fixRow, row: t.emu.CursorPosition().Y})
			return false
		})
	}
}

func (t *Terminal) screenIndex() int {
	if t.emu.IsAltScreen() {
		return 1
	}
	return 0
}

func (t *Terminal) savePen() {
	t.pens.saved[t.screenIndex()] = t.pens.pen
}
func (t *Terminal) restorePen() { t.pens.pen = t.pens.saved[t.screenIndex()] }

func (t *Terminal) decscusr(p ansi.Params) bool {
	if n, _, _ := p.Param(0, 0); n >= 0 && n <= 6 {
		t.scusr = n
	}
	return false
}

// decstbm mirrors the margins as x/vt's DECSTBM sets them.
func (t *Terminal) decstbm(p ansi.Params) bool {
	top, _, _ := p.Param(0, 1)
	bottom, _, _ := p.Param(1, t.rows)
	top = max(top, 1)
	if bottom < 1 {
		bottom = t.rows
	}
	bottom = min(bottom, t.rows)
	if top < bottom {
		t.top, t.bottom = top, bottom
		if top == 1 && bottom == t.rows {
			t.top, t.bottom = 0, 0
		}
	}
	return false
}

// decMode follows ?1047, ?1048 and ?1049 the way x/vt applies them, in
// parameter order. On the way into the alternate screen it copies the
// primary screen and cursor, which x/vt keeps out of reach until the way
// out.
func (t *Terminal) decMode(p ansi.Params, set bool) bool {
	alt := t.emu.IsAltScreen()
	idx := func() int {
		if alt {
			return 1
		}
		return 0
	}
	for _, v := range p {
		switch n := v.Param(0); n {
		case 6:
			t.fixups = append(t.fixups, fixup{kind: fixHome})
		case 1048:
			if set {
				t.pens.saved[idx()] = t.pens.pen
			} else {
				t.pens.pen = t.pens.saved[idx()]
			}
		case 1047, 1049:
			if set && n == 1049 {
				t.pens.saved[idx()] = t.pens.pen
			}
			switch {
			case set && !alt:
				pos := t.emu.CursorPosition()
				t.savedCol, t.savedRow = pos.X, pos.Y
				t.primary = t.cells(t.primary[:0])
				t.pens.primary = t.pens.pen
				t.fixups = append(t.fixups, fixup{kind: fixMargins}, fixup{kind: fixPosition, col: pos.X, row: pos.Y})
				if n == 1049 {
					t.alt1049 = savedPos{col: pos.X, row: pos.Y, ok: true}
				}
				alt = true
			case !set && alt:
				t.pens.pen = t.pens.primary
				t.fixups = append(t.fixups, fixup{kind: fixMargins})
				if n == 1047 {
					pos := t.emu.CursorPosition()
					t.fixups = append(t.fixups, fixup{kind: fixPosition, col: pos.X, row: pos.Y})
				}
				alt = false
			}
			if s := t.alt1049; !set && n == 1049 && s.ok {
				// ?1049l restores the cursor ?1049h saved, even outside the
				// alternate screen, as tmux does (x/vt restores nothing).
				t.fixups = append(t.fixups, fixup{kind: fixPosition, col: s.col, row: s.row})
			}
		}
	}
	return false
}

// ed replaces x/vt's ED 1, 2 and 3, which differ from xterm and tmux:
// x/vt's ED 1 erases the cursor's whole row, its ED 2 ignores the pen's
// background and keeps only the non-blank rows in the scrollback, and its
// ED 3 erases the screen as well as the scrollback. Here ED 1 erases
// through the cursor, ED 2 scrolls the rows up to the last non-blank one
// into the scrollback (on the primary screen, as tmux's scroll-on-clear
// does) and erases with the pen's background, and ED 3 clears only the
// scrollback.
func (t *Terminal) ed(p ansi.Params) bool {
	pos := t.emu.CursorPosition()
	switch n, _, _ := p.Param(0, 0); n {
	case 1:
		t.erase(0, pos.Y, t.cols)
		t.erase(pos.Y, pos.Y+1, min(pos.X+1, t.cols))
	case 2:
		if !t.emu.IsAltScreen() {
			t.pushScreen()
		}
		t.erase(0, t.rows, t.cols)
	case 3:
		t.emu.ClearScrollback()
	default:
		return false
	}
	return true
}

// erase blanks columns [0, cols) of rows [y0, y1) with the pen's
// background, as x/vt's own erases do.
func (t *Terminal) erase(y0, y1, cols int) {
	var blank *uv.Cell
	if bg := t.pens.pen.Bg; bg != nil {
		c := uv.EmptyCell
		c.Style.Bg = bg
		blank = &c
	}
	for y := y0; y < y1; y++ {
		for x := range cols {
			t.emu.SetCell(x, y, blank)
		}
	}
}

// pushScreen appends the rows of the screen up to its last non-blank one
// to the scrollback.
func (t *Terminal) pushScreen() {
	sb := t.emu.Scrollback()
	if sb == nil {
		return
	}
	last := -1
	for y := range t.rows {
		for x := range t.cols {
			if c := t.emu.CellAt(x, y); c != nil && ((c.Content != " " && c.Content != "") || c.Style.Bg != nil) {
				last = y
				break
			}
		}
	}
	for y := 0; y <= last; y++ {
		line := make(uv.Line, t.cols)
		for x := range line {
			if c := t.emu.CellAt(x, y); c != nil {
				line[x] = *c
			} else {
				line[x] = uv.EmptyCell
			}
		}
		sb.Push(line)
	}
}
