package attachwire

import (
	"encoding/binary"
	"slices"
	"unicode/utf8"
)

// ScreenEncoder appends a screen in format 0x01, or a whole Snapshot
// payload, one part at a time. It is for a terminal that keeps its screen
// in a form of its own: encoding straight from its cells spares building
// a Screen (tens of thousands of Cells) only to encode it.
//
// The parts come in wire order: Begin or BeginSnapshot with the header,
// Rows*Cols primary cells, then optionally Alt and Rows*Cols alternate
// cells, then Scrollback(n) and, n times, Line(k) followed by k cells,
// then Finish. Cells are appended with AppendRune, AppendCluster,
// AppendWideCont, AppendRuneRun and AppendCells. The encoder checks
// everything Validate checks as it goes; the first defect (a bad cell, a
// count that does not add up, a part out of order) is kept, and Finish
// reports it and truncates the buffer to where Begin found it.
//
// The zero value is ready for Begin; an encoder may be reused for any
// number of screens. It is not safe for concurrent use.
type ScreenEncoder struct {
	buf      []byte
	start    int // len(dst) at Begin
	lenAt    int // where BeginSnapshot reserved screenLen, -1 for a bare screen
	screenAt int // where the screen's encoding starts
	err      error

	part   encoderPart
	grid   int    // Rows*Cols
	left   int    // cells still due in the current grid or line
	lines  int    // scrollback lines still due
	active Buffer // checked once the grids are done

	// The last cell's colors (fg | bg<<32) and their encoding as one
	// little-endian word of colorLen bytes: neighbouring cells mostly
	// share their colors. The zero value is two default colors.
	lastColors uint64
	colorWord  uint64
	colorLen   int
	// glyph is the last multi-byte content validated: wide glyphs and
	// box drawing repeat, and a repeat costs a comparison instead of a
	// UTF-8 scan.
	glyph string
}

// encoderPart is where a ScreenEncoder stands in the screen's layout.
type encoderPart uint8

const (
	partNone       encoderPart = iota // before Begin, or after Finish
	partPrimary                       // primary grid cells
	partAlt                           // alternate grid cells
	partScrollback                    // scrollback lines
)

// snapshotLenReserve is how many bytes BeginSnapshot reserves for the
// screen's length: 3 bytes hold lengths of 16 KiB to 2 MiB, where nearly
// every screen falls (120×40 with 200 lines of scrollback is about
// 100 KiB). Finish moves the screen when the length needs another size.
const snapshotLenReserve = 3

// Begin starts a screen appended to dst, with the header fields of h
// (Epoch, Echo, size, Active, cursor, modes, saved cursor); h's grids and
// scrollback are not used. It returns the header's defect, as Validate
// would, and then the encoder refuses every part until the next Begin.
func (e *ScreenEncoder) Begin(dst []byte, h *Screen) error {
	e.reset(dst)
	e.lenAt = -1
	return e.header(h)
}

// BeginSnapshot starts a Snapshot payload (atSeq, format 0x01, the
// screen's length, the screen) appended to dst: Finish then returns what
// AppendSnapshot returns for NewSnapshot(atSeq, s) of the same screen.
// See Begin for h.
func (e *ScreenEncoder) BeginSnapshot(dst []byte, atSeq uint64, h *Screen) error {
	e.reset(dst)
	e.buf = appendUvarint(e.buf, atSeq)
	e.buf = append(e.buf, FormatScreenV1)
	e.lenAt = len(e.buf)
	e.buf = append(e.buf, make([]byte, snapshotLenReserve)...)
	return e.header(h)
}

func (e *ScreenEncoder) reset(dst []byte) {
	*e = ScreenEncoder{buf: dst, start: len(dst), colorLen: 2}
}

func (e *ScreenEncoder) header(h *Screen) error {
	if err := h.validateHeader(); err != nil {
		e.err = err
		return err
	}
	e.screenAt = len(e.buf)
	e.buf = appendScreenHeader(e.buf, h)
	e.part = partPrimary
	e.grid, e.left, e.active = h.Rows*h.Cols, h.Rows*h.Cols, h.Active
	return nil
}

// Alt ends the primary grid and starts the alternate one: Rows*Cols cells
// follow.
func (e *ScreenEncoder) Alt() {
	if !e.partDone(partPrimary, "alternate grid") {
		return
	}
	e.buf = append(e.buf, 1)
	e.part, e.left = partAlt, e.grid
}

