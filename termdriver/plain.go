package termdriver

// plainState strips terminal control sequences from output as it
// arrives, chunk by chunk: the text of an output log is what a program
// printed, without its colors, cursor moves or titles.
type plainState struct {
	st  uint8
	esc bool // inside a string, the last byte was ESC (ST is ESC \)
}

const (
	plainGround  uint8 = iota
	plainEsc           // after ESC
	plainCSI           // in CSI, until a final byte
	plainString        // in OSC, DCS, APC, PM or SOS, until BEL or ST
	plainCharset       // after ESC ( and the like: one more byte
)

// appendPlain appends p to dst without control sequences, carriage
// returns and other C0 controls except newline and tab.
func (ps *plainState) appendPlain(dst, p []byte) []byte {
	for _, c := range p {
		switch ps.st {
		case plainGround:
			switch {
			case c == 0x1b:
				ps.st = plainEsc
			case c == '\n' || c == '\t' || c >= 0x20 && c != 0x7f:
				dst = append(dst, c)
			}
		case plainEsc:
			switch {
			case c == '[':
				ps.st = plainCSI
			case c == ']' || c == 'P' || c == '_' || c == '^' || c == 'X':
				ps.st, ps.esc = plainString, false
			case c >= '(' && c <= '/' || c == '#' || c == '%' || c == ' ':
				ps.st = plainCharset
			default:
				ps.st = plainGround
			}
		case plainCSI:
			if c >= 0x40 && c <= 0x7e {
				ps.st = plainGround
			} else if c == 0x1b {
				ps.st = plainEsc
			}
		case plainString:
			switch {
			case c == 0x07 || ps.esc && c == '\\':
				ps.st = plainGround
			case c == 0x18 || c == 0x1a:
				ps.st = plainGround
			}
			ps.esc = c == 0x1b
		case plainCharset:
			ps.st = plainGround
		}
	}
	return dst
}
