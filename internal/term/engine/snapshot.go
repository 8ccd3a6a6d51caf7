package engine

import (
	"unicode/utf8"

	"github.com/ptyhost/ptyhost/attachwire"
)

// AppendSnapshot appends the payload of a Snapshot frame (format 0x01)
// showing the current screen to dst: the bytes attachwire.AppendSnapshot
// gives for NewSnapshot(atSeq, s), where s is what Screen fills with
// Epoch epoch and Echo echo. It encodes straight from the engine's cells,
// with no Screen in between, and allocates nothing when dst has room
// (else it grows dst once, by an estimate). The error is an
// *attachwire.FramingError, which would mean a cell the engine should
// never have stored.
func (e *Engine) AppendSnapshot(dst []byte, atSeq, epoch uint64, echo attachwire.EchoMode) ([]byte, error) {
	h := attachwire.Screen{Epoch: epoch, Echo: echo}
	e.screenHeader(&h)
	if est := e.snapshotEstimate(); cap(dst)-len(dst) < est {
		// One allocation, also where the race detector keeps
		// slices.Grow from fusing its make into the append.
		d := make([]byte, len(dst), len(dst)+est)
		copy(d, dst)
		dst = d
	}
	var enc attachwire.ScreenEncoder
	if err := enc.BeginSnapshot(dst, atSeq, &h); err != nil {
		return dst, err
	}
	e.encodeGrid(&enc, e.prim)
	if e.altActive {
		enc.Alt()
		e.encodeGrid(&enc, e.alt)
	}
	n := e.sb.len()
	enc.Scrollback(n)
	for i := range n {
		if l := e.sb.rawLine(i); l != nil && l.spanned {
			end, fills := l.spanContent()
			enc.Line(end + fills)
			encodeSpans(&enc, l, end)
			e.encodeRun(&enc, l.fill, fills)
			continue
		}
		if l := e.sb.rawLine(i); l != nil {
			stored, fills := lineCells(l)
			enc.Line(len(stored) + fills)
			e.encodeCells(&enc, stored)
			e.encodeRun(&enc, l.fill, fills)
			continue
		}
		_, b, _ := e.sb.line(i)
		enc.Line(encodedLineLen(b))
		encodeStoredLine(&enc, b)
	}
	return enc.Finish()
}

// snapshotEstimate is a little more than a snapshot of the current
// screen usually encodes to: an ASCII cell in the colors of the cell
// before it, the most common kind by far, takes 5 bytes; color changes
// and wide glyphs bring realistic output to about 5.3 bytes a cell.
func (e *Engine) snapshotEstimate() int {
	cells := e.rows * e.cols
	if e.altActive {
		cells *= 2
	}
	for i := range e.sb.len() {
		if l := e.sb.rawLine(i); l != nil && l.spanned {
			end, fills := l.spanContent()
			cells += end + fills
		} else if l != nil {
			stored, fills := lineCells(l)
			cells += len(stored) + fills
		} else {
			_, b, _ := e.sb.line(i)
			cells += len(b)
		}
	}
	return 64 + 6*cells + 2*e.sb.len()
}

// encodeGrid encodes a buffer's rows*cols cells, row by row.
func (e *Engine) encodeGrid(enc *attachwire.ScreenEncoder, b *buffer) {
	for i := range e.rows {
		l := b.line(i)
		if l.spanned {
			end := min(len(l.text), e.cols)
			encodeSpans(enc, l, end)
			e.encodeRun(enc, l.fill, e.cols-end)
			continue
		}
		stored := min(l.n, e.cols)
		e.encodeCells(enc, l.cells[:stored])
		e.encodeRun(enc, l.fill, e.cols-stored)
	}
}

// encodeCells encodes cells as screenCell converts them.
func (e *Engine) encodeCells(enc *attachwire.ScreenEncoder, cells []cell) {
	for _, c := range cells {
		switch {
		case c.isCont():
			enc.AppendWideCont(c.fg, c.bg)
		case c.c&clusterBit != 0:
			enc.AppendCluster(e.ct.get(c.c&runeMask), c.style(), c.fg, c.bg)
		default:
			enc.AppendRune(cellRune(c), c.style(), c.fg, c.bg)
		}
	}
}

// encodeSpans encodes the first end cells of a row in span form.
func encodeSpans(enc *attachwire.ScreenEncoder, l *line, end int) {
	for k, s := range l.spans {
		for _, ch := range l.text[min(int(s.at), end):min(l.runEnd(k), end)] {
			enc.AppendRune(rune(ch), s.p.style, s.p.fg, s.p.bg)
		}
	}
}

// encodeRun encodes n copies of c: a line's implicit tail.
func (e *Engine) encodeRun(enc *attachwire.ScreenEncoder, c cell, n int) {
	if n <= 0 {
		return
	}
	if c.isCont() || c.c&clusterBit != 0 {
		for range n {
			e.encodeCells(enc, []cell{c})
		}
		return
	}
	enc.AppendRuneRun(n, cellRune(c), c.style(), c.fg, c.bg)
}

// cellRune is the rune a plain cell shows.
func cellRune(c cell) rune { return shownRune(rune(c.c & runeMask)) }

// encodedLineLen returns how many cells decodeLine would give for the
// encoded scrollback line b.
func encodedLineLen(b []byte) int {
	n := 0
	for len(b) > 0 {
		switch b[0] {
		case sbAttr:
			if len(b) < 2 {
				return n
			}
			_, b = readColor(b[2:])
			_, b = readColor(b)
		case sbCont:
			n++
			b = b[1:]
		case sbRepeat:
			if len(b) < 4 {
				return n
			}
			n += int(b[1]) | int(b[2])<<8
			_, size := utf8.DecodeRune(b[3:])
			b = b[3+size:]
		case sbCluster:
			if len(b) < 2 || len(b) < 2+int(b[1]) {
				return n
			}
			n++
			b = b[2+b[1]:]
		default:
			n++
			_, size := utf8.DecodeRune(b)
			b = b[size:]
		}
	}
	return n
}

// encodeStoredLine encodes the cells of the encoded scrollback line b as
// decodeLine decodes them.
func encodeStoredLine(enc *attachwire.ScreenEncoder, b []byte) {
	var style attachwire.Style
	var fg, bg attachwire.Color
	var cluster string // the last cluster, reused while it repeats
	for len(b) > 0 {
		switch b[0] {
		case sbAttr:
			if len(b) < 2 {
				return
			}
			style = attachwire.Style(b[1])
			fg, b = readColor(b[2:])
			bg, b = readColor(b)
		case sbCont:
			enc.AppendWideCont(fg, bg)
			b = b[1:]
		case sbRepeat:
			if len(b) < 4 {
				return
			}
			n := int(b[1]) | int(b[2])<<8
			r, size := utf8.DecodeRune(b[3:])
			b = b[3+size:]
			enc.AppendRuneRun(n, shownRune(r), style, fg, bg)
		case sbCluster:
			if len(b) < 2 || len(b) < 2+int(b[1]) {
				return
			}
			if s := b[2 : 2+b[1]]; string(s) != cluster {
				cluster = string(s)
			}
			enc.AppendCluster(cluster, style, fg, bg)
			b = b[2+b[1]:]
		default:
			r, size := utf8.DecodeRune(b)
			b = b[size:]
			enc.AppendRune(shownRune(r), style, fg, bg)
		}
	}
}

// shownRune is the rune a cell holding r shows: controls show as blanks,
// as in runeContent.
func shownRune(r rune) rune {
	if r < 0x20 || r == 0x7F {
		return ' '
	}
	return r
}
