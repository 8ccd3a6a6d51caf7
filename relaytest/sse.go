package relaytest

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
)

// ErrSSELine is returned by SSEReader.Next for a line longer than the
// reader's limit.
var ErrSSELine = errors.New("relaytest: sse: line too long")

// SSEEvent is one dispatched Server-Sent Event, or one comment line (then
// only Comment is set: the relay's ": heartbeat" shows up as "heartbeat").
type SSEEvent struct {
	// Event is the event type ("frame" on the relay's streams); empty when
	// the event named none.
	Event string
	// Data is the event's data lines joined by "\n".
	Data string
	// Comment is the text of a comment line after ": ", for comments only.
	Comment string
	// IsComment tells a comment from an event.
	IsComment bool
}

// SSEReader parses a text/event-stream: "field: value" lines, an empty line
// dispatching the event, lines starting with ':' being comments, lines
// ending in LF, CRLF or CR. Only the event and data fields are kept (id and
// retry are ignored, as the relay sends neither). It is not safe for
// concurrent use.
type SSEReader struct {
	r       *bufio.Reader
	max     int
	event   string
	data    []string
	hasData bool
	pendCR  bool // the previous line ended in CR: a following LF is part of it
}

// NewSSEReader returns a reader of r refusing lines longer than maxLine
// bytes (at least 1 KiB is used).
func NewSSEReader(r io.Reader, maxLine int) *SSEReader {
	return &SSEReader{r: bufio.NewReaderSize(r, 64<<10), max: max(maxLine, 1<<10)}
}

// line reads one line without its terminator.
func (s *SSEReader) line() (string, error) {
	var b []byte
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			if err == io.EOF && len(b) > 0 {
				return "", io.ErrUnexpectedEOF
			}
			return "", err
		}
		if s.pendCR {
			s.pendCR = false
			if c == '\n' {
				continue
			}
		}
		switch c {
		case '\n':
			return string(b), nil
		case '\r':
			s.pendCR = true
			return string(b), nil
		}
		if len(b) >= s.max {
			return "", ErrSSELine
		}
		b = append(b, c)
	}
}

// Next returns the next event or comment. At the end of the stream it
// returns io.EOF (an event not terminated by an empty line is dropped, as
// the SSE standard says).
func (s *SSEReader) Next() (SSEEvent, error) {
	for {
		ln, err := s.line()
		if err != nil {
			return SSEEvent{}, err
		}
		if ln == "" {
			if !s.hasData && s.event == "" {
				continue
			}
			e := SSEEvent{Event: s.event, Data: strings.Join(s.data, "\n")}
			s.event, s.data, s.hasData = "", nil, false
			return e, nil
		}
		if c, ok := strings.CutPrefix(ln, ":"); ok {
			return SSEEvent{Comment: strings.TrimPrefix(c, " "), IsComment: true}, nil
		}
		field, value, _ := strings.Cut(ln, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			s.event = value
		case "data":
			s.data = append(s.data, value)
			s.hasData = true
		}
	}
}

// ParseSSE parses a whole stream, for tests and fuzzing.
func ParseSSE(b []byte, maxLine int) ([]SSEEvent, error) {
	r := NewSSEReader(bytes.NewReader(b), maxLine)
	var out []SSEEvent
	for {
		e, err := r.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, e)
	}
}
