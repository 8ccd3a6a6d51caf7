package term

import (
	"encoding/hex"
	"strconv"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/version"
)

// The answers here are constants or numbers computed from emulator state:
// anything printed inside a session can trigger them, so none may echo
// attacker-chosen bytes back into the child's input.

// DA1 is the primary device attributes answer: a VT220-class terminal with
// ANSI color (22).
const DA1 = "\x1b[?62;22c"

// DA2 is the secondary device attributes answer: VT220, firmware 10, no ROM
// cartridge.
const DA2 = "\x1b[>1;10;0c"

// DSROK is the answer to DSR 5 (operating status): no malfunction.
const DSROK = "\x1b[0n"

// DECRQSSInvalid answers a DECRQSS whose setting is not supported.
const DECRQSSInvalid = "\x1bP0$r\x1b\\"

// DefaultFg, DefaultBg and DefaultCursor return the colors the host
// reports for OSC 10, 11 and 12 until the program sets its own: light gray
// on black, the common dark theme. They are functions so that no caller
// can change them for every session.
func DefaultFg() [3]uint8 { return [3]uint8{0xe5, 0xe5, 0xe5} }

// DefaultBg returns the background color; see DefaultFg.
func DefaultBg() [3]uint8 { return [3]uint8{0x00, 0x00, 0x00} }

// DefaultCursor returns the cursor color; see DefaultFg.
func DefaultCursor() [3]uint8 { return [3]uint8{0xe5, 0xe5, 0xe5} }

// ansi16 is xterm's default palette for the 16 ANSI colors.
var ansi16 = [16][3]uint8{
	{0x00, 0x00, 0x00}, {0xcd, 0x00, 0x00}, {0x00, 0xcd, 0x00}, {0xcd, 0xcd, 0x00},
	{0x00, 0x00, 0xee}, {0xcd, 0x00, 0xcd}, {0x00, 0xcd, 0xcd}, {0xe5, 0xe5, 0xe5},
	{0x7f, 0x7f, 0x7f}, {0xff, 0x00, 0x00}, {0x00, 0xff, 0x00}, {0xff, 0xff, 0x00},
	{0x5c, 0x5c, 0xff}, {0xff, 0x00, 0xff}, {0x00, 0xff, 0xff}, {0xff, 0xff, 0xff},
}

// PaletteColor returns the RGB value of palette entry i: the 16 ANSI
// colors, the 6×6×6 cube and the 24 grays of the 256-color palette.
func PaletteColor(i uint8) [3]uint8 {
	switch {
	case i < 16:
		return ansi16[i]
	case i < 232:
		i -= 16
		level := func(v uint8) uint8 {
			if v == 0 {
				return 0
			}
			return 55 + 40*v
		}
		return [3]uint8{level(i / 36), level(i / 6 % 6), level(i % 6)}
	default:
		g := 8 + 10*(i-232)
		return [3]uint8{g, g, g}
	}
}

// AppendCPR appends a cursor position report for the 1-based row and col;
// private selects the DECXCPR form (CSI ? row ; col R).
func AppendCPR(dst []byte, row, col int, private bool) []byte {
	dst = append(dst, "\x1b["...)
	if private {
		dst = append(dst, '?')
	}
	dst = strconv.AppendInt(dst, int64(row), 10)
	dst = append(dst, ';')
	dst = strconv.AppendInt(dst, int64(col), 10)
	return append(dst, 'R')
}

// AppendXTVERSION appends the XTVERSION answer DCS > | ptyhost(v) ST; an
// empty v stands for ptyhost's version (package internal/version), the one
// `ptyhost version` prints.
func AppendXTVERSION(dst []byte, v string) []byte {
	if v == "" {
		v = version.String()
	}
	dst = append(dst, "\x1bP>|ptyhost("...)
	for i := 0; i < len(v); i++ {
		// The version comes from the build, but keep the answer printable
		// whatever it holds.
		if c := v[i]; c > 0x20 && c < 0x7f && c != '(' && c != ')' {
			dst = append(dst, c)
		}
	}
	return append(dst, ")\x1b\\"...)
}

// appendRGBSpec appends "rgb:rrrr/gggg/bbbb" (16 bits a component, as
// xterm reports).
func appendRGBSpec(dst []byte, c [3]uint8) []byte {
	const digits = "0123456789abcdef"
	dst = append(dst, "rgb:"...)
	for i, v := range c {
		if i > 0 {
			dst = append(dst, '/')
		}
		hi, lo := digits[v>>4], digits[v&0x0f]
		dst = append(dst, hi, lo, hi, lo)
	}
	return dst
}

// AppendOSCColor appends the answer to OSC ps ; ? (ps 10, 11 or 12),
// terminated the way the query was: BEL when bel is true, else ST.
func AppendOSCColor(dst []byte, ps int, c [3]uint8, bel bool) []byte {
	dst = append(dst, "\x1b]"...)
	dst = strconv.AppendInt(dst, int64(ps), 10)
	dst = append(dst, ';')
	dst = appendRGBSpec(dst, c)
	return appendStringTerminator(dst, bel)
}

// AppendOSC4 appends the answer to OSC 4 ; index ; ? for the default palette.
func AppendOSC4(dst []byte, index uint8, bel bool) []byte {
	dst = append(dst, "\x1b]4;"...)
	dst = strconv.AppendInt(dst, int64(index), 10)
	dst = append(dst, ';')
	dst = appendRGBSpec(dst, PaletteColor(index))
	return appendStringTerminator(dst, bel)
}

