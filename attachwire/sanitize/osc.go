package sanitize

import (
	"bytes"
	"encoding/base64"
	"unicode/utf8"
)

// oscKind is what an OSC string turned out to be once its number was read.
type oscKind uint8

const (
	oscNumber  oscKind = iota // reading the command number
	oscDiscard                // dropped: not allowed, malformed or over its cap
	oscTitle                  // 0, 1, 2: window and icon titles
	oscLink                   // 8: hyperlink
	oscClip                   // 52: clipboard, buffered only for OnClipboard
)

// buffers reports whether strings of kind k are kept for dispatch.
func (k oscKind) buffers() bool { return k >= oscTitle }

func (s *Sanitizer) enterOSC() {
	s.state = stOSC
	s.osc = oscNumber
	s.oscNum, s.oscDigits = 0, 0
	s.buf = s.buf[:0]
}

// oscPut adds string bytes (one 7-bit byte or one UTF-8 character) to the
// OSC being parsed. Only allowed kinds are buffered, each up to its cap;
// past it the string is discarded while the parser still watches for its
// terminator.
func (s *Sanitizer) oscPut(b ...byte) {
	switch s.osc {
	case oscDiscard:
	case oscNumber:
		switch c := b[0]; {
		case c >= '0' && c <= '9' && s.oscDigits < 5:
			s.oscNum = s.oscNum*10 + int(c-'0')
			s.oscDigits++
		case c == ';' && s.oscDigits > 0:
			s.osc, s.oscLimit = s.oscKindOf(s.oscNum)
		default:
			s.osc = oscDiscard
		}
	default:
		if len(s.buf)+len(b) > s.oscLimit {
			s.osc = oscDiscard
			return
		}
		s.buf = append(s.buf, b...)
	}
}

// oscKindOf returns the kind of OSC number n and its buffer cap.
func (s *Sanitizer) oscKindOf(n int) (oscKind, int) {
	switch n {
	case 0, 1, 2:
		return oscTitle, s.opt.MaxTitleBytes
	case 8:
		return oscLink, min(s.opt.MaxURIBytes+linkSlack, s.opt.MaxStringBytes)
	case 52:
		if s.opt.OnClipboard != nil {
			return oscClip, s.opt.MaxStringBytes
		}
	}
	return oscDiscard, 0
}

// oscDispatch applies the policy to a terminated OSC string.
func (s *Sanitizer) oscDispatch(dst []byte) []byte {
	switch s.osc {
	case oscTitle:
		return s.title(dst)
	case oscLink:
		return s.link(dst)
	case oscClip:
		s.clipboard()
	}
	return dst
}

// title re-emits a title made of printable characters only.
func (s *Sanitizer) title(dst []byte) []byte {
	t := s.buf
	for len(t) > 0 {
		r, n := utf8.DecodeRune(t)
		if !displayable(r) {
			return dst
		}
		t = t[n:]
	}
	if s.opt.OnTitle != nil {
		s.opt.OnTitle(UIString(string(s.buf), s.opt.MaxTitleBytes))
	}
	return s.emitOSC(dst, int32(s.oscNum), s.buf)
}

// link re-emits an OSC 8 hyperlink: params ; URI. The closing form with an
// empty URI always passes; otherwise the URI must be an http, https or
// mailto URI of printable ASCII, and only a well-formed id parameter is
// kept.
func (s *Sanitizer) link(dst []byte) []byte {
	params, uri, ok := bytes.Cut(s.buf, []byte{';'})
	switch {
	case !ok:
		return dst
	case len(uri) == 0:
		return s.emitOSC(dst, 8, nil, nil)
	case len(uri) > s.opt.MaxURIBytes || !linkURI(uri):
		return dst
	}
	return s.emitOSC(dst, 8, linkID(params), uri)
}

// linkURI reports whether uri has an allowed scheme and only printable
// ASCII.
func linkURI(uri []byte) bool {
	scheme, _, ok := bytes.Cut(uri, []byte{':'})
	if !ok || !(bytes.EqualFold(scheme, []byte("http")) ||
		bytes.EqualFold(scheme, []byte("https")) ||
		bytes.EqualFold(scheme, []byte("mailto"))) {
		return false
	}
	for _, c := range uri {
		if c <= ' ' || c >= del {
			return false
		}
	}
	return true
}

// linkID returns the first well-formed "id=" parameter of an OSC 8
// parameter list (key=value pairs separated by ':'), or nil.
func linkID(params []byte) []byte {
	for len(params) > 0 {
		var p []byte
		p, params, _ = bytes.Cut(params, []byte{':'})
		v, ok := bytes.CutPrefix(p, []byte("id="))
		if ok && len(v) >= 1 && len(v) <= 64 && linkIDChars(v) {
			return p
		}
	}
	return nil
}

func linkIDChars(v []byte) bool {
	for _, c := range v {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9',
			c == '.', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// clipboard hands the decoded text of an OSC 52 write (Pc ; base64) to
// OnClipboard. Reads ("?") and undecodable payloads are ignored.
func (s *Sanitizer) clipboard() {
	_, data, ok := bytes.Cut(s.buf, []byte{';'})
	if !ok || len(data) == 0 || string(data) == "?" {
		return
	}
	text, err := base64.StdEncoding.DecodeString(string(data))
	if err != nil {
		text, err = base64.RawStdEncoding.DecodeString(string(data))
	}
	if err != nil || len(text) == 0 {
		return
	}
	s.opt.OnClipboard(UIString(string(text), 0))
}
