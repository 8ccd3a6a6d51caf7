package engine

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ptyhost/ptyhost/attachwire"
)

// PlainText appends to dst the text of terminal output p: printable
// characters and line ends, with escape sequences, strings (OSC, DCS, APC,
// PM, SOS) and other controls left out. It reads p on its own: a
// sequence cut by the end of p is dropped. It is what Search looks in,
// not a screen: text a program moved the cursor over stays in.
func PlainText(dst []byte, p []byte) []byte {
	dst, _ = plainText(dst, nil, p)
	return dst
}

// plainText is PlainText that also appends to ends, for each byte it
// appends to dst, the offset in p just past the input that made it, when
// ends is not nil.
func plainText(dst []byte, ends []int, p []byte) ([]byte, []int) {
	track := ends != nil
	emit := func(b []byte, end int) {
		dst = append(dst, b...)
		if track {
			for range b {
				ends = append(ends, end)
			}
		}
	}
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == 0x1b:
			i = skipEscape(p, i+1)
			continue
		case c == '\n':
			emit([]byte{'\n'}, i+1)
		case c == '\r':
			if i+1 < len(p) && p[i+1] == '\n' {
				break
			}
			emit([]byte{'\n'}, i+1)
		case c == '\t':
			emit([]byte{' '}, i+1)
		case c < 0x20 || c == 0x7f:
		case c < utf8.RuneSelf:
			emit(p[i:i+1], i+1)
		default:
			r, n := utf8.DecodeRune(p[i:])
			if r != utf8.RuneError && !unicode.IsControl(r) {
				emit(p[i:i+n], i+n)
			}
			i += n
			continue
		}
		i++
	}
	return dst, ends
}

// skipEscape returns the index after the sequence whose ESC was at i-1.
func skipEscape(p []byte, i int) int {
	if i >= len(p) {
		return i
	}
	switch p[i] {
	case '[':
		for i++; i < len(p); i++ {
			if p[i] >= 0x40 && p[i] <= 0x7e {
				return i + 1
			}
		}
		return i
	case ']', 'P', '_', '^', 'X':
		for i++; i < len(p); i++ {
			switch {
			case p[i] == 0x07:
				return i + 1
			case p[i] == 0x1b:
				if i+1 < len(p) && p[i+1] == '\\' {
					return i + 2
				}
				return i
			}
		}
		return i
	case '(', ')', '*', '+', '#', '%':
		return min(i+2, len(p))
	}
	return i + 1
}

// Match is where Search found the text: the seq of the Output frame the
// match ends in, the offset in that frame's payload just past the line
// that holds it (so a viewer can show the screen as that line was
// printed, not at the end of a frame that printed much more), and the
// line around it.
type Match struct {
	Seq  uint64
	End  int
	Line string
}

// Searcher finds a text, without regard to case, in a stream of Output
// frames fed in order, including matches that span frames. The zero
// Searcher is not ready: use NewSearcher.
type Searcher struct {
	query []byte
	tail  []byte // the end of the text so far: as long as a match that spans frames needs
	buf   []byte
	ends  []int
}

// MaxMatchLine bounds the line Match carries, in bytes.
const MaxMatchLine = 200

// NewSearcher returns a Searcher for query (case-insensitive; empty
// matches nothing).
func NewSearcher(query string) *Searcher {
	return &Searcher{query: bytes.ToLower([]byte(query))}
}

// Feed looks in one frame and appends what it found to dst.
func (s *Searcher) Feed(f attachwire.Frame, dst []Match) []Match {
	if f.Type != attachwire.TypeOutput || len(s.query) == 0 {
		return dst
	}
	keep := len(s.tail)
	if s.ends == nil {
		s.ends = make([]int, 0, 256) // non-nil: plainText tracks offsets
	}
	s.ends = s.ends[:0]
	for range keep {
		s.ends = append(s.ends, 0) // the tail: before this frame
	}
	s.buf, s.ends = plainText(append(s.buf[:0], s.tail...), s.ends, f.Payload)
	lower := bytes.ToLower(s.buf)
	if len(lower) != len(s.buf) {
		lower = s.buf // a case change altered lengths: match as written
	}
	// A match must end in this frame's text, past what came before it.
	for from := 0; ; {
		j := bytes.Index(lower[from:], s.query)
		if j < 0 {
			break
		}
		at := from + j
		if end := at + len(s.query); end > keep {
			// The screen to show is the match's whole line printed: up to
			// the line's end in this frame, if it ends here.
			raw := s.ends[end-1]
			if nl := bytes.IndexByte(f.Payload[raw:], '\n'); nl >= 0 {
				raw += nl + 1
			}
			dst = append(dst, Match{Seq: f.Seq, End: raw, Line: lineAround(s.buf, at)})
		}
		from = at + 1
	}
	n := len(s.query) - 1
	if len(s.buf) < n {
		n = len(s.buf)
	}
	// Keep whole runes, and a little of the line for context.
	start := len(s.buf) - n
	for start > 0 && start < len(s.buf) && !utf8.RuneStart(s.buf[start]) {
		start--
	}
	s.tail = append(s.tail[:0], s.buf[start:]...)
	return dst
}

// Gap says frames are missing before the next one fed (they failed to
// open): no match spans them.
func (s *Searcher) Gap() { s.tail = s.tail[:0] }

// lineAround returns the line of text holding index at, cut to
// MaxMatchLine bytes around it.
func lineAround(text []byte, at int) string {
	start := bytes.LastIndexByte(text[:at], '\n') + 1
	end := bytes.IndexByte(text[at:], '\n')
	if end < 0 {
		end = len(text)
	} else {
		end += at
	}
	if end-start > MaxMatchLine {
		start = max(start, at-MaxMatchLine/2)
		end = min(end, start+MaxMatchLine)
	}
	return strings.ToValidUTF8(string(text[start:end]), "")
}
