package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
)

// Limits of the cast reader: a line longer than maxCastLine, or a header
// size beyond maxCastSide, is rejected rather than allocated.
const (
	maxCastLine = 16 << 20
	maxCastSide = 10000

	// The size assumed for a cast whose header says 0x0.
	defaultCastCols = 80
	defaultCastRows = 24
)

// castHeader is the first line of an asciicast v2 file. Only the fields
// ptyhost uses are kept; unknown fields are ignored.
type castHeader struct {
	Version   int               `json:"version"`
	Width     int               `json:"width"`
	Height    int               `json:"height"`
	Timestamp int64             `json:"timestamp,omitempty"`
	Command   string            `json:"command,omitempty"`
	Title     string            `json:"title,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	IdleLimit float64           `json:"idle_time_limit,omitempty"`
}

// castEvent is one event line: [time, code, data]. Code is "o" (output),
// "i" (input), "r" (resize, data "COLSxROWS") or "m" (marker); other codes
// are passed through for the caller to skip.
type castEvent struct {
	Time float64 // seconds since the start of the recording
	Code string
	Data string
}

// castError reports a malformed cast file, naming the line.
type castError struct {
	line   int
	reason string
}

func (e *castError) Error() string {
	return fmt.Sprintf("cast line %d: %s", e.line, e.reason)
}

// castReader reads an asciicast v2 stream: the header, then events in file
// order. It is not safe for concurrent use.
type castReader struct {
	sc     *bufio.Scanner
	line   int
	header castHeader
}

// newCastReader reads and checks the header line.
func newCastReader(r io.Reader) (*castReader, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxCastLine)
	cr := &castReader{sc: sc}
	line, err := cr.nextLine()
	if err == io.EOF {
		return nil, &castError{line: 1, reason: "empty file, want an asciicast v2 header"}
	}
	if err != nil {
		return nil, err
	}
	h := &cr.header
	if err := json.Unmarshal(line, h); err != nil {
		return nil, &castError{line: cr.line, reason: "header is not a JSON object: " + jsonReason(err)}
	}
	switch {
	case h.Version != 2:
		return nil, &castError{line: cr.line, reason: fmt.Sprintf("asciicast version %d is not supported (want 2)", h.Version)}
	case h.Width < 0 || h.Height < 0 || h.Width > maxCastSide || h.Height > maxCastSide:
		return nil, &castError{line: cr.line, reason: fmt.Sprintf("header size %dx%d is out of range", h.Width, h.Height)}
	}
	// asciinema writes 0x0 when it recorded without a sized terminal.
	if h.Width == 0 || h.Height == 0 {
		h.Width, h.Height = defaultCastCols, defaultCastRows
	}
	return cr, nil
}

// Header returns the cast's header.
func (cr *castReader) Header() castHeader { return cr.header }

// Next returns the next event, or io.EOF after the last one.
func (cr *castReader) Next() (castEvent, error) {
	line, err := cr.nextLine()
	if err != nil {
		return castEvent{}, err
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(line, &parts); err != nil {
		return castEvent{}, &castError{line: cr.line, reason: "event is not a JSON array: " + jsonReason(err)}
	}
	if len(parts) != 3 {
		return castEvent{}, &castError{line: cr.line, reason: fmt.Sprintf("event has %d elements, want [time, code, data]", len(parts))}
	}
	var ev castEvent
	if json.Unmarshal(parts[0], &ev.Time) != nil || ev.Time < 0 || math.IsInf(ev.Time, 0) || math.IsNaN(ev.Time) {
		return castEvent{}, &castError{line: cr.line, reason: "event time is not a non-negative number"}
	}
	if json.Unmarshal(parts[1], &ev.Code) != nil || ev.Code == "" {
		return castEvent{}, &castError{line: cr.line, reason: "event code is not a non-empty string"}
	}
	if json.Unmarshal(parts[2], &ev.Data) != nil {
		return castEvent{}, &castError{line: cr.line, reason: "event data is not a string"}
	}
	return ev, nil
}

// nextLine returns the next non-blank line.
func (cr *castReader) nextLine() ([]byte, error) {
	for cr.sc.Scan() {
		cr.line++
		if b := bytes.TrimSpace(cr.sc.Bytes()); len(b) > 0 {
			return b, nil
		}
	}
	err := cr.sc.Err()
	switch {
	case err == nil:
		return nil, io.EOF
	case errors.Is(err, bufio.ErrTooLong):
		return nil, &castError{line: cr.line + 1, reason: fmt.Sprintf("line longer than %d bytes", maxCastLine)}
	}
	return nil, err
}

// parseCastSize parses the data of an "r" event.
func parseCastSize(data string) (cols, rows int, err error) {
	cols, rows, err = parseSize(data)
	if err == nil && (cols > maxCastSide || rows > maxCastSide) {
		err = fmt.Errorf("%dx%d is out of range", cols, rows)
	}
	return cols, rows, err
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
