package attachclient

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
)

// errSSE is a host SSE stream the carrier cannot read: a line past the
// limit or an event whose data is not standard base64.
var errSSE = errors.New("attachclient: malformed SSE stream")

// sseReader reads the relay's host SSE stream: "data:" lines accumulate
// (joined by newlines, as the SSE rules say), a blank line dispatches the
// event; "event:", "id:", "retry:" and comment lines (": heartbeat") are
// skipped. Lines end in LF or CRLF. Not safe for concurrent use.
type sseReader struct {
	r       *bufio.Reader
	maxLine int
	data    []byte
	has     bool // a data line was seen since the last dispatch
}

func newSSEReader(r io.Reader, maxLine int) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 64<<10), maxLine: maxLine}
}

// line returns the next line without its terminator, refusing one longer
// than maxLine before it is all buffered.
func (s *sseReader) line() ([]byte, error) {
	var out []byte
	for {
		chunk, err := s.r.ReadSlice('\n')
		if len(out)+len(chunk) > s.maxLine+2 {
			return nil, fmt.Errorf("%w: line longer than %d bytes", errSSE, s.maxLine)
		}
		out = append(out, chunk...)
		switch {
		case err == nil:
			out = bytes.TrimSuffix(out[:len(out)-1], []byte{'\r'})
			return out, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(out) > 0:
			return nil, io.ErrUnexpectedEOF
		default:
			return nil, err
		}
	}
}

// next returns the decoded data of the next event that carried data.
func (s *sseReader) next() ([]byte, error) {
	for {
		ln, err := s.line()
		if err != nil {
			return nil, err
		}
		if len(ln) == 0 {
			if !s.has {
				continue
			}
			raw := s.data
			s.data, s.has = s.data[:0], false
			b := make([]byte, base64.StdEncoding.DecodedLen(len(raw)))
			n, err := base64.StdEncoding.Decode(b, raw)
			if err != nil {
				return nil, fmt.Errorf("%w: event data is not base64: %v", errSSE, err)
			}
			return b[:n], nil
		}
		field, value, _ := bytes.Cut(ln, []byte{':'})
		if len(field) == 0 || !bytes.Equal(field, []byte("data")) {
			continue // a comment, event, id or retry line
		}
		value = bytes.TrimPrefix(value, []byte{' '})
		if s.has {
			s.data = append(s.data, '\n')
		}
		if len(s.data)+len(value) > s.maxLine {
			return nil, fmt.Errorf("%w: event longer than %d bytes", errSSE, s.maxLine)
		}
		s.data = append(s.data, value...)
		s.has = true
	}
}
