package cast

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Limits of the Reader: a longer line, or a larger size in the header or a
// resize event, is rejected rather than allocated for.
const (
	MaxLine = 16 << 20
	MaxSide = 10000
)

// The size assumed for a cast whose header says 0x0, as asciinema writes
// when it recorded without a sized terminal.
const (
	DefaultWidth  = 80
	DefaultHeight = 24
)

// Event is one event line of a cast.
type Event struct {
	Time float64 // seconds since the start of the recording
	Code string  // CodeOutput, CodeInput, CodeResize, CodeMarker, CodeExit, or another
	Data string
}

// ErrBadCast is matched (errors.Is) by every *Error.
var ErrBadCast = errors.New("cast: not a readable asciicast v2 or v3 file")

// Error reports a malformed cast, naming the line (1-based).
type Error struct {
	Line   int
	Reason string
}

func (e *Error) Error() string { return fmt.Sprintf("cast line %d: %s", e.Line, e.Reason) }

// Is reports whether target is ErrBadCast.
func (e *Error) Is(target error) bool { return target == ErrBadCast }

// Reader reads a v2 or v3 cast: NewReader checks the header, Next returns
// the events in file order, each with its time since the start (v3's
// intervals summed). Blank lines are skipped, and so are a v3 cast's
// comment lines.
type Reader struct {
	sc     *bufio.Scanner
	line   int
	header Header
	us     uint64 // a v3 cast's time so far, in µs
}

// NewReader reads and checks the header line of a v2 or v3 cast.
func NewReader(r io.Reader) (*Reader, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLine)
	cr := &Reader{sc: sc}
	line, err := cr.nextLine()
	if err == io.EOF {
		return nil, &Error{Line: 1, Reason: "empty file, want an asciicast header"}
	}
	if err != nil {
		return nil, err
	}
	var v struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(line, &v); err != nil {
		return nil, &Error{Line: cr.line, Reason: "header is not a JSON object: " + jsonReason(err)}
	}
	h := &cr.header
	switch v.Version {
	case 2:
		err = json.Unmarshal(line, h)
	case 3:
		var h3 headerV3
		err = json.Unmarshal(line, &h3)
		*h = h3.header()
		if err == nil && !bytes.Contains(line, []byte(`"term"`)) {
			return nil, &Error{Line: cr.line, Reason: "v3 header has no term"}
		}
	default:
		return nil, &Error{Line: cr.line, Reason: fmt.Sprintf("asciicast version %d is not supported (want 2 or 3)", v.Version)}
	}
	if err != nil {
		return nil, &Error{Line: cr.line, Reason: "header: " + jsonReason(err)}
	}
	switch {
	case h.Width < 0 || h.Height < 0 || h.Width > MaxSide || h.Height > MaxSide:
		return nil, &Error{Line: cr.line, Reason: fmt.Sprintf("header size %dx%d is out of range", h.Width, h.Height)}
	}
	if h.Width == 0 || h.Height == 0 {
		h.Width, h.Height = DefaultWidth, DefaultHeight
	}
	return cr, nil
}

// Header returns the cast's header; a 0x0 size reads as 80x24.
func (r *Reader) Header() Header { return r.header }

// Next returns the next event, or io.EOF after the last one.
func (r *Reader) Next() (Event, error) {
	line, err := r.nextLine()
	for err == nil && r.header.Version == 3 && line[0] == '#' {
		line, err = r.nextLine()
	}
	if err != nil {
		return Event{}, err
	}
	// One decoding pass per event: the replay reads events as fast as
	// they are due, and a cast may hold millions.
	var parts []any
	if err := json.Unmarshal(line, &parts); err != nil {
		return Event{}, &Error{Line: r.line, Reason: "event is not a JSON array: " + jsonReason(err)}
	}
	if len(parts) != 3 {
		return Event{}, &Error{Line: r.line, Reason: fmt.Sprintf("event has %d elements, want [time, code, data]", len(parts))}
	}
	var ev Event
	var ok bool
	if ev.Time, ok = parts[0].(float64); !ok || ev.Time < 0 || math.IsInf(ev.Time, 0) || math.IsNaN(ev.Time) {
		return Event{}, &Error{Line: r.line, Reason: "event time is not a non-negative number"}
	}
	if ev.Code, ok = parts[1].(string); !ok || ev.Code == "" {
		return Event{}, &Error{Line: r.line, Reason: "event code is not a non-empty string"}
	}
	if ev.Data, ok = parts[2].(string); !ok {
		return Event{}, &Error{Line: r.line, Reason: "event data is not a string"}
	}
	if r.header.Version == 3 {
		// Sum in whole µs, the resolution casts are written in, so that a
		// long cast's times do not drift with float rounding.
		iv := math.Round(ev.Time * 1e6)
		if iv > math.MaxUint64/2 || r.us+uint64(iv) < r.us {
			return Event{}, &Error{Line: r.line, Reason: "event interval out of range"}
		}
		r.us += uint64(iv)
		ev.Time = float64(r.us) / 1e6
	}
	return ev, nil
}

// nextLine returns the next non-blank line.
func (r *Reader) nextLine() ([]byte, error) {
	for r.sc.Scan() {
		r.line++
		if b := bytes.TrimSpace(r.sc.Bytes()); len(b) > 0 {
			return b, nil
		}
	}
	err := r.sc.Err()
	switch {
	case err == nil:
		return nil, io.EOF
	case errors.Is(err, bufio.ErrTooLong):
		return nil, &Error{Line: r.line + 1, Reason: fmt.Sprintf("line longer than %d bytes", MaxLine)}
	}
	return nil, fmt.Errorf("cast: read: %w", err)
}

// ParseSize parses the data of a resize event, "COLSxROWS", each side in
// 1..MaxSide.
func ParseSize(data string) (cols, rows int, err error) {
	c, rs, ok := strings.Cut(data, "x")
	if ok {
		cols, err = strconv.Atoi(c)
		if err == nil {
			rows, err = strconv.Atoi(rs)
		}
	}
	if !ok || err != nil || cols < 1 || rows < 1 || cols > MaxSide || rows > MaxSide {
		return 0, 0, fmt.Errorf("%w: bad size %q", ErrBadCast, data)
	}
	return cols, rows, nil
}

// jsonReason shortens encoding/json's messages to their cause.
func jsonReason(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%v at offset %d", se, se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field != "" {
			return fmt.Sprintf("field %q has the wrong type", te.Field)
		}
		return "wrong JSON type"
	}
	return err.Error()
}
