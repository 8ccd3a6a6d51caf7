package main

import "fmt"

// escapeError reports a malformed backslash escape in --input.
type escapeError struct {
	offset int // byte offset of the backslash
	reason string
}

func (e *escapeError) Error() string {
	return fmt.Sprintf("bad escape at byte %d: %s (known: \\r \\n \\t \\e \\a \\b \\\\ \\xNN)", e.offset, e.reason)
}

// parseEscapes decodes the escapes --input understands: \r (CR, the Enter
// key), \n, \t, \e (ESC), \a (BEL), \b (BS), \\ and \xNN (any byte, two
// hex digits). Every other byte is copied as is; an unknown escape or a
// trailing backslash is an error, so that typos do not silently send
// something else to the program.
func parseEscapes(s string) ([]byte, error) {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		if i+1 == len(s) {
			return nil, &escapeError{offset: i, reason: "trailing backslash"}
		}
		start := i
		i++
		switch s[i] {
		case 'r':
			out = append(out, '\r')
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'e':
			out = append(out, 0x1b)
		case 'a':
			out = append(out, 0x07)
		case 'b':
			out = append(out, 0x08)
		case '\\':
			out = append(out, '\\')
		case 'x':
			if i+2 >= len(s) {
				return nil, &escapeError{offset: start, reason: `\x needs two hex digits`}
			}
			hi, ok1 := unhex(s[i+1])
			lo, ok2 := unhex(s[i+2])
			if !ok1 || !ok2 {
				return nil, &escapeError{offset: start, reason: `\x needs two hex digits`}
			}
			out = append(out, hi<<4|lo)
			i += 2
		default:
			return nil, &escapeError{offset: start, reason: "unknown escape " + escapeName(s[i])}
		}
	}
	return out, nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// escapeName shows the backslash and the byte after it as the user typed
// them, or the byte in hex when it is not printable ASCII.
func escapeName(b byte) string {
	if b > ' ' && b < 0x7f {
		return `\` + string(b)
	}
	return fmt.Sprintf(`\ followed by byte 0x%02x`, b)
}
