package engine

import (
	"unicode/utf8"

	"github.com/ptyhost/ptyhost/attachwire"
)

// Scrollback lines are stored encoded, one byte slice per line, so that a
// line of mostly plain text costs about a byte per cell:
//
//	rune       its UTF-8 bytes (lead byte < 0xF5)
//	0xFC lo hi r  the next (lo | hi<<8) cells are the rune r
//	0xFD       a wide glyph's continuation cell (base colors)
//	0xFE n b…  a multi-rune grapheme cluster of n bytes
//	0xFF s f b attribute change: style byte, then fg and bg colors, each a
//	           kind byte (0 default, 1 indexed + 1 byte, 2 RGB + 3 bytes)
//
// A line starts with default attributes; trailing default blanks are
// dropped.
const (
	sbRepeat  = 0xFC
	sbCont    = 0xFD
	sbCluster = 0xFE
	sbAttr    = 0xFF
)

type sbLine struct {
	b       []byte
	wrapped bool
}

// rawLines is how many of the newest scrollback lines are kept as cells.
// A line scrolling off the screen swaps its row buffer with the oldest
// raw line's (O(1)); only lines older than this are encoded, so a host
// with a short scrollback never encodes at all.
const rawLines = 256

// scrollback is a bounded ring of lines, oldest first: the newest (up to
// rawLines) as cell rows, the older ones encoded. Buffers are reused once
// the rings are full.
type scrollback struct {
	max int // lines kept in all

	raw      []line // ring of the newest lines
	rawStart int
	rawN     int

	enc      []sbLine // ring of the older lines, encoded
	encStart int
	encN     int

	tmp []byte
	// work counts cells encoded, for the engine's work bound.
	work uint64
	// pushed counts the lines that ever entered the ring, and changed
	// the changes to it other than a push (a reset, a line pulled back
	// or rewrapped by a resize): History reports both, so that a
	// renderer appends what was pushed and repaints the rest.
	pushed, changed uint64
}

func (s *scrollback) len() int { return s.encN + s.rawN }

func (s *scrollback) rawMax() int { return min(s.max, rawLines) }

func ringIndex(start, i, n int) int {
	j := start + i
	if j >= n {
		j -= n
	}
	return j
}

// line returns the i-th line, oldest first: either its cells or its
// encoded bytes.
func (s *scrollback) line(i int) (cells []cell, enc []byte, wrapped bool) {
	if i < s.encN {
		l := &s.enc[ringIndex(s.encStart, i, len(s.enc))]
		return nil, l.b, l.wrapped
	}
	l := &s.raw[ringIndex(s.rawStart, i-s.encN, len(s.raw))]
	return l.cells, nil, l.wrapped
}

// rawLine returns the i-th line when it is kept as cells, else nil.
func (s *scrollback) rawLine(i int) *line {
	if i < s.encN {
		return nil
	}
	return &s.raw[ringIndex(s.rawStart, i-s.encN, len(s.raw))]
}

func (s *scrollback) reset() {
	for i := range s.enc {
		s.enc[i].b = s.enc[i].b[:0]
	}
	s.encStart, s.encN = 0, 0
	s.resetRaw()
}

// resetRaw drops the raw lines, keeping the encoded ones.
func (s *scrollback) resetRaw() {
	s.rawStart, s.rawN = 0, 0
	s.changed++
}

// push moves a screen line into the ring and gives the screen a
// recycled buffer of the same length in its place, holding no stored
// cells (n = 0). Without scrollback the line just stays.
func (s *scrollback) push(l *line, ct *clusters) {
	var slot int
	if n := s.rawN; n == s.max && n == len(s.raw) && n > 0 && n <= rawLines {
		// The usual case, inline: a full ring of raw lines and nothing
		// older to encode; the oldest line's buffers are recycled.
		slot = s.rawStart
		s.rawStart = ringIndex(slot, 1, n)
	} else {
		var ok bool
		if slot, ok = s.slot(ct); !ok {
			return
		}
	}
	s.swapIn(slot, l)
	s.pushed++
}

// swapIn moves l into raw slot slot and gives l the buffers the slot
// held, as push describes.
func (s *scrollback) swapIn(slot int, l *line) {
	// Field by field, not through line values: a line built in a
	// temporary and then copied whole is stored in 8-byte words and
	// reloaded in 16-byte ones, which stalls store forwarding (a third
	// of push's time in a profile of the mixed stream).
	r := &s.raw[slot]
	cells, text, spans := r.cells, r.text[:0], r.spans[:0]
	*r = *l
	if len(cells) != len(l.cells) {
		cells = make([]cell, len(l.cells))
	}
	l.cells, l.text, l.spans = cells, text, spans
	l.n, l.fill, l.wrapped, l.spanned = 0, cell{c: ' '}, false, false
}

// place puts l, which the ring then owns, as the newest line.
func (s *scrollback) place(l line, ct *clusters) {
	if slot, ok := s.slot(ct); ok {
		s.raw[slot] = l
	}
}

// slot makes room for a newest raw line and returns its slot; ok is
// false without scrollback.
func (s *scrollback) slot(ct *clusters) (slot int, ok bool) {
	rm := s.rawMax()
	if rm <= 0 {
		return 0, false
	}
	switch {
	case s.rawN < len(s.raw):
		slot = ringIndex(s.rawStart, s.rawN, len(s.raw))
		s.rawN++
	case s.rawN < rm:
		s.raw = append(s.raw, line{})
		slot = len(s.raw) - 1
		s.rawN++
	default:
		// Full: the oldest raw line is encoded (or dropped) and its
		// buffer recycled.
		slot = s.rawStart
		s.pushEncoded(&s.raw[slot], ct)
		s.rawStart = ringIndex(s.rawStart, 1, len(s.raw))
	}
	return slot, true
}