// Scrollback ends the grids and starts n lines of scrollback (at most
// MaxScrollbackLines), oldest first, each begun with Line.
func (e *ScreenEncoder) Scrollback(n int) {
	switch {
	case e.err != nil:
		return
	case e.part == partPrimary:
		if !e.partDone(partPrimary, "scrollback") {
			return
		}
		if e.active == BufferAlternate {
			e.fail(framingf("screen alternate buffer is active but absent"))
			return
		}
		e.buf = append(e.buf, 0)
	case !e.partDone(partAlt, "scrollback"):
		return
	}
	switch {
	case n < 0:
		e.fail(framingf("screen scrollback has %d lines", n))
		return
	case n > MaxScrollbackLines:
		e.fail(framingf("screen scrollback has %d lines, more than %d", n, MaxScrollbackLines))
		return
	}
	e.buf = appendUvarint(e.buf, uint64(n))
	e.part, e.lines = partScrollback, n
}

// Line starts the next scrollback line, of n cells (lines may be shorter
// or longer than Cols).
func (e *ScreenEncoder) Line(n int) {
	switch {
	case !e.partDone(partScrollback, "scrollback line"):
		return
	case e.lines == 0:
		e.fail(framingf("screen scrollback line beyond the count given"))
		return
	case n < 0:
		e.fail(framingf("screen scrollback line has %d cells", n))
		return
	}
	e.lines--
	e.buf = appendUvarint(e.buf, uint64(n))
	e.left = n
}

// partDone reports whether the encoder is in part p with every cell of
// its current grid or line appended, failing with what as the part that
// came too early otherwise.
func (e *ScreenEncoder) partDone(p encoderPart, what string) bool {
	switch {
	case e.err != nil:
		return false
	case e.left > 0:
		e.fail(framingf("screen encoder: %s with %d cells still due", what, e.left))
		return false
	case e.left < 0:
		e.fail(framingf("screen encoder: %d cells too many before %s", -e.left, what))
		return false
	case e.part != p:
		e.fail(framingf("screen encoder: %s out of order", what))
		return false
	}
	return true
}

// Finish ends the screen and returns the buffer with it appended. It
// returns the first defect found since Begin, with the buffer truncated
// to its length at Begin, if the screen is not complete and valid.
func (e *ScreenEncoder) Finish() ([]byte, error) {
	if e.partDone(partScrollback, "end of screen") && e.lines != 0 {
		e.fail(framingf("screen scrollback ends %d lines early", e.lines))
	}
	if e.err != nil {
		buf, err := e.buf[:e.start], e.err
		e.reset(buf)
		e.err = err
		return buf, err
	}
	if e.lenAt >= 0 {
		e.putScreenLen()
	}
	e.part = partNone
	return e.buf, nil
}

// putScreenLen writes the screen's length in the room BeginSnapshot
// reserved, moving the screen when its minimal encoding is not that long.
func (e *ScreenEncoder) putScreenLen() {
	n := uint64(len(e.buf) - e.screenAt)
	k := uvarintLen(n)
	if d := k - snapshotLenReserve; d > 0 {
		e.buf = append(e.buf, make([]byte, d)...)
		copy(e.buf[e.screenAt+d:], e.buf[e.screenAt:len(e.buf)-d])
	} else if d < 0 {
		copy(e.buf[e.screenAt+d:], e.buf[e.screenAt:])
		e.buf = e.buf[:len(e.buf)+d]
	}
	appendUvarint(e.buf[e.lenAt:e.lenAt], n)
}

func (e *ScreenEncoder) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

// setColors makes fg and bg the current colors; false if either is
// malformed.
func (e *ScreenEncoder) setColors(fg, bg Color) bool {
	fw, fn := encodeColor(fg)
	bw, bn := encodeColor(bg)
	if fn == 0 || bn == 0 {
		e.fail(framingf("screen cell colors 0x%08x/0x%08x are malformed", uint32(fg), uint32(bg)))
		return false
	}
	e.lastColors = uint64(fg) | uint64(bg)<<32
	e.colorWord, e.colorLen = uint64(fw)|uint64(bw)<<(8*fn), fn+bn
	return true
}

// AppendRune appends a cell showing the one code point r, which must be
// printable (no C0, DEL or C1) and not a surrogate. style may not have
// StyleWideCont (see AppendWideCont).
func (e *ScreenEncoder) AppendRune(r rune, style Style, fg, bg Color) {
	e.left--
	if colors := uint64(fg) | uint64(bg)<<32; colors != e.lastColors && !e.setColors(fg, bg) {
		return
	}
	// The color word stores 8 bytes past the style, whatever colorLen is.
	if uint32(r)-0x20 < 0x7F-0x20 && style&(StyleWideCont|styleReserved) == 0 && cap(e.buf)-len(e.buf) >= 11 {
		n := len(e.buf)
		b := e.buf[n : n+11]
		b[0], b[1], b[2] = 1, byte(r), byte(style)
		binary.LittleEndian.PutUint64(b[3:], e.colorWord)
		e.buf = e.buf[:n+3+e.colorLen]
		return
	}
	e.appendRuneSlow(r, style)
}

