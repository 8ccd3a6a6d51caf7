package attachwire

import (
	"encoding"
	"encoding/binary"
	"math/bits"
	"slices"
	"unicode/utf8"
)

// MaxScreenDim is the largest Cols or Rows a Screen may have on the wire.
// Larger values are framing errors on encode and decode.
const MaxScreenDim = 1<<16 - 1

// MaxScrollbackLines is the most scrollback lines a Screen may carry on
// the wire; more is a framing error on encode and decode. It matches the
// host's own cap (ptyhost.MaxScrollback). An empty line costs one byte on
// the wire but a 24-byte slice header decoded, so without a cap a small
// snapshot of empty lines would decode to many times its size.
const MaxScrollbackLines = 100_000

// minCellLen is the shortest encoded cell: a continuation cell
// (runeLen 0, style, fg 0x00, bg 0x00). Decoders multiply a cell count by
// it to check the count against the remaining input before allocating.
const minCellLen = 4

// printableASCII holds the characters 0x20-0x7E in order. Decoders slice
// it to get a one-byte cell content without allocating a string per cell.
const printableASCII = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~"

var (
	_ encoding.BinaryAppender    = (*Screen)(nil)
	_ encoding.BinaryMarshaler   = (*Screen)(nil)
	_ encoding.BinaryUnmarshaler = (*Screen)(nil)
)

// Validate reports whether s can be encoded in format 0x01, returning the
// first defect as a *FramingError. A valid Screen has:
//   - Cols and Rows in [1, MaxScreenDim], len(Primary) == Rows*Cols, and
//     Alt either nil or of the same length; Alt non-nil when Active is
//     BufferAlternate;
//   - Echo one of EchoOff, EchoOn, EchoUnknown; Active one of the two
//     buffers; CursorShape at most CursorBar;
//   - the cursor and the saved cursor inside the grid: 0 <= row < Rows and
//     0 <= col < Cols. A cursor in the pending-wrap state sits on the last
//     column with ModePendingWrap set; the bit is not checked against the
//     column, and a repaint ignores it elsewhere;
//   - no reserved Modes bit; Mouse 0 unless ModeMouse is set, and then a
//     tracking nibble in 1-4 and an encoding of X10, UTF-8 or SGR;
//   - at most MaxScrollbackLines scrollback lines;
//   - valid cells: see Cell.
func (s *Screen) Validate() error {
	if err := s.validateHeader(); err != nil {
		return err
	}
	if len(s.Scrollback) > MaxScrollbackLines {
		return framingf("screen scrollback has %d lines, more than %d", len(s.Scrollback), MaxScrollbackLines)
	}
	n := s.Rows * s.Cols
	if len(s.Primary) != n {
		return framingf("screen primary has %d cells, want %d", len(s.Primary), n)
	}
	if s.Alt != nil && len(s.Alt) != n {
		return framingf("screen alt has %d cells, want %d", len(s.Alt), n)
	}
	if s.Active == BufferAlternate && s.Alt == nil {
		return framingf("screen alternate buffer is active but absent")
	}
	for _, c := range s.Primary {
		if err := c.validate(); err != nil {
			return err
		}
	}
	for _, c := range s.Alt {
		if err := c.validate(); err != nil {
			return err
		}
	}
	for _, line := range s.Scrollback {
		for _, c := range line {
			if err := c.validate(); err != nil {
				return err
			}
		}
	}
	return nil
}

// validateHeader checks every field before the grids.
func (s *Screen) validateHeader() error {
	switch {
	case s.Cols < 1 || s.Cols > MaxScreenDim || s.Rows < 1 || s.Rows > MaxScreenDim:
		return framingf("screen size %dx%d out of range", s.Cols, s.Rows)
	case s.Echo != EchoOff && s.Echo != EchoOn && s.Echo != EchoUnknown:
		return framingf("screen echoMode 0x%02x is undefined", uint8(s.Echo))
	case s.Active > BufferAlternate:
		return framingf("screen activeBuffer %d is undefined", s.Active)
	case s.CursorShape > CursorBar:
		return framingf("screen cursorShape %d is undefined", s.CursorShape)
	case s.Modes&modesReserved != 0:
		return framingf("screen modes 0x%02x set reserved bits", uint8(s.Modes))
	case s.CursorRow < 0 || s.CursorRow >= s.Rows || s.CursorCol < 0 || s.CursorCol >= s.Cols:
		return framingf("screen cursor (%d,%d) outside %dx%d", s.CursorRow, s.CursorCol, s.Cols, s.Rows)
	case s.SavedCursorRow < 0 || s.SavedCursorRow >= s.Rows || s.SavedCursorCol < 0 || s.SavedCursorCol >= s.Cols:
		return framingf("screen saved cursor (%d,%d) outside %dx%d", s.SavedCursorRow, s.SavedCursorCol, s.Cols, s.Rows)
	}
	return validMouse(s.Modes, s.Mouse)
}

