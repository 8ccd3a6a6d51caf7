package shellmark

import "bytes"

// MaxBody bounds the body of a mark sequence (a command line included):
// an OSC 133 or 633 longer than this is skipped whole, so a program that
// never ends its sequence costs nothing but the scan.
const MaxBody = 4096

// Found is a mark and where its sequence ends in the chunk it ended in.
type Found struct {
	// End is the offset just past the sequence's terminator.
	End int
	Mark
}

type state uint8

const (
	ground   state = iota
	escape         // ESC seen in the ground state
	oscParam       // after ESC ]: the OSC's number
	oscBody        // a 133 or 633 body being kept
	oscSkip        // any other OSC, or one too long
	oscEsc         // ESC inside an OSC: ST or the start of something else
	str            // DCS, APC, PM or SOS contents
	strEsc         // ESC inside such a string
)

// Scanner finds marks in a stream fed to it in chunks. The zero Scanner
// is ready; it is not safe for concurrent use.
type Scanner struct {
	st    state
	keep  bool   // in oscEsc: whether the OSC's body is being kept
	param []byte // the OSC number read so far (at most 3 digits kept)
	body  []byte
	vsc   bool // the body is 633's
}

// Scan reads the next chunk of the stream and appends the marks whose
// sequences end in it to dst, in order.
func (s *Scanner) Scan(p []byte, dst []Found) []Found {
	for i := 0; i < len(p); i++ {
		if s.st == ground {
			j := bytes.IndexByte(p[i:], 0x1b)
			if j < 0 {
				return dst
			}
			i += j
			s.st = escape
			continue
		}
		c := p[i]
		switch s.st {
		case escape:
			s.afterEscape(c)
		case oscParam:
			switch {
			case c >= '0' && c <= '9':
				if len(s.param) < 4 {
					s.param = append(s.param, c)
				}
			case c == ';':
				s.st = oscSkip
				if p := string(s.param); p == "133" || p == "633" {
					s.st, s.vsc, s.body = oscBody, p == "633", s.body[:0]
				}
			default:
				s.inOSC(c, false)
			}
		case oscBody:
			if c >= 0x20 && c != 0x7f || c == '\t' {
				if len(s.body) == MaxBody {
					s.st = oscSkip
				} else {
					s.body = append(s.body, c)
				}
				continue
			}
			if c == 0x07 {
				s.st = ground
				if m, ok := parseBody(s.body, s.vsc); ok {
					dst = append(dst, Found{End: i + 1, Mark: m})
				}
				continue
			}
			s.inOSC(c, true)
		case oscSkip:
			j := bytes.IndexAny(p[i:], "\x07\x1b\x18\x1a")
			if j < 0 {
				return dst
			}
			i += j
			s.inOSC(p[i], false)
		case oscEsc:
			if c == '\\' {
				s.st = ground
				if s.keep {
					if m, ok := parseBody(s.body, s.vsc); ok {
						dst = append(dst, Found{End: i + 1, Mark: m})
					}
				}
				continue
			}
			// An ESC that is not ST abandons the OSC and starts anew.
			s.afterEscape(c)
		case str:
			j := bytes.IndexAny(p[i:], "\x1b\x18\x1a")
			if j < 0 {
				return dst
			}
			i += j
			if p[i] == 0x1b {
				s.st = strEsc
			} else {
				s.st = ground
			}
		case strEsc:
			if c == '\\' {
				s.st = ground
			} else {
				s.afterEscape(c)
			}
		}
	}
	return dst
}

// inOSC handles a byte inside an OSC that is not part of a kept body: a
// terminator, CAN or SUB, or an ESC. Other bytes leave the OSC running
// (as skipped, since its number or body no longer fits).
func (s *Scanner) inOSC(c byte, keep bool) {
	switch c {
	case 0x07, 0x18, 0x1a:
		s.st = ground
	case 0x1b:
		s.st, s.keep = oscEsc, keep
	default:
		// Control bytes a terminal would execute inside an OSC (or a
		// byte that breaks the number): the mark cannot be one of ours.
		s.st = oscSkip
	}
}

// afterEscape reads the byte after an ESC that starts a sequence.
func (s *Scanner) afterEscape(c byte) {
	switch c {
	case ']':
		s.st, s.param = oscParam, s.param[:0]
	case 'P', '_', '^', 'X':
		s.st = str
	case 0x1b:
		s.st = escape
	default:
		s.st = ground
	}
}
