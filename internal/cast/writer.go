package cast

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Header is the first line of a cast, as this package reads and writes
// it for both versions: v2 names the size width and height, v3 puts it in
// a term object with the terminal's type (TermType).
type Header struct {
	// Version is 2 or 3; NewWriter writes v3 for 3 and v2 otherwise.
	Version   int               `json:"version"`
	Width     int               `json:"width"`
	Height    int               `json:"height"`
	Timestamp int64             `json:"timestamp,omitempty"`
	Command   string            `json:"command,omitempty"`
	Title     string            `json:"title,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	// IdleTimeLimit, in seconds, asks players to shorten longer pauses.
	IdleTimeLimit float64 `json:"idle_time_limit,omitempty"`
	// TermType is the terminal type (TERM) a v3 header records in
	// term.type; v2 has no place for it but env.
	TermType string `json:"-"`
}

// headerV3 is a v3 header line.
type headerV3 struct {
	Version       int               `json:"version"`
	Term          termV3            `json:"term"`
	Timestamp     int64             `json:"timestamp,omitempty"`
	IdleTimeLimit float64           `json:"idle_time_limit,omitempty"`
	Command       string            `json:"command,omitempty"`
	Title         string            `json:"title,omitempty"`
	Env           map[string]string `json:"env,omitempty"`
}

type termV3 struct {
	Cols int    `json:"cols"`
	Rows int    `json:"rows"`
	Type string `json:"type,omitempty"`
}

func (h Header) v3() headerV3 {
	return headerV3{Version: 3, Term: termV3{Cols: h.Width, Rows: h.Height, Type: h.TermType},
		Timestamp: h.Timestamp, IdleTimeLimit: h.IdleTimeLimit, Command: h.Command, Title: h.Title, Env: h.Env}
}

func (h headerV3) header() Header {
	return Header{Version: 3, Width: h.Term.Cols, Height: h.Term.Rows, TermType: h.Term.Type,
		Timestamp: h.Timestamp, IdleTimeLimit: h.IdleTimeLimit, Command: h.Command, Title: h.Title, Env: h.Env}
}

// Event codes. CodeExit is v3's: a v2 cast has no exit event.
const (
	CodeOutput = "o"
	CodeInput  = "i"
	CodeResize = "r"
	CodeMarker = "m"
	CodeExit   = "x"
)

// ErrNotInV2 is returned for what a v2 cast has no place for: comment
// lines.
var ErrNotInV2 = errors.New("cast: asciicast v2 has no comment lines")

// Writer appends events to a cast. Times are microseconds since the
// recording's anchor and must not decrease; the Writer clamps a decreasing
// time to the previous one so the file stays playable.
type Writer struct {
	bw    *bufio.Writer
	v3    bool              // event times are intervals; exit events and comments exist
	carry [utf8.UTFMax]byte // an incomplete rune held for the next Output
	ncar  int
	last  uint64
	text  []byte // decoded output, reused
	js    []byte // the event's line, reused
	err   error  // sticky: the first write error
}

// NewWriter writes h and returns a Writer for events: a v3 cast when
// h.Version is 3, else a v2 cast (Version set to 2).
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	if h.Width <= 0 || h.Height <= 0 {
		return nil, fmt.Errorf("cast: bad size %dx%d", h.Width, h.Height)
	}
	var hdr []byte
	var err error
	v3 := h.Version == 3
	if v3 {
		hdr, err = json.Marshal(h.v3())
	} else {
		h.Version = 2
		hdr, err = json.Marshal(h)
	}
	if err != nil {
		return nil, fmt.Errorf("cast: header: %w", err)
	}
	cw := &Writer{bw: bufio.NewWriterSize(w, 32<<10), v3: v3}
	cw.bw.Write(hdr)
	cw.bw.WriteByte('\n')
	return cw, cw.flushErr()
}

// Output records bytes the program wrote at time t (µs). Bytes of a rune
// that continues in the next call are held back until it arrives.
func (w *Writer) Output(t uint64, p []byte) error {
	if w.err != nil {
		return w.err
	}
	text := w.text[:0]
	if w.ncar > 0 {
		// Decode the carried bytes together with the start of p, exactly
		// as they would have been decoded in one piece.
		var buf [2 * utf8.UTFMax]byte
		carried := w.ncar
		n := copy(buf[:], w.carry[:carried])
		n += copy(buf[n:], p)
		b := buf[:n]
		i := 0
		for i < carried {
			if !utf8.FullRune(b[i:]) {
				// p ended before the rune did: keep waiting.
				w.ncar = copy(w.carry[:], b[i:])
				w.text = text
				return w.emit(t, text)
			}
			_, size := utf8.DecodeRune(b[i:])
			text = appendDecoded(text, b[i:i+size])
			i += size
		}
		p = p[i-carried:]
		w.ncar = 0
	}
	if tail := incompleteTail(p); tail > 0 {
		w.ncar = copy(w.carry[:], p[len(p)-tail:])
		p = p[:len(p)-tail]
	}
	text = appendDecoded(text, p)
	w.text = text
	return w.emit(t, text)
}

func (w *Writer) emit(t uint64, text []byte) error {
	if len(text) == 0 {
		return nil
	}
	return w.event(t, CodeOutput, text)
}

// Resize records a resize to cols×rows.
func (w *Writer) Resize(t uint64, cols, rows int) error {
	s := strconv.AppendInt(w.text[:0], int64(cols), 10)
	s = append(s, 'x')
	s = strconv.AppendInt(s, int64(rows), 10)
	w.text = s
	return w.event(t, CodeResize, s)
}

// Marker records a marker with a label.
func (w *Writer) Marker(t uint64, label string) error {
	return w.event(t, CodeMarker, appendDecoded(nil, []byte(label)))
}

// Input records bytes typed into the program, invalid UTF-8 as U+FFFD.
// Unlike Output it holds no rune back: an input is whole as delivered.
func (w *Writer) Input(t uint64, p []byte) error {
	return w.event(t, CodeInput, appendDecoded(nil, p))
}

// Exit records the program's exit status in a v3 cast; in a v2 cast,
// which has no such event, it writes nothing.
func (w *Writer) Exit(t uint64, status int) error {
	if !w.v3 {
		return w.err
	}
	return w.event(t, CodeExit, strconv.AppendInt(nil, int64(status), 10))
}

// Comment writes a "#" line to a v3 cast (players ignore them); text
// must not hold a newline. A v2 cast has none: ErrNotInV2.
func (w *Writer) Comment(text string) error {
	switch {
	case w.err != nil:
		return w.err
	case !w.v3:
		return ErrNotInV2
	case strings.ContainsAny(text, "\r\n"):
		return fmt.Errorf("cast: comment holds a line break")
	}
	w.bw.WriteString("# ")
	w.bw.WriteString(text)
	w.bw.WriteByte('\n')
	return nil
}

// Flush writes buffered events to the underlying writer. A rune still
// incomplete is kept: it may yet be completed by later output.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	return w.flushErr()
}

// Close ends the recording at time t: a rune left incomplete becomes
// U+FFFD (one per byte, as it would have if the stream had ended there),
// and buffered events are flushed. Close does not close the underlying
// writer.
func (w *Writer) Close(t uint64) error {
	if w.err == nil && w.ncar > 0 {
		text := appendInvalid(nil, w.ncar)
		w.ncar = 0
		w.event(t, CodeOutput, text)
	}
	return w.Flush()
}

func (w *Writer) flushErr() error {
	if err := w.bw.Flush(); err != nil && w.err == nil {
		w.err = fmt.Errorf("cast: write: %w", err)
	}
	return w.err
}

// event writes [seconds, code, text]; text must be valid UTF-8.
func (w *Writer) event(t uint64, code string, text []byte) error {
	if w.err != nil {
		return w.err
	}
	if t < w.last {
		t = w.last
	}
	at := t
	if w.v3 {
		// v3 times are intervals since the previous event; µs intervals
		// sum back to the µs times exactly.
		at = t - w.last
	}
	w.last = t
	line := append(w.js[:0], '[')
	line = appendSeconds(line, at)
	line = append(line, ", \""...)
	line = append(line, code...)
	line = append(line, "\", "...)
	line = appendJSONString(line, text)
	line = append(line, "]\n"...)
	w.js = line
	w.bw.Write(line)
	if w.bw.Buffered() == 0 && w.err == nil {
		// A large event went straight through: surface its error now.
		return w.flushErr()
	}
	return nil
}

// appendSeconds formats t µs as seconds with six decimals.
func appendSeconds(dst []byte, t uint64) []byte {
	dst = strconv.AppendUint(dst, t/1e6, 10)
	frac := t % 1e6
	dst = append(dst, '.')
	for d := uint64(100000); d > 0; d /= 10 {
		dst = append(dst, byte('0'+frac/d%10))
	}
	return dst
}

// incompleteTail returns how many bytes at the end of p start a rune that
// is valid so far but not complete. utf8.FullRune reports an invalid
// prefix as full (it decodes as an error), so "not full" means "valid so
// far".
func incompleteTail(p []byte) int {
	for n := 1; n < utf8.UTFMax && n <= len(p); n++ {
		switch c := p[len(p)-n]; {
		case c < utf8.RuneSelf:
			return 0
		case c >= 0xC0: // a lead byte
			if utf8.FullRune(p[len(p)-n:]) {
				return 0
			}
			return n
		}
	}
	return 0
}

// appendDecoded appends p with every byte that is not part of a valid rune
// replaced by U+FFFD.
func appendDecoded(dst, p []byte) []byte {
	for len(p) > 0 {
		if p[0] < utf8.RuneSelf {
			dst = append(dst, p[0])
			p = p[1:]
			continue
		}
		r, size := utf8.DecodeRune(p)
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, "\uFFFD"...)
		} else {
			dst = append(dst, p[:size]...)
		}
		p = p[size:]
	}
	return dst
}

func appendInvalid(dst []byte, n int) []byte {
	for range n {
		dst = append(dst, "\uFFFD"...)
	}
	return dst
}

// appendJSONString appends text as a JSON string; text is valid UTF-8.
// Runs of bytes that need no escaping are copied whole.
func appendJSONString(dst, text []byte) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i, c := range text {
		if c >= 0x20 && c != '"' && c != '\\' && c != 0x7f {
			continue
		}
		dst = append(dst, text[start:i]...)
		start = i + 1
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
	}
	dst = append(dst, text[start:]...)
	return append(dst, '"')
}
