package attachwire

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
)

// The degraded lane's down half is a text/event-stream: every frame is one
// event named SSEFrameEvent whose one data line is the frame in standard
// base64, and the relay writes a ": heartbeat" comment every 15 s so that
// an idle stream is told apart from a dead one.

// SSEFrameEvent is the event type of a frame on the lane's SSE stream.
const SSEFrameEvent = "frame"

// SSEHeartbeat is the text of the relay's heartbeat comment.
const SSEHeartbeat = "heartbeat"

// ErrSSETooLong is a line, or an event's data, longer than an SSEReader's
// limit: the stream cannot be read on, since the rest of the line is not
// consumed.
var ErrSSETooLong = errors.New("attachwire: sse line or event longer than the limit")

// SSEEvent is one dispatched event, or one comment line.
type SSEEvent struct {
	// Event is the event type; empty when the event named none.
	Event string
	// Data is the event's data lines joined by "\n". It is valid until the
	// next call of Next.
	Data []byte
	// Comment is a comment line's text after the colon and one optional
	// space; set for comments only.
	Comment string
	// IsComment tells a comment (a heartbeat) from an event.
	IsComment bool
}

// SSEReader reads a text/event-stream as the HTML standard defines it:
// lines end in CRLF, LF or a lone CR; an empty line dispatches the event
// when a data line was seen; "field: value" splits at the first colon and
// drops one space after it; a line without a colon is a field with an
// empty value; a leading byte order mark is skipped. Only event and data
// are kept (the relay sends neither id nor retry). Comments are returned,
// so that a caller can count a heartbeat as life on the stream. Not safe
// for concurrent use.
type SSEReader struct {
	r      *bufio.Reader
	max    int
	line   []byte
	event  string
	data   []byte
	has    bool // a data line was seen since the last dispatch
	pendCR bool // the last line ended in CR: a following LF belongs to it
	begun  bool // past the optional byte order mark
}

// NewSSEReader returns a reader of r that refuses, with ErrSSETooLong, a
// line or an event's data longer than max bytes, before buffering more
// than that.
func NewSSEReader(r io.Reader, max int) *SSEReader {
	return &SSEReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// readLine returns the next line without its terminator; the slice is
// valid until the next call. A stream that ends inside a line is
// io.ErrUnexpectedEOF.
func (s *SSEReader) readLine() ([]byte, error) {
	s.line = s.line[:0]
	for {
		if s.r.Buffered() == 0 {
			if _, err := s.r.Peek(1); err != nil {
				if err == io.EOF && len(s.line) > 0 {
					return nil, io.ErrUnexpectedEOF
				}
				return nil, err
			}
		}
		buf, _ := s.r.Peek(s.r.Buffered())
		if s.pendCR {
			s.pendCR = false
			if buf[0] == '\n' {
				s.r.Discard(1)
				continue
			}
		}
		if !s.begun {
			if len(buf) < 3 && bytes.HasPrefix([]byte("\xef\xbb\xbf"), buf) {
				if more, err := s.r.Peek(3); err == nil || len(more) > len(buf) {
					continue // a prefix of the mark: read on to tell
				}
			}
			s.begun = true
			if bytes.HasPrefix(buf, []byte("\xef\xbb\xbf")) {
				s.r.Discard(3)
				continue
			}
		}
		end := bytes.IndexByte(buf, '\n')
		seg := buf
		if end >= 0 {
			seg = buf[:end]
		}
		if cr := bytes.IndexByte(seg, '\r'); cr >= 0 {
			end = cr
		}
		if end < 0 {
			if len(s.line)+len(buf) > s.max {
				return nil, fmt.Errorf("%w (%d bytes)", ErrSSETooLong, s.max)
			}
			s.line = append(s.line, buf...)
			s.r.Discard(len(buf))
			continue
		}
		if len(s.line)+end > s.max {
			return nil, fmt.Errorf("%w (%d bytes)", ErrSSETooLong, s.max)
		}
		s.line = append(s.line, buf[:end]...)
		s.pendCR = buf[end] == '\r'
		s.r.Discard(end + 1)
		return s.line, nil
	}
}

// Next returns the next event or comment. At the stream's end it returns
// io.EOF; an event not closed by an empty line is dropped, as the
// standard says, and a stream cut inside a line is io.ErrUnexpectedEOF.
func (s *SSEReader) Next() (SSEEvent, error) {
	for {
		ln, err := s.readLine()
		if err != nil {
			return SSEEvent{}, err
		}
		if len(ln) == 0 {
			if !s.has {
				s.event = ""
				continue
			}
			ev := SSEEvent{Event: s.event, Data: s.data}
			s.event, s.data, s.has = "", s.data[:0], false
			return ev, nil
		}
		if ln[0] == ':' {
			return SSEEvent{Comment: string(bytes.TrimPrefix(ln[1:], []byte{' '})), IsComment: true}, nil
		}
		field, value, _ := bytes.Cut(ln, []byte{':'})
		value = bytes.TrimPrefix(value, []byte{' '})
		switch string(field) {
		case "event":
			s.event = string(value)
		case "data":
			if s.has {
				s.data = append(s.data, '\n')
			}
			if len(s.data)+len(value) > s.max {
				return SSEEvent{}, fmt.Errorf("%w (%d bytes)", ErrSSETooLong, s.max)
			}
			s.data = append(s.data, value...)
			s.has = true
		}
	}
}

// SSEFrameLimit is the line limit an SSEReader needs for frames of up to
// frameBytes: their base64 and a margin for the field name. Past 1 GiB
// it counts 1 GiB, so that the limit is an int on every platform.
func SSEFrameLimit(frameBytes int64) int {
	return base64.StdEncoding.EncodedLen(int(min(max(frameBytes, 0), 1<<30))) + 64
}

// AppendSSEFrame appends frame as one SSEFrameEvent event.
func AppendSSEFrame(dst, frame []byte) []byte {
	dst = append(dst, "event: "+SSEFrameEvent+"\ndata: "...)
	dst = base64.StdEncoding.AppendEncode(dst, frame)
	return append(dst, "\n\n"...)
}

// AppendSSEComment appends a comment line and the empty line after it.
// text must hold no line break.
func AppendSSEComment(dst []byte, text string) []byte {
	dst = append(dst, ": "...)
	dst = append(dst, text...)
	return append(dst, "\n\n"...)
}

// DecodeLaneFrame decodes a lane frame: standard base64 of a frame, as an
// SSE event's data or an entry of a batch carries it. A defect is a
// *FramingError. The frame's payload is a new slice.
func DecodeLaneFrame(b64 []byte) (Frame, error) {
	b := make([]byte, base64.StdEncoding.DecodedLen(len(b64)))
	n, err := base64.StdEncoding.Decode(b, b64)
	if err != nil {
		return Frame{}, &FramingError{Reason: "lane frame is not standard base64", Err: err}
	}
	return DecodeFrame(b[:n])
}

// EncodeLaneFrame encodes f as a lane frame (standard base64).
func EncodeLaneFrame(f Frame) (string, error) {
	b, err := f.MarshalBinary()
	if err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b), nil
}
