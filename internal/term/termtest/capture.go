package termtest

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/ptyhost/ptyhost/attachwire"
)

// ParseCapture turns the output of tmux capture-pane -p -e -N for a
// cols×rows pane into a Grid (cursor unknown). It understands the SGR
// sequences tmux writes (attributes, 30-37/90-97/38;5/38;2 and the
// background forms, in ';' or ':' notation), maps the ASCII tmux writes
// between SO and SI for line-drawing cells to the Unicode glyphs, and skips
// any other escape sequence. A glyph of width 2 is followed by a continuation cell;
// zero-width code points join the previous cell.
func ParseCapture(cols, rows int, capture []byte) (Grid, error) {
	g := NewGrid(cols, rows)
	lines := bytes.Split(bytes.TrimSuffix(capture, []byte("\n")), []byte("\n"))
	if len(lines) > rows {
		return g, fmt.Errorf("termtest: capture has %d lines for %d rows", len(lines), rows)
	}
	g.Extent = make([]int, rows)
	var pen Cell
	acs := false // between SO and SI: tmux writes line-drawing cells as ASCII
	for r, line := range lines {
		col := 0
		for i := 0; i < len(line); {
			switch line[i] {
			case 0x1b:
				i += applyEscape(line[i:], &pen)
				continue
			case 0x0e, 0x0f:
				acs = line[i] == 0x0e
				i++
				continue
			}
			ru, size := utf8.DecodeRune(line[i:])
			i += size
			if acs && ru >= 0x5f && ru <= 0x7e {
				ru = decGraphics[ru-0x5f]
			}
			w := ansi.StringWidth(string(ru))
			if w == 0 {
				if col > 0 {
					prev := &g.Cells[r*cols+col-1]
					if prev.Text == "" && col > 1 {
						prev = &g.Cells[r*cols+col-2]
					}
					prev.Text += string(ru)
				}
				continue
			}
			if col+w > cols {
				return g, fmt.Errorf("termtest: capture line %d is wider than %d columns", r, cols)
			}
			g.Cells[r*cols+col] = Cell{Text: string(ru), Attrs: pen.Attrs, Fg: pen.Fg, Bg: pen.Bg}
			for k := 1; k < w; k++ {
				g.Cells[r*cols+col+k] = Cell{Attrs: pen.Attrs, Fg: pen.Fg, Bg: pen.Bg}
			}
			col += w
		}
		g.Extent[r] = col
	}
	return g, nil
}

// decGraphics maps 0x5f-0x7e of the DEC Special Graphics set to Unicode.
var decGraphics = [...]rune{
	' ', '◆', '▒', '␉', '␌', '␍', '␊', '°', '±', '␤', '␋', '┘', '┐', '┌', '└', '┼',
	'⎺', '⎻', '─', '⎼', '⎽', '├', '┤', '┴', '┬', '│', '≤', '≥', 'π', '≠', '£', '·',
}

// applyEscape applies the escape sequence at the start of p to pen if it
// is an SGR, and returns its length.
func applyEscape(p []byte, pen *Cell) int {
	if len(p) < 2 || p[1] != '[' {
		return min(2, len(p))
	}
	end := 2
	for end < len(p) && (p[end] < 0x40 || p[end] > 0x7e) {
		end++
	}
	if end == len(p) {
		return end
	}
	if p[end] == 'm' {
		applySGR(p[2:end], pen)
	}
	return end + 1
}

// applySGR applies SGR parameters ("1;38;5;208", "38:2::1:2:3", "") to pen.
func applySGR(params []byte, pen *Cell) {
	groups := bytes.Split(params, []byte(";"))
	num := func(b []byte) int {
		n, err := strconv.Atoi(string(b))
		if err != nil {
			return 0
		}
		return n
	}
	for i := 0; i < len(groups); i++ {
		sub := bytes.Split(groups[i], []byte(":"))
		code := num(sub[0])
		switch {
		case code == 0:
			*pen = Cell{}
		case code == 38 || code == 48:
			var vals []int
			if len(sub) > 1 {
				// Colon form: 38:5:n or 38:2:[colorspace]:r:g:b.
				for _, s := range sub[1:] {
					vals = append(vals, num(s))
				}
				if len(vals) == 5 && vals[0] == 2 {
					vals = append(vals[:1], vals[2:]...)
				}
			} else {
				for j := i + 1; j < len(groups) && j <= i+4; j++ {
					vals = append(vals, num(groups[j]))
				}
			}
			var c attachwire.Color
			switch {
			case len(vals) >= 2 && vals[0] == 5:
				c = attachwire.IndexedColor(uint8(vals[1]))
				if len(sub) == 1 {
					i += 2
				}
			case len(vals) >= 4 && vals[0] == 2:
				c = attachwire.RGBColor(uint8(vals[1]), uint8(vals[2]), uint8(vals[3]))
				if len(sub) == 1 {
					i += 4
				}
			default:
				continue
			}
			if code == 38 {
				pen.Fg = c
			} else {
				pen.Bg = c
			}
		default:
			applySimpleSGR(code, len(sub) > 1 && num(sub[1]) == 0, pen)
		}
	}
}

func applySimpleSGR(code int, subZero bool, pen *Cell) {
	switch {
	case code == 1:
		pen.Attrs |= attachwire.StyleBold
	case code == 2:
		pen.Attrs |= attachwire.StyleDim
	case code == 3:
		pen.Attrs |= attachwire.StyleItalic
	case code == 4 && subZero:
		pen.Attrs &^= attachwire.StyleUnderline
	case code == 4 || code == 21:
		pen.Attrs |= attachwire.StyleUnderline
	case code == 7:
		pen.Attrs |= attachwire.StyleReverse
	case code == 9:
		pen.Attrs |= attachwire.StyleStrikethrough
	case code == 22:
		pen.Attrs &^= attachwire.StyleBold | attachwire.StyleDim
	case code == 23:
		pen.Attrs &^= attachwire.StyleItalic
	case code == 24:
		pen.Attrs &^= attachwire.StyleUnderline
	case code == 27:
		pen.Attrs &^= attachwire.StyleReverse
	case code == 29:
		pen.Attrs &^= attachwire.StyleStrikethrough
	case code >= 30 && code <= 37:
		pen.Fg = attachwire.IndexedColor(uint8(code - 30))
	case code == 39:
		pen.Fg = attachwire.DefaultColor
	case code >= 40 && code <= 47:
		pen.Bg = attachwire.IndexedColor(uint8(code - 40))
	case code == 49:
		pen.Bg = attachwire.DefaultColor
	case code >= 90 && code <= 97:
		pen.Fg = attachwire.IndexedColor(uint8(code - 90 + 8))
	case code >= 100 && code <= 107:
		pen.Bg = attachwire.IndexedColor(uint8(code - 100 + 8))
	}
}
