package main

import (
	"errors"
	"io"
	"strings"
	"testing"
)

const sampleCast = `{"version": 2, "width": 20, "height": 5, "timestamp": 1700000000, "env": {"TERM": "xterm-256color"}}
[0.0, "o", "hello\r\n"]

[0.5, "r", "30x6"]
[0.75, "m", "mark"]
[1.25, "o", "\u001b[1mbold\u001b[0m"]
[2, "i", "q"]
`

func TestCastReader(t *testing.T) {
	cr, err := newCastReader(strings.NewReader(sampleCast))
	if err != nil {
		t.Fatal(err)
	}
	if h := cr.Header(); h.Width != 20 || h.Height != 5 || h.Env["TERM"] != "xterm-256color" {
		t.Fatalf("header = %+v", h)
	}
	want := []castEvent{
		{0, "o", "hello\r\n"},
		{0.5, "r", "30x6"},
		{0.75, "m", "mark"},
		{1.25, "o", "\x1b[1mbold\x1b[0m"},
		{2, "i", "q"},
	}
	for i, w := range want {
		ev, err := cr.Next()
		if err != nil || ev != w {
			t.Fatalf("event %d = %+v, %v; want %+v", i, ev, err, w)
		}
	}
	if _, err := cr.Next(); err != io.EOF {
		t.Fatalf("after the last event: %v, want io.EOF", err)
	}
}

func TestCastReaderErrors(t *testing.T) {
	tests := []struct {
		name, in string
		line     int
	}{
		{"empty", "", 1},
		{"not json", "hello\n", 1},
		{"version 1", `{"version": 1, "width": 80, "height": 24}`, 1},
		{"version 3", `{"version": 3, "term": {"cols": 80, "rows": 24}}`, 1},
		{"negative size", `{"version": 2, "width": -1, "height": 24}`, 1},
		{"huge size", `{"version": 2, "width": 100000, "height": 24}`, 1},
		{"event object", `{"version": 2, "width": 80, "height": 24}` + "\n" + `{"a": 1}`, 2},
		{"two elements", `{"version": 2, "width": 80, "height": 24}` + "\n" + `[1, "o"]`, 2},
		{"negative time", `{"version": 2, "width": 80, "height": 24}` + "\n\n" + `[-1, "o", "x"]`, 3},
		{"string time", `{"version": 2, "width": 80, "height": 24}` + "\n" + `["1", "o", "x"]`, 2},
		{"number data", `{"version": 2, "width": 80, "height": 24}` + "\n" + `[1, "o", 5]`, 2},
		{"empty code", `{"version": 2, "width": 80, "height": 24}` + "\n" + `[1, "", "x"]`, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := readAllCast(strings.NewReader(tt.in))
			var ce *castError
			if !errors.As(err, &ce) {
				t.Fatalf("error = %v, want *castError", err)
			}
			if ce.line != tt.line {
				t.Fatalf("error %q names line %d, want %d", err, ce.line, tt.line)
			}
		})
	}
}

// TestCastReaderZeroSize reads a header as asciinema writes it when it
// recorded without a sized terminal.
func TestCastReaderZeroSize(t *testing.T) {
	cr, err := newCastReader(strings.NewReader(`{"version": 2, "width": 0, "height": 0}`))
	if err != nil {
		t.Fatal(err)
	}
	if h := cr.Header(); h.Width != 80 || h.Height != 24 {
		t.Fatalf("size %dx%d, want the 80x24 default", h.Width, h.Height)
	}
}

func TestCastReaderLongLine(t *testing.T) {
	in := `{"version": 2, "width": 80, "height": 24}` + "\n" + `[1, "o", "` + strings.Repeat("a", maxCastLine) + `"]`
	var ce *castError
	if err := readAllCast(strings.NewReader(in)); !errors.As(err, &ce) || ce.line != 2 {
		t.Fatalf("error = %v, want a *castError for line 2", err)
	}
}

// readAllCast reads a whole cast and returns the first error, nil at EOF.
func readAllCast(r io.Reader) error {
	cr, err := newCastReader(r)
	if err != nil {
		return err
	}
	for {
		if _, err := cr.Next(); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// FuzzReadCast checks that the reader never panics and that what it
// accepts satisfies its documented checks.
func FuzzReadCast(f *testing.F) {
	f.Add(sampleCast)
	f.Add(`{"version": 2, "width": 1, "height": 1}` + "\n" + `[1e308, "o", "\ud800"]`)
	f.Add(`{"version": 2, "width": 80, "height": 24}` + "\n" + `[0, "r", "0x0"]` + "\n" + `[`)
	f.Add("\n\n{}\n")
	f.Fuzz(func(t *testing.T, s string) {
		cr, err := newCastReader(strings.NewReader(s))
		if err != nil {
			return
		}
		if h := cr.Header(); h.Version != 2 || h.Width < 1 || h.Height < 1 || h.Width > maxCastSide || h.Height > maxCastSide {
			t.Fatalf("accepted header %+v", h)
		}
		for range 10000 {
			ev, err := cr.Next()
			if err != nil {
				return
			}
			if ev.Time < 0 || ev.Code == "" {
				t.Fatalf("accepted event %+v", ev)
			}
			if ev.Code == "r" {
				if c, r, err := parseCastSize(ev.Data); err == nil && (c < 1 || r < 1 || c > maxCastSide || r > maxCastSide) {
					t.Fatalf("accepted resize %q as %dx%d", ev.Data, c, r)
				}
			}
		}
	})
}