// validMouse checks mouseProto against the mouse mode bit.
func validMouse(m Modes, p MouseProto) error {
	if m&ModeMouse == 0 {
		if p != 0 {
			return framingf("screen mouseProto 0x%02x without mouse mode", uint8(p))
		}
		return nil
	}
	if t := p.Tracking(); t < MouseX10 || t > MouseAny {
		return framingf("screen mouse tracking %d is undefined", t)
	}
	if p.Encoding() > MouseEncSGR {
		return framingf("screen mouse encoding 0x%02x is undefined", uint8(p.Encoding()))
	}
	return nil
}

// validate checks one cell: a continuation cell has empty Content and
// Style exactly StyleWideCont; any other cell has Content that is valid
// UTF-8 without C0, DEL or C1 code points and no reserved or continuation
// style bit; colors are well-formed.
func (c Cell) validate() error {
	if c.Content == "" {
		if c.Style != StyleWideCont {
			return framingf("screen cell with empty content has style 0x%02x, want 0x40", uint8(c.Style))
		}
	} else {
		if c.Style&(StyleWideCont|styleReserved) != 0 {
			return framingf("screen cell %q has style 0x%02x", c.Content, uint8(c.Style))
		}
		if !ValidCellContent(c.Content) {
			return framingf("screen cell content %q is not printable UTF-8", c.Content)
		}
	}
	if !c.Fg.valid() || !c.Bg.valid() {
		return framingf("screen cell colors 0x%08x/0x%08x are malformed", uint32(c.Fg), uint32(c.Bg))
	}
	return nil
}

// valid reports whether c is one of the three encodable forms.
func (c Color) valid() bool {
	switch c.Kind() {
	case ColorDefault:
		return c == DefaultColor
	case ColorIndexed:
		return c&colorValueMask <= 0xFF
	case ColorRGB:
		return true
	}
	return false
}

// ValidCellContent reports whether s may be a Cell's Content: non-empty,
// valid UTF-8 and free of C0, DEL and C1 code points. AppendScreen and
// DecodeScreen enforce it; a renderer that writes contents to a terminal
// as they are can rely on the same rule.
func ValidCellContent(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || (r >= 0x7F && r <= 0x9F) {
			return false
		}
	}
	return true
}

// validContent is ValidCellContent for bytes; it does not allocate.
func validContent(b []byte) bool {
	if len(b) == 0 || !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if r < 0x20 || (r >= 0x7F && r <= 0x9F) {
			return false
		}
	}
	return true
}

// AppendBinary appends the format 0x01 encoding of s (see AppendScreen).
func (s *Screen) AppendBinary(dst []byte) ([]byte, error) { return AppendScreen(dst, s) }

// MarshalBinary returns the format 0x01 encoding of s in a new slice.
func (s *Screen) MarshalBinary() ([]byte, error) { return AppendScreen(nil, s) }

