package engine

// charset is a 94-character set designated into G0 or G1.
type charset uint8

const (
	charsetASCII charset = iota
	charsetDECGraphics
	charsetUK
)

// designate maps the final byte of ESC ( F / ESC ) F to a charset;
// unsupported sets are taken as ASCII.
func designate(final byte) charset {
	switch final {
	case '0':
		return charsetDECGraphics
	case 'A':
		return charsetUK
	}
	return charsetASCII
}

// decGraphics maps 0x60-0x7E in the DEC Special Graphics set.
var decGraphics = [...]rune{
	0x25C6, 0x2592, 0x2409, 0x240C, 0x240D, 0x240A, 0x00B0, 0x00B1, // ` a-g
	0x2424, 0x240B, 0x2518, 0x2510, 0x250C, 0x2514, 0x253C, 0x23BA, // h-o
	0x23BB, 0x2500, 0x23BC, 0x23BD, 0x251C, 0x2524, 0x2534, 0x252C, // p-w
	0x2502, 0x2264, 0x2265, 0x03C0, 0x2260, 0x00A3, 0x00B7, // x-~
}

// mapCharset translates a printable ASCII byte through the charset
// invoked into GL.
func (e *Engine) mapCharset(c byte) rune {
	switch e.cur.charsets[e.cur.gl] {
	case charsetDECGraphics:
		if c == '_' {
			return 0x00A0
		}
		if c >= 0x60 && c < 0x7F {
			return decGraphics[c-0x60]
		}
	case charsetUK:
		if c == '#' {
			return 0x00A3
		}
	}
	return rune(c)
}
