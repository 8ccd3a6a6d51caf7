package engine

import (
	"unicode/utf8"

	"github.com/ptyhost/ptyhost/attachwire"
)

// Scrollback lines are stored encoded, one byte slice per line, so that a
// line of mostly plain text costs about a byte per cell:
//
//	rune       its UTF-8 bytes (lead byte < 0xF5)
//	0xFD       a wide glyph's continuation cell (base colors)
//	0xFE n b…  a multi-rune grapheme cluster of n bytes
//	0xFF s f b attribute change: style byte, then fg and bg colors, each a
//	           kind byte (0 default, 1 indexed + 1 byte, 2 RGB + 3 bytes)
//
// A line starts with default attributes; trailing default blanks are
// dropped.
const (
	sbCont    = 0xFD
	sbCluster = 0xFE
	sbAttr    = 0xFF
)

type sbLine struct {
	b       []byte
	wrapped bool
}

// scrollback is a bounded ring of encoded lines, oldest first. Once full,
// pushing reuses the oldest line's buffer.
type scrollback struct {
	lines    []sbLine
	start, n int
	max      int
	tmp      []byte
}

func (s *scrollback) len() int { return s.n }

// at returns the i-th line, oldest first.
func (s *scrollback) at(i int) *sbLine {
	j := s.start + i
	if j >= len(s.lines) {
		j -= len(s.lines)
	}
	return &s.lines[j]
}

func (s *scrollback) reset() {
	for i := range s.lines {
		s.lines[i].b = s.lines[i].b[:0]
	}
	s.start, s.n = 0, 0
}

// push appends a line, evicting the oldest one when full.
func (s *scrollback) push(cells []cell, wrapped bool, ct *clusters) {
	if s.max <= 0 {
		return
	}
	s.tmp = encodeLine(s.tmp[:0], cells, ct)
	var slot *sbLine
	switch {
	case s.n < len(s.lines):
		slot = s.at(s.n)
		s.n++
	case s.n < s.max:
		s.lines = append(s.lines, sbLine{})
		slot = &s.lines[len(s.lines)-1]
		s.n++
	default:
		slot = &s.lines[s.start]
		s.start++
		if s.start == len(s.lines) {
			s.start = 0
		}
	}
	if cap(slot.b) < len(s.tmp) {
		// Round up so that a reused slot rarely has to grow again.
		slot.b = make([]byte, 0, (len(s.tmp)+31)&^31)
	}
	slot.b = append(slot.b[:0], s.tmp...)
	slot.wrapped = wrapped
}

// popNewest removes and returns the newest line's bytes (valid until the
// next push) for a resize that pulls history back onto the screen.
func (s *scrollback) popNewest() (sbLine, bool) {
	if s.n == 0 {
		return sbLine{}, false
	}
	s.n--
	return *s.at(s.n), true
}

func appendColor(dst []byte, c attachwire.Color) []byte {
	switch c.Kind() {
	case attachwire.ColorIndexed:
		return append(dst, 1, c.Index())
	case attachwire.ColorRGB:
		r, g, b := c.RGB()
		return append(dst, 2, r, g, b)
	default:
		return append(dst, 0)
	}
}

func encodeLine(dst []byte, cells []cell, ct *clusters) []byte {
	end := len(cells)
	for end > 0 && cells[end-1] == (cell{c: ' '}) {
		end--
	}
	var cur cell // style bits in c, colors; starts at defaults
	for _, c := range cells[:end] {
		st := c.c &^ (runeMask | clusterBit | wideBit)
		if c.c&contStyle != 0 {
			st = cur.c // a continuation takes its base's attributes
		}
		if st != cur.c || c.fg != cur.fg || c.bg != cur.bg {
			cur = cell{c: st, fg: c.fg, bg: c.bg}
			dst = append(dst, sbAttr, byte(st>>styleShift))
			dst = appendColor(dst, c.fg)
			dst = appendColor(dst, c.bg)
		}
		switch {
		case c.c&contStyle != 0:
			dst = append(dst, sbCont)
		case c.c&clusterBit != 0:
			s := ct.get(c.c & runeMask)
			dst = append(dst, sbCluster, byte(len(s)))
			dst = append(dst, s...)
		default:
			r := c.c & runeMask
			if r < utf8.RuneSelf {
				dst = append(dst, byte(r))
			} else {
				dst = utf8.AppendRune(dst, rune(r))
			}
		}
	}
	return dst
}

func readColor(b []byte) (attachwire.Color, []byte) {
	if len(b) == 0 {
		return 0, b
	}
	switch b[0] {
	case 1:
		if len(b) >= 2 {
			return attachwire.IndexedColor(b[1]), b[2:]
		}
	case 2:
		if len(b) >= 4 {
			return attachwire.RGBColor(b[1], b[2], b[3]), b[4:]
		}
	}
	return 0, b[1:]
}

// decodeLine appends the cells of an encoded line to dst.
func decodeLine(dst []attachwire.Cell, b []byte) []attachwire.Cell {
	var cur attachwire.Cell
	for len(b) > 0 {
		switch b[0] {
		case sbAttr:
			if len(b) < 2 {
				return dst
			}
			cur.Style = attachwire.Style(b[1])
			cur.Fg, b = readColor(b[2:])
			cur.Bg, b = readColor(b)
		case sbCont:
			dst = append(dst, attachwire.Cell{Style: attachwire.StyleWideCont, Fg: cur.Fg, Bg: cur.Bg})
			b = b[1:]
		case sbCluster:
			if len(b) < 2 || len(b) < 2+int(b[1]) {
				return dst
			}
			c := cur
			c.Content = string(b[2 : 2+b[1]])
			dst = append(dst, c)
			b = b[2+b[1]:]
		default:
			c := cur
			if b[0] < utf8.RuneSelf {
				c.Content = asciiContent(b[0])
				b = b[1:]
			} else {
				_, n := utf8.DecodeRune(b)
				c.Content = string(b[:n])
				b = b[n:]
			}
			dst = append(dst, c)
		}
	}
	return dst
}