// UnmarshalBinary decodes p (see DecodeScreen) into s. On error s is left
// unchanged. The result does not alias p.
func (s *Screen) UnmarshalBinary(p []byte) error {
	v, err := DecodeScreen(p)
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// AppendScreen appends the snapshot format 0x01 encoding of s to dst. It
// validates s as it goes (see Validate) and returns dst with its length
// unchanged and a *FramingError if s is invalid.
func AppendScreen(dst []byte, s *Screen) ([]byte, error) {
	return appendScreen(dst, s, false, 0)
}

// AppendScreenSnapshot appends the payload of a Snapshot frame showing s
// at atSeq: the bytes AppendSnapshot gives for NewSnapshot(atSeq, s),
// without encoding the screen apart first. Errors are AppendScreen's.
func AppendScreenSnapshot(dst []byte, atSeq uint64, s *Screen) ([]byte, error) {
	return appendScreen(dst, s, true, atSeq)
}

// appendScreen is AppendScreen, or AppendScreenSnapshot when snapshot is
// set.
func appendScreen(dst []byte, s *Screen, snapshot bool, atSeq uint64) ([]byte, error) {
	if err := s.validateHeader(); err != nil {
		return dst, err
	}
	n := s.Rows * s.Cols
	if len(s.Primary) != n || (s.Alt != nil && len(s.Alt) != n) || (s.Active == BufferAlternate && s.Alt == nil) || len(s.Scrollback) > MaxScrollbackLines {
		return dst, s.Validate()
	}
	cells := len(s.Primary) + len(s.Alt)
	for _, line := range s.Scrollback {
		cells += len(line)
	}
	var e ScreenEncoder
	buf := slices.Grow(dst, 48+5*cells+2*len(s.Scrollback))
	if snapshot {
		e.BeginSnapshot(buf, atSeq, s)
	} else {
		e.Begin(buf, s)
	}
	e.AppendCells(s.Primary)
	if s.Alt != nil {
		e.Alt()
		e.AppendCells(s.Alt)
	}
	e.Scrollback(len(s.Scrollback))
	for _, line := range s.Scrollback {
		e.Line(len(line))
		e.AppendCells(line)
	}
	out, err := e.Finish()
	if err != nil {
		return dst, err
	}
	return out, nil
}

// appendScreenHeader appends the fields before the grids: epoch, echo,
// size, active buffer, cursor, modes and saved cursor.
func appendScreenHeader(dst []byte, s *Screen) []byte {
	dst = appendUvarint(dst, s.Epoch)
	dst = append(dst, byte(s.Echo))
	dst = appendUvarint(dst, uint64(s.Cols))
	dst = appendUvarint(dst, uint64(s.Rows))
	dst = append(dst, byte(s.Active))
	dst = appendUvarint(dst, uint64(s.CursorRow))
	dst = appendUvarint(dst, uint64(s.CursorCol))
	dst = append(dst, b2u8(s.CursorVisible), byte(s.CursorShape), byte(s.Modes), byte(s.Mouse))
	dst = appendUvarint(dst, uint64(s.SavedCursorRow))
	dst = appendUvarint(dst, uint64(s.SavedCursorCol))
	return dst
}

// appendCells appends cells; ok is false if one is invalid (the caller
// then validates them to say which). A printable ASCII cell, the common case,
// is written by the inner loop, which calls nothing on its usual path so
// its state stays in registers; any other cell, colors that do not
// encode, or a buffer too short for the widest ASCII cell drop to the
// outer loop, which takes one cell and grows the buffer. The encoder's
// color state is kept in locals meanwhile (Fg and Bg are adjacent, so
// they compare as one word) and stored back on return.
func (e *ScreenEncoder) appendCells(dst []byte, cells []Cell) (_ []byte, ok bool) {
	lastColors, colorWord, colorLen := e.lastColors, e.colorWord, e.colorLen
	n := len(dst)
	buf := dst[:cap(dst)]
	for {
		i := 0
		for ; i < len(cells); i++ {
			c := &cells[i]
			if len(c.Content) != 1 {
				break
			}
			// Loaded once: a reload after the stores below would have to
			// assume they changed the cell.
			ch, style := c.Content[0], c.Style
			if ch-0x20 >= 0x7F-0x20 || style&(StyleWideCont|styleReserved) != 0 {
				break
			}
			if colors := uint64(c.Fg) | uint64(c.Bg)<<32; colors != lastColors {
				w, l, ok := encodeColors(c)
				if !ok {
					break
				}
				lastColors, colorWord, colorLen = colors, w, l
			}
			// The color word stores 8 bytes past the style, whatever
			// colorLen is.
			if len(buf)-n < 11 {
				break
			}
			b := buf[n : n+11]
			b[0], b[1], b[2] = 1, ch, byte(style)
			binary.LittleEndian.PutUint64(b[3:], colorWord)
			n += 3 + colorLen
		}
		if cells = cells[i:]; len(cells) == 0 {
			e.lastColors, e.colorWord, e.colorLen = lastColors, colorWord, colorLen
			return buf[:n], true
		}
		c := &cells[0]
		// Longest cell: runeLen (10), content, style and the 8-byte
		// color word; the inner loop wants 11 bytes for each of its cells.
		if need := 19 + len(c.Content); len(buf)-n < need {
			buf = slices.Grow(buf[:n], need+11*min(len(cells), 256))
			buf = buf[:cap(buf)]
		}
		m, ok := putCellHead(buf[n:], c, &e.glyph)
		if !ok {
			return buf[:n], false
		}
		n += m
		// A continuation cell has its base's colors, and a wide glyph
		// mostly those of the text around it.
		if colors := uint64(c.Fg) | uint64(c.Bg)<<32; colors != lastColors {
			w, l, ok := encodeColors(c)
			if !ok {
				return buf[:n], false
			}
			lastColors, colorWord, colorLen = colors, w, l
		}
		binary.LittleEndian.PutUint64(buf[n:], colorWord)
		n += colorLen
		cells = cells[1:]
	}
}

// encodeColors returns the encoding of c.Fg then c.Bg as a little-endian
// word and its length; ok is false if either is malformed. It takes the
// cell so that its caller's loop need not keep the colors live.
func encodeColors(c *Cell) (w uint64, n int, ok bool) {
	fw, fn := encodeColor(c.Fg)
	bw, bn := encodeColor(c.Bg)
	return uint64(fw) | uint64(bw)<<(8*fn), fn + bn, fn != 0 && bn != 0
}

// encodeColor returns the encoding of c as a little-endian word and its
// length, 0 if c is malformed.
func encodeColor(c Color) (w uint32, n int) {
	switch c.Kind() {
	case ColorDefault:
		if c == DefaultColor {
			return 0, 1
		}
	case ColorIndexed:
		if c&colorValueMask <= 0xFF {
			return uint32(ColorIndexed) | uint32(c.Index())<<8, 2
		}
	case ColorRGB:
		// The wire wants the tag, then r, g, b: c's bytes reversed.
		return bits.ReverseBytes32(uint32(c)), 4
	}
	return 0, 0
}

// putCellHead writes the runeLen, content and style of any cell at the
// start of b, which has room for them, and returns their length; ok is
// false if c is invalid apart from its colors. glyph is the last content
// putCellHead validated: wide glyphs and box drawing repeat, and a
// repeat, most often the same string, costs a comparison instead of a
// UTF-8 scan.
func putCellHead(b []byte, c *Cell, glyph *string) (_ int, ok bool) {
	if c.Content == "" {
		if c.Style != StyleWideCont {
			return 0, false
		}
		b[0], b[1] = 0, byte(c.Style)
		return 2, true
	}
	if c.Style&(StyleWideCont|styleReserved) != 0 {
		return 0, false
	}
	if c.Content != *glyph {
		if !ValidCellContent(c.Content) {
			return 0, false
		}
		*glyph = c.Content
	}
	n := len(appendUvarint(b[:0], uint64(len(c.Content))))
	n += copy(b[n:], c.Content)
	b[n] = byte(c.Style)
	return n + 1, true
}

func b2u8(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// DecodeScreen decodes a snapshot in format 0x01 occupying all of p and
// validates it as Validate does. Every grid and line length is checked
// against the remaining input (at least 4 bytes a cell) before the cells
// are allocated, so memory stays in proportion to len(p): a decoded cell
// takes at most 8 times its encoding (a 32-byte Cell for 4 bytes), and a
// scrollback line a 24-byte slice header, for at most MaxScrollbackLines
// lines. The result does not alias p; one-byte ASCII contents share a
// static string instead of allocating one per cell. Every error is a
// *FramingError.
func DecodeScreen(p []byte) (Screen, error) {
	d := decoder{p: p}
	var s Screen
	s.Epoch = d.uvarint("screen epoch")
	s.Echo = EchoMode(d.u8("screen echoMode"))
	s.Cols = d.dim("screen cols")
	s.Rows = d.dim("screen rows")
	s.Active = Buffer(d.u8("screen activeBuffer"))
	s.CursorRow = d.dim("screen cursorRow")
	s.CursorCol = d.dim("screen cursorCol")
	s.CursorVisible = d.bool("screen cursorVisible")
	s.CursorShape = CursorShape(d.u8("screen cursorShape"))
	s.Modes = Modes(d.u8("screen modes"))
	s.Mouse = MouseProto(d.u8("screen mouseProto"))
	s.SavedCursorRow = d.dim("screen savedCursorRow")
	s.SavedCursorCol = d.dim("screen savedCursorCol")
	if d.err != nil {
		return Screen{}, d.err
	}
	if err := s.validateHeader(); err != nil {
		return Screen{}, err
	}
	n := uint64(s.Rows) * uint64(s.Cols)
	s.Primary = d.cells("screen primary", n)
	if d.bool("screen altPresent") {
		s.Alt = d.cells("screen alt", n)
	}
	if d.err == nil && s.Active == BufferAlternate && s.Alt == nil {
		return Screen{}, framingf("screen alternate buffer is active but absent")
	}
	lines := d.uvarint("screen scrollbackLines")
	switch {
	case d.err != nil:
	case lines > MaxScrollbackLines:
		d.fail(framingf("screen scrollback has %d lines, more than %d", lines, MaxScrollbackLines))
	case lines > uint64(len(d.p)):
		d.fail(truncated("screen scrollback"))
	}
	if d.err == nil && lines > 0 {
		s.Scrollback = make([][]Cell, lines)
		for i := range s.Scrollback {
			count := d.uvarint("screen scrollback cellCount")
			if d.err == nil && count > uint64(len(d.p))/minCellLen {
				d.fail(truncated("screen scrollback line"))
			}
			s.Scrollback[i] = d.cells("screen scrollback line", count)
		}
	}
	if err := d.end("screen"); err != nil {
		return Screen{}, err
	}
	return s, nil
}

// dim reads a size or coordinate, at most MaxScreenDim.
func (d *decoder) dim(what string) int {
	v := d.uvarint(what)
	if v > MaxScreenDim {
		d.fail(framingf("%s: %d exceeds %d", what, v, MaxScreenDim))
		return 0
	}
	return int(v)
}

// cells decodes n cells, checking n against the remaining input first.
// It returns nil for n == 0.
func (d *decoder) cells(what string, n uint64) []Cell {
	if d.err != nil || n == 0 {
		return nil
	}
	if n > uint64(len(d.p))/minCellLen {
		d.fail(truncated(what))
		return nil
	}
	cells := make([]Cell, n)
	p := d.p
	for i := range cells {
		c := &cells[i]
		if len(p) < minCellLen {
			d.fail(truncated(what))
			return nil
		}
		switch b := p[0]; {
		case b == 1 && p[1] >= 0x20 && p[1] < 0x7F:
			c.Content = printableASCII[p[1]-0x20 : p[1]-0x20+1]
			p = p[2:]
		case b == 0:
			p = p[1:]
		default:
			l, k := uvarint(p)
			if k < 0 {
				d.fail(framingf("%s: cell runeLen overflows 64 bits", what))
				return nil
			}
			if k == 0 || l > uint64(len(p)-k) {
				d.fail(truncated(what))
				return nil
			}
			if l == 0 { // a non-minimal 0 (80 00): a continuation cell too
				p = p[k:]
				break
			}
			b := p[k : k+int(l)]
			if !validContent(b) {
				d.fail(framingf("%s: cell content %q is not printable UTF-8", what, b))
				return nil
			}
			if string(b) != d.lastGlyph { // reuse repeats: box drawing, CJK runs
				d.lastGlyph = string(b)
			}
			c.Content = d.lastGlyph
			p = p[k+int(l):]
		}
		if len(p) < 3 { // style, fg, bg at least
			d.fail(truncated(what))
			return nil
		}
		c.Style = Style(p[0])
		if c.Content == "" {
			if c.Style != StyleWideCont {
				d.fail(framingf("%s: empty cell has style 0x%02x, want 0x40", what, p[0]))
				return nil
			}
		} else if c.Style&(StyleWideCont|styleReserved) != 0 {
			d.fail(framingf("%s: cell style 0x%02x sets a reserved or continuation bit", what, p[0]))
			return nil
		}
		p = p[1:]
		var ok bool
		if p[0] == 0 && p[1] == 0 {
			p = p[2:]
			continue
		}
		if c.Fg, p, ok = readColor(p); !ok {
			d.fail(colorError(what, p))
			return nil
		}
		if c.Bg, p, ok = readColor(p); !ok {
			d.fail(colorError(what, p))
			return nil
		}
	}
	d.p = p
	return cells
}

// colorError describes why readColor failed at the start of p.
func colorError(what string, p []byte) error {
	if len(p) == 0 || p[0] == 0x01 || p[0] == 0x02 {
		return truncated(what)
	}
	return framingf("%s: color tag 0x%02x is undefined", what, p[0])
}

// readColor decodes one color at the start of p.
func readColor(p []byte) (Color, []byte, bool) {
	if len(p) == 0 {
		return 0, p, false
	}
	switch p[0] {
	case 0x00:
		return DefaultColor, p[1:], true
	case 0x01:
		if len(p) < 2 {
			return 0, p, false
		}
		return IndexedColor(p[1]), p[2:], true
	case 0x02:
		if len(p) < 4 {
			return 0, p, false
		}
		return RGBColor(p[1], p[2], p[3]), p[4:], true
	}
	return 0, p, false
}