func appendStringTerminator(dst []byte, bel bool) []byte {
	if bel {
		return append(dst, 0x07)
	}
	return append(dst, "\x1b\\"...)
}

// ColorSchemeDark is the answer to CSI ? 996 n for the default colors
// (light text on a black background).
const ColorSchemeDark = "\x1b[?997;1n"

// Mode states of a DECRQM answer.
const (
	ModeNotRecognized = 0
	ModeSet           = 1
	ModeReset         = 2
	ModePermSet       = 3
	ModePermReset     = 4
)

// AppendDECRPM appends the DECRQM answer CSI [?] mode ; state $ y.
func AppendDECRPM(dst []byte, mode, state int, private bool) []byte {
	dst = append(dst, "\x1b["...)
	if private {
		dst = append(dst, '?')
	}
	dst = strconv.AppendInt(dst, int64(mode), 10)
	dst = append(dst, ';')
	dst = strconv.AppendInt(dst, int64(state), 10)
	return append(dst, "$y"...)
}

// AppendDECRQSS appends a valid DECRQSS answer DCS 1 $ r setting ST, where
// setting is the state computed by the emulator (for example "0;1m",
// "2 q" or "1;24r"). Callers never pass bytes taken from the query.
func AppendDECRQSS(dst []byte, setting string) []byte {
	dst = append(dst, "\x1bP1$r"...)
	dst = append(dst, setting...)
	return append(dst, "\x1b\\"...)
}

// capability returns the value of an XTGETTCAP-allowlisted terminfo
// capability: the few that probers ask for, with fixed values.
func capability(name string) (string, bool) {
	switch name {
	case "TN", "name":
		return "xterm-256color", true
	case "Co", "colors":
		return "256", true
	case "RGB":
		return "8/8/8", true
	}
	return "", false
}

// AppendXTGETTCAP appends the answer to XTGETTCAP (DCS + q names ST) given
// the query's data: hex-encoded capability names separated by ';'. Each
// name gets its own reply, in order: DCS 1 + r name=value ST for an
// allowlisted one, DCS 0 + r ST for anything else. The name is echoed only
// when it is on the allowlist, so no query chooses the bytes of its answer.
func AppendXTGETTCAP(dst []byte, data []byte) []byte {
	start := 0
	for i := 0; i <= len(data); i++ {
		if i < len(data) && data[i] != ';' {
			continue
		}
		dst = appendTcapReply(dst, data[start:i])
		start = i + 1
	}
	return dst
}

func appendTcapReply(dst []byte, hexName []byte) []byte {
	var buf [16]byte
	if len(hexName) == 0 || len(hexName) > 2*len(buf) || len(hexName)%2 != 0 {
		return append(dst, "\x1bP0+r\x1b\\"...)
	}
	n, err := hex.Decode(buf[:], hexName)
	value, ok := capability(string(buf[:n]))
	if err != nil || !ok {
		return append(dst, "\x1bP0+r\x1b\\"...)
	}
	dst = append(dst, "\x1bP1+r"...)
	dst = hex.AppendEncode(dst, buf[:n])
	dst = append(dst, '=')
	dst = hex.AppendEncode(dst, []byte(value))
	return append(dst, "\x1b\\"...)
}

// Synthetic cell size, used for CSI 14 t and 16 t when the window's pixel
// size is unknown.
const (
	CellWidthPx  = 8
	CellHeightPx = 16
)

// AppendWindowReport appends the answer to CSI ps t for ps 18 (text area in
// characters), 14 (text area in pixels) or 16 (cell size in pixels); other
// ps append nothing. pxWidth and pxHeight of 0 mean unknown: a synthetic
// 8×16 cell is assumed.
func AppendWindowReport(dst []byte, ps, cols, rows, pxWidth, pxHeight int) []byte {
	if pxWidth <= 0 || pxHeight <= 0 {
		pxWidth, pxHeight = cols*CellWidthPx, rows*CellHeightPx
	}
	var code, a, b int
	switch ps {
	case 18:
		code, a, b = 8, rows, cols
	case 14:
		code, a, b = 4, pxHeight, pxWidth
	case 16:
		code, a, b = 6, max(pxHeight/max(rows, 1), 1), max(pxWidth/max(cols, 1), 1)
	default:
		return dst
	}
	dst = append(dst, "\x1b["...)
	dst = strconv.AppendInt(dst, int64(code), 10)
	dst = append(dst, ';')
	dst = strconv.AppendInt(dst, int64(a), 10)
	dst = append(dst, ';')
	dst = strconv.AppendInt(dst, int64(b), 10)
	return append(dst, 't')
}

// CursorShape maps a DECSCUSR parameter (CSI Ps SP q) to the Screen
// model's shape: 1–2 block, 3–4 underline, 5–6 bar (blinking or steady
// alike), anything else the terminal's default.
func CursorShape(ps int) attachwire.CursorShape {
	switch ps {
	case 1, 2:
		return attachwire.CursorBlock
	case 3, 4:
		return attachwire.CursorUnderline
	case 5, 6:
		return attachwire.CursorBar
	}
	return attachwire.CursorDefault
}
