package engine

import "github.com/ptyhost/ptyhost/attachwire"

// cell is one grid position in 12 bytes and no pointer. c packs the content
// and the style: bits 0-20 hold a rune, or an index into the cluster table
// when clusterBit is set; bits 24-31 hold the attachwire.Style bits. A wide
// glyph's continuation cell has rune 0 and attachwire.StyleWideCont.
type cell struct {
	c      uint32
	fg, bg attachwire.Color
}

const (
	runeMask   = 0x1FFFFF
	clusterBit = 1 << 21
	styleShift = 24
	contStyle  = uint32(attachwire.StyleWideCont) << styleShift
)

func (c cell) style() attachwire.Style { return attachwire.Style(c.c >> styleShift) }

func (c cell) isCont() bool { return c.c&contStyle != 0 }

// blankCell returns the cell an erase leaves: a space in the given
// background (background color erase, as xterm and tmux do).
func blankCell(bg attachwire.Color) cell { return cell{c: ' ', bg: bg} }

// pen holds the attributes SGR sets and printing applies.
type pen struct {
	style  attachwire.Style
	fg, bg attachwire.Color
}

// cellFor returns the cell printing content (a rune, or clusterBit|index)
// with the pen's attributes.
func (p pen) cellFor(content uint32) cell {
	return cell{c: content | uint32(p.style)<<styleShift, fg: p.fg, bg: p.bg}
}
