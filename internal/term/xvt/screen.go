package xvt

import (
	"image/color"
	"strings"
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term"
)

// Screen fills dst with the current screen. It leaves dst.Epoch and
// dst.Echo alone and reuses dst's slices.
func (t *Terminal) Screen(dst *attachwire.Screen) {
	dst.Cols, dst.Rows = t.cols, t.rows
	pos := t.emu.CursorPosition()
	dst.CursorCol, dst.CursorRow = pos.X, pos.Y
	dst.CursorVisible = !t.emu.CursorHidden()
	dst.CursorShape = term.CursorShape(t.scusr)
	dst.Modes, dst.Mouse = t.modes.screenModes()
	if t.pendingWrap() {
		dst.Modes |= attachwire.ModePendingWrap
	}
	if t.emu.IsAltScreen() {
		dst.Active = attachwire.BufferAlternate
		dst.Primary = append(dst.Primary[:0], t.primary...)
		dst.Alt = t.cells(dst.Alt[:0])
		dst.SavedCursorCol, dst.SavedCursorRow = t.savedCol, t.savedRow
	} else {
		dst.Active = attachwire.BufferPrimary
		dst.Primary = t.cells(dst.Primary[:0])
		dst.Alt = nil
		dst.SavedCursorCol, dst.SavedCursorRow = pos.X, pos.Y
	}
	dst.Scrollback = t.scrollback(dst.Scrollback[:0])
}

// pendingWrap derives the pending-wrap state x/vt keeps to itself: the
// filter counts the printable characters since the last byte that moved
// the cursor, and the run's start column is read from x/vt when it begins.
// An all-ASCII run of n characters from column x0 with autowrap on leaves
// the cursor pending exactly when it filled the last column: n ≥ cols−x0
// and (n − (cols−x0)) is a multiple of cols. A run with other characters
// (widths vary) is reported as not pending.
func (t *Terminal) pendingWrap() bool {
	f := &t.f
	if f.wrapNext {
		return true
	}
	if !f.inRun || !f.runASCII || f.runN == 0 || !t.modes.dec(7) {
		return false
	}
	first := t.cols - t.runX0
	return f.runN >= first && (f.runN-first)%t.cols == 0 && t.emu.CursorPosition().X == t.cols-1
}

// cells appends the active screen's cells to dst, row-major.
func (t *Terminal) cells(dst []attachwire.Cell) []attachwire.Cell {
	for y := range t.rows {
		wide := 0 // continuation cells still owed to a wide glyph
		var base attachwire.Cell
		for x := range t.cols {
			c := t.emu.CellAt(x, y)
			if wide > 0 {
				wide--
				dst = append(dst, attachwire.Cell{Style: attachwire.StyleWideCont, Fg: base.Fg, Bg: base.Bg})
				continue
			}
			base = convertCell(c)
			dst = append(dst, base)
			if c != nil && c.Width > 1 && base.Content != " " {
				wide = c.Width - 1
			}
		}
	}
	return dst
}

// scrollback returns up to Options.Scrollback of the primary's scrolled-off
// lines, oldest first, with trailing blanks trimmed as x/vt stores them.
func (t *Terminal) scrollback(dst [][]attachwire.Cell) [][]attachwire.Cell {
	sb := t.emu.Scrollback()
	if sb == nil || t.opts.Scrollback == 0 {
		return dst
	}
	n := sb.Len()
	old := dst[:cap(dst)] // reuse the line buffers of an earlier snapshot
	for i := max(n-t.opts.Scrollback, 0); i < n; i++ {
		line := sb.Line(i)
		var cells []attachwire.Cell
		if k := len(dst); k < len(old) {
			cells = old[k][:0]
		}
		wide := 0
		var base attachwire.Cell
		for x := range line {
			if wide > 0 {
				wide--
				cells = append(cells, attachwire.Cell{Style: attachwire.StyleWideCont, Fg: base.Fg, Bg: base.Bg})
				continue
			}
			base = convertCell(&line[x])
			cells = append(cells, base)
			if line[x].Width > 1 && base.Content != " " {
				wide = line[x].Width - 1
			}
		}
		dst = append(dst, cells)
	}
	return dst
}

// convertCell maps an x/vt cell to a snapshot cell. A placeholder that
// belongs to no wide glyph becomes a blank.
func convertCell(c *uv.Cell) attachwire.Cell {
	if c == nil || c.Width == 0 {
		return attachwire.BlankCell()
	}
	out := attachwire.Cell{
		Content: sanitize(c.Content),
		Fg:      convertColor(c.Style.Fg),
		Bg:      convertColor(c.Style.Bg),
	}
	a := c.Style.Attrs
	for _, m := range [...]struct {
		bit   uint8
		style attachwire.Style
	}{
		{uv.AttrBold, attachwire.StyleBold}, {uv.AttrFaint, attachwire.StyleDim},
		{uv.AttrItalic, attachwire.StyleItalic}, {uv.AttrReverse, attachwire.StyleReverse},
		{uv.AttrStrikethrough, attachwire.StyleStrikethrough},
	} {
		if a&m.bit != 0 {
			out.Style |= m.style
		}
	}
	if c.Style.Underline != uv.UnderlineNone {
		out.Style |= attachwire.StyleUnderline
	}
	return out
}

// sanitize makes s a valid cell content: valid UTF-8 without C0, DEL or C1
// code points (each becomes U+FFFD), never empty.
func sanitize(s string) string {
	if s == "" {
		return " "
	}
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || r < 0x20 || (r >= 0x7f && r < 0xa0) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 || (r >= 0x7f && r < 0xa0) {
			r = utf8.RuneError
		}
		b.WriteRune(r)
	}
	return b.String()
}

// convertColor maps an x/vt color to a snapshot color: the 16 ANSI colors
// and the 256-color palette stay indexed, anything else becomes RGB, nil
// (and transparent) is the default.
func convertColor(c color.Color) attachwire.Color {
	switch c := c.(type) {
	case nil:
		return attachwire.DefaultColor
	case ansi.BasicColor:
		return attachwire.IndexedColor(uint8(c))
	case ansi.IndexedColor:
		return attachwire.IndexedColor(uint8(c))
	}
	r, g, b, a := c.RGBA()
	if a == 0 {
		return attachwire.DefaultColor
	}
	return attachwire.RGBColor(uint8(r>>8), uint8(g>>8), uint8(b>>8))
}

// resizeCells resizes a row-major grid the way x/vt resizes its buffers:
// the top-left corner stays, new cells are blank.
func resizeCells(cells []attachwire.Cell, cols, rows, ncols, nrows int) []attachwire.Cell {
	out := make([]attachwire.Cell, 0, ncols*nrows)
	for y := range nrows {
		for x := range ncols {
			if y < rows && x < cols && y*cols+x < len(cells) {
				out = append(out, cells[y*cols+x])
			} else {
				out = append(out, attachwire.BlankCell())
			}
		}
	}
	return out
}
