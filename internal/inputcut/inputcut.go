package inputcut

import "unicode/utf8"

// escWindow is how far before a chunk's end an ESC moves the cut to just
// before it: longer than any key's or report's sequence a terminal sends
// (an SGR mouse report at 9999x9999 is 20 bytes, "\x1b[201~" 6), far
// shorter than a chunk.
const escWindow = 32

// Cut returns the length of the first chunk of p when chunks may be at
// most max bytes (max > 0): all of p if it fits; otherwise at most max,
// cut before an ESC that starts in the last escWindow bytes (the sequence
// it begins goes whole into the next chunk), else not inside a UTF-8
// sequence. It is always at least 1, so a caller cutting in a loop ends:
// where no such cut exists in a chunk (a chunk that is all one escape
// sequence, or bytes that are not UTF-8) it cuts at max.
func Cut(p []byte, max int) int {
	if len(p) <= max {
		return len(p)
	}
	for i := max - 1; i > 0 && i >= max-escWindow; i-- {
		if p[i] == 0x1b {
			return i
		}
	}
	for n := max; n > 0 && n > max-utf8.UTFMax; n-- {
		if utf8.RuneStart(p[n]) {
			return n
		}
	}
	return max
}
