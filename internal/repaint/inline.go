package repaint

import "github.com/ptyhost/ptyhost/attachwire"

// AppendInline appends a screenshot of s's active buffer as lines of text:
// each row's cells with their attributes and colors (SGR), blanks as
// spaces, trailing blanks and the blank rows at the bottom left out, every
// line ending with the default pen and "\n". It writes no cursor movement,
// no mode change and no erase, so printing it (cat) leaves a terminal as
// it found it, on the primary screen with its cursor below the picture,
// and it reads well in a pager that understands SGR (less -R). The
// cursor, the modes and the scrollback are not part of it. Cell contents
// that are not printable UTF-8 are written as U+FFFD.
func AppendInline(dst []byte, s *attachwire.Screen) []byte {
	if s.Cols <= 0 || s.Rows <= 0 {
		return dst
	}
	cells := s.Primary
	if s.Active == attachwire.BufferAlternate && s.Alt != nil {
		cells = s.Alt
	}
	rows := min(s.Rows, len(cells)/s.Cols)
	for rows > 0 && TrimBlanks(cells[(rows-1)*s.Cols:rows*s.Cols]) == 0 {
		rows--
	}
	p := painter{dst: dst, cols: s.Cols, pen: attachwire.BlankCell()}
	for y := range rows {
		row := cells[y*s.Cols : (y+1)*s.Cols]
		for _, c := range row[:TrimBlanks(row)] {
			if c.Content == "" { // continuation: the base glyph covered it
				continue
			}
			p.sgr(c)
			p.text(c.Content)
		}
		p.sgr(attachwire.BlankCell())
		p.dst = append(p.dst, '\n')
	}
	return p.dst
}
