package cast

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// maxLine caps one line of a cast, so a hostile file cannot make the
// Reader buffer without bound.
const maxLine = 16 << 20

// Event is one event line of a cast.
type Event struct {
	Time float64 // seconds since the start of the recording
	Code string  // CodeOutput, CodeInput, CodeResize, CodeMarker, or another
	Data string
}

// Reader reads a v2 cast: NewReader parses the header, Next each event.
type Reader struct {
	s      *bufio.Scanner
	Header Header
	line   int
}

// NewReader reads and checks the header line of a v2 cast.
func NewReader(r io.Reader) (*Reader, error) {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 0, 64<<10), maxLine)
	cr := &Reader{s: s}
	if !cr.scan() {
		if err := s.Err(); err != nil {
			return nil, fmt.Errorf("cast: header: %w", err)
		}
		return nil, fmt.Errorf("%w: empty file", ErrBadCast)
	}
	if err := json.Unmarshal(s.Bytes(), &cr.Header); err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrBadCast, err)
	}
	if cr.Header.Version != 2 {
		return nil, fmt.Errorf("%w: version %d", ErrBadCast, cr.Header.Version)
	}
	if cr.Header.Width <= 0 || cr.Header.Height <= 0 {
		return nil, fmt.Errorf("%w: size %dx%d", ErrBadCast, cr.Header.Width, cr.Header.Height)
	}
	return cr, nil
}

func (r *Reader) scan() bool {
	for r.s.Scan() {
		r.line++
		if len(bytes.TrimSpace(r.s.Bytes())) > 0 {
			return true
		}
	}
	return false
}

// Next returns the next event, or io.EOF after the last one.
func (r *Reader) Next() (Event, error) {
	if !r.scan() {
		if err := r.s.Err(); err != nil {
			return Event{}, fmt.Errorf("cast: line %d: %w", r.line+1, err)
		}
		return Event{}, io.EOF
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(r.s.Bytes(), &raw); err != nil || len(raw) != 3 {
		return Event{}, fmt.Errorf("%w: line %d: not a [time, code, data] event", ErrBadCast, r.line)
	}
	var ev Event
	if err := json.Unmarshal(raw[0], &ev.Time); err != nil || ev.Time < 0 || math.IsInf(ev.Time, 0) {
		return Event{}, fmt.Errorf("%w: line %d: bad time", ErrBadCast, r.line)
	}
	if err := json.Unmarshal(raw[1], &ev.Code); err != nil {
		return Event{}, fmt.Errorf("%w: line %d: bad code", ErrBadCast, r.line)
	}
	if err := json.Unmarshal(raw[2], &ev.Data); err != nil {
		return Event{}, fmt.Errorf("%w: line %d: bad data", ErrBadCast, r.line)
	}
	return ev, nil
}

// ParseSize parses the data of a resize event, "COLSxROWS".
func ParseSize(data string) (cols, rows int, err error) {
	c, r, ok := strings.Cut(data, "x")
	if ok {
		cols, err = strconv.Atoi(c)
		if err == nil {
			rows, err = strconv.Atoi(r)
		}
	}
	if !ok || err != nil || cols <= 0 || rows <= 0 {
		return 0, 0, fmt.Errorf("%w: bad size %q", ErrBadCast, data)
	}
	return cols, rows, nil
}