// pushEncoded appends an encoded line to the older ring, evicting the
// oldest when full.
func (s *scrollback) pushEncoded(src *line, ct *clusters) {
	em := s.max - s.rawMax()
	if em <= 0 {
		return
	}
	s.tmp = encodeLine(s.tmp[:0], src, ct)
	s.work += uint64(min(src.n, len(src.cells)) + len(src.text) + 1)
	var l *sbLine
	switch {
	case s.encN < len(s.enc):
		l = &s.enc[ringIndex(s.encStart, s.encN, len(s.enc))]
		s.encN++
	case s.encN < em:
		s.enc = append(s.enc, sbLine{})
		l = &s.enc[len(s.enc)-1]
		s.encN++
	default:
		l = &s.enc[s.encStart]
		s.encStart = ringIndex(s.encStart, 1, len(s.enc))
	}
	if cap(l.b) < len(s.tmp) {
		l.b = make([]byte, 0, len(s.tmp))
	}
	l.b = append(l.b[:0], s.tmp...)
	l.wrapped = src.wrapped
}

// popNewest removes the newest line and returns it (valid until the next
// push), for a resize that pulls history back onto the screen: raw when
// it is kept as cells, else enc.
func (s *scrollback) popNewest() (raw *line, enc []byte, wrapped bool, ok bool) {
	if s.len() == 0 {
		return nil, nil, false, false
	}
	raw = s.rawLine(s.len() - 1)
	_, enc, wrapped = s.line(s.len() - 1)
	if s.rawN > 0 {
		s.rawN--
	} else {
		s.encN--
	}
	s.changed++
	return raw, enc, wrapped, true
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

// lineCells returns the cells of l with its implicit tail, trailing
// default blanks dropped: the stored cells, then how many copies of
// l.fill follow.
func lineCells(l *line) (stored []cell, fills int) {
	if l.fill != (cell{c: ' '}) {
		return l.cells[:l.n], len(l.cells) - l.n
	}
	end := l.n
	for end > 0 && l.cells[end-1] == (cell{c: ' '}) {
		end--
	}
	return l.cells[:end], 0
}

// encodeLine appends the encoding of l, in either form.
func encodeLine(dst []byte, l *line, ct *clusters) []byte {
	if l.spanned {
		return encodeSpanLine(dst, l)
	}
	stored, fills := lineCells(l)
	dst = encodeCells(dst, stored, fills, l.fill, ct)
	return dst
}

// encodeSpanLine is encodeLine for a row in span form, giving the bytes
// encodeCells gives for the same cells: printable ASCII is its own UTF-8.
func encodeSpanLine(dst []byte, l *line) []byte {
	end, fills := l.spanContent()
	var cur pen
	attrs := func(p pen) {
		if p != cur {
			cur = p
			dst = append(dst, sbAttr, byte(p.style))
			dst = appendColor(dst, p.fg)
			dst = appendColor(dst, p.bg)
		}
	}
	for k, s := range l.spans {
		if int(s.at) >= end {
			break
		}
		attrs(s.p)
		dst = append(dst, l.text[s.at:min(l.runEnd(k), end)]...)
	}
	if fills > 0 {
		attrs(fillPen(l.fill))
		dst = append(dst, sbRepeat, byte(fills), byte(fills>>8), byte(l.fill.c&runeMask))
	}
	return dst
}

func encodeCells(dst []byte, cells []cell, fills int, fillCell cell, ct *clusters) []byte {
	var cur cell // style bits in c, colors; starts at defaults
	attrs := func(c cell) {
		st := c.c &^ (runeMask | clusterBit | wideBit | padBit)
		if c.c&contStyle != 0 {
			st = cur.c // a continuation takes its base's attributes
		}
		if st != cur.c || c.fg != cur.fg || c.bg != cur.bg {
			cur = cell{c: st, fg: c.fg, bg: c.bg}
			dst = append(dst, sbAttr, byte(st>>styleShift))
			dst = appendColor(dst, c.fg)
			dst = appendColor(dst, c.bg)
		}
	}
	for _, c := range cells {
		attrs(c)
		switch {
		case c.c&contStyle != 0:
			dst = append(dst, sbCont)
		case c.c&clusterBit != 0:
			s := ct.get(c.c & runeMask)
			dst = append(dst, sbCluster, byte(len(s)))
			dst = append(dst, s...)
		default:
			dst = utf8.AppendRune(dst, rune(c.c&runeMask))
		}
	}
	if fills > 0 {
		// The implicit tail is one run: encoding it is O(1).
		attrs(fillCell)
		dst = append(dst, sbRepeat, byte(fills), byte(fills>>8))
		dst = utf8.AppendRune(dst, rune(fillCell.c&runeMask))
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
		case sbRepeat:
			if len(b) < 4 {
				return dst
			}
			n := int(b[1]) | int(b[2])<<8
			r, size := utf8.DecodeRune(b[3:])
			b = b[3+size:]
			c := cur
			c.Content = runeContent(r, "")
			for range n {
				dst = append(dst, c)
			}
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