// appendRuneSlow is AppendRune for any rune, or when the buffer is short.
func (e *ScreenEncoder) appendRuneSlow(r rune, style Style) {
	if r < 0x20 || (r >= 0x7F && r <= 0x9F) || !utf8.ValidRune(r) {
		e.fail(framingf("screen cell content %q is not printable UTF-8", string(r)))
		return
	}
	if style&(StyleWideCont|styleReserved) != 0 {
		e.fail(framingf("screen cell %q has style 0x%02x", string(r), uint8(style)))
		return
	}
	e.grow(1 + utf8.UTFMax + 1 + 8)
	n := len(e.buf)
	b := e.buf[n : n+1+utf8.UTFMax+1+8]
	m := utf8.EncodeRune(b[1:], r)
	b[0], b[1+m] = byte(m), byte(style)
	binary.LittleEndian.PutUint64(b[2+m:], e.colorWord)
	e.buf = e.buf[:n+2+m+e.colorLen]
}

// AppendRuneRun appends n copies of the cell AppendRune(r, style, fg, bg)
// would append: a row's blank tail in one call.
func (e *ScreenEncoder) AppendRuneRun(n int, r rune, style Style, fg, bg Color) {
	if n <= 0 {
		return
	}
	at := len(e.buf)
	e.AppendRune(r, style, fg, bg)
	if e.err != nil {
		return
	}
	e.left -= n - 1
	m := len(e.buf) - at
	e.grow(m * (n - 1))
	e.buf = e.buf[:at+m*n]
	// Double the copied run until it fills the room.
	for done := m; done < m*n; {
		done += copy(e.buf[at+done:], e.buf[at:at+done])
	}
}

// AppendCluster appends a cell showing content, a grapheme cluster: valid
// UTF-8 without C0, DEL or C1 code points. style may not have
// StyleWideCont (see AppendWideCont).
func (e *ScreenEncoder) AppendCluster(content string, style Style, fg, bg Color) {
	e.left--
	if colors := uint64(fg) | uint64(bg)<<32; colors != e.lastColors && !e.setColors(fg, bg) {
		return
	}
	if style&(StyleWideCont|styleReserved) != 0 {
		e.fail(framingf("screen cell %q has style 0x%02x", content, uint8(style)))
		return
	}
	if content == "" || content != e.glyph {
		if !ValidCellContent(content) {
			e.fail(framingf("screen cell content %q is not printable UTF-8", content))
			return
		}
		if len(content) > 1 {
			e.glyph = content
		}
	}
	e.grow(maxVarintLen + len(content) + 1 + 8)
	e.buf = appendUvarint(e.buf, uint64(len(content)))
	e.buf = append(e.buf, content...)
	e.buf = append(e.buf, byte(style))
	n := len(e.buf)
	binary.LittleEndian.PutUint64(e.buf[n:n+8], e.colorWord)
	e.buf = e.buf[:n+e.colorLen]
}

// AppendWideCont appends the continuation cell of a wide glyph: empty
// content, style StyleWideCont, and (by convention) the glyph's colors.
func (e *ScreenEncoder) AppendWideCont(fg, bg Color) {
	e.left--
	if colors := uint64(fg) | uint64(bg)<<32; colors != e.lastColors && !e.setColors(fg, bg) {
		return
	}
	e.grow(2 + 8)
	n := len(e.buf)
	b := e.buf[n : n+10]
	b[0], b[1] = 0, byte(StyleWideCont)
	binary.LittleEndian.PutUint64(b[2:], e.colorWord)
	e.buf = e.buf[:n+2+e.colorLen]
}

// AppendCells appends cells as they are in a Screen.
func (e *ScreenEncoder) AppendCells(cells []Cell) {
	if e.err != nil {
		return
	}
	e.left -= len(cells)
	buf, ok := e.appendCells(e.buf, cells)
	if ok {
		e.buf = buf
		return
	}
	for _, c := range cells {
		if err := c.validate(); err != nil {
			e.fail(err)
			return
		}
	}
}

// grow makes room for n more bytes, growing the buffer geometrically.
func (e *ScreenEncoder) grow(n int) {
	if cap(e.buf)-len(e.buf) < n {
		e.buf = slices.Grow(e.buf, n)
	}
}
