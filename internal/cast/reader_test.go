package cast

import (
	"errors"
	"io"
	"strings"
	"testing"
)

const sampleCast = `{"version": 2, "width": 20, "height": 5, "timestamp": 1700000000, "idle_time_limit": 1.5, "env": {"TERM": "xterm-256color"}}
[0.0, "o", "hello\r\n"]

[0.5, "r", "30x6"]
[0.75, "m", "mark"]
[1.25, "o", "\u001b[1mbold\u001b[0m"]
[2, "i", "q"]
`

func TestReader(t *testing.T) {
	cr, err := NewReader(strings.NewReader(sampleCast))
	if err != nil {
		t.Fatal(err)
	}
	if h := cr.Header(); h.Width != 20 || h.Height != 5 || h.Env["TERM"] != "xterm-256color" || h.IdleTimeLimit != 1.5 {
		t.Fatalf("header = %+v", h)
	}
	want := []Event{
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

func TestReaderErrors(t *testing.T) {
	const hdr = `{"version": 2, "width": 80, "height": 24}` + "\n"
	tests := []struct {
		name, in string
		line     int
	}{
		{"empty", "", 1},
		{"not json", "hello\n", 1},
		{"version 1", `{"version": 1, "width": 80, "height": 24}`, 1},
		{"version 4", `{"version": 4, "term": {"cols": 80, "rows": 24}}`, 1},
		{"v3 without term", `{"version": 3, "width": 80, "height": 24}`, 1},
		{"v3 term of the wrong type", `{"version": 3, "term": {"cols": "80", "rows": 24}}`, 1},
		{"v3 huge size", `{"version": 3, "term": {"cols": 80, "rows": 10001}}`, 1},
		{"comment first", "# a comment\n" + hdr, 1},
		{"comment in v2", hdr + "# v2 has none", 2},
		{"v3 interval out of range", `{"version": 3, "term": {"cols": 80, "rows": 24}}` + "\n[1e300, \"o\", \"x\"]", 2},
		{"negative size", `{"version": 2, "width": -1, "height": 24}`, 1},
		{"huge size", `{"version": 2, "width": 100000, "height": 24}`, 1},
		{"event object", hdr + `{"a": 1}`, 2},
		{"two elements", hdr + `[1, "o"]`, 2},
		{"negative time", hdr + "\n" + `[-1, "o", "x"]`, 3},
		{"string time", hdr + `["1", "o", "x"]`, 2},
		{"overflowing time", hdr + `[1e400, "o", "x"]`, 2},
		{"number data", hdr + `[1, "o", 5]`, 2},
		{"empty code", hdr + `[1, "", "x"]`, 2},
		{"long line", hdr + `[1, "o", "` + strings.Repeat("a", MaxLine) + `"]`, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := readAllEvents(strings.NewReader(tt.in))
			var ce *Error
			if !errors.As(err, &ce) || !errors.Is(err, ErrBadCast) {
				t.Fatalf("error = %v, want a *Error matching ErrBadCast", err)
			}
			if ce.Line != tt.line {
				t.Fatalf("error %q names line %d, want %d", err, ce.Line, tt.line)
			}
		})
	}
}

// TestReaderZeroSize reads a header as asciinema writes it when it
// recorded without a sized terminal.
func TestReaderZeroSize(t *testing.T) {
	cr, err := NewReader(strings.NewReader(`{"version": 2, "width": 0, "height": 0}`))
	if err != nil {
		t.Fatal(err)
	}
	if h := cr.Header(); h.Width != DefaultWidth || h.Height != DefaultHeight {
		t.Fatalf("size %dx%d, want the 80x24 default", h.Width, h.Height)
	}
}

func TestParseSize(t *testing.T) {
	if c, r, err := ParseSize("120x40"); err != nil || c != 120 || r != 40 {
		t.Fatalf("ParseSize = %d, %d, %v", c, r, err)
	}
	for _, bad := range []string{"", "x", "0x5", "5x0", "-1x5", "12", "axb", "1x2x3", "10001x5"} {
		if _, _, err := ParseSize(bad); !errors.Is(err, ErrBadCast) {
			t.Errorf("ParseSize(%q) = %v, want ErrBadCast", bad, err)
		}
	}
}

// readAllEvents reads a whole cast and returns the first error, nil at EOF.
func readAllEvents(r io.Reader) error {
	cr, err := NewReader(r)
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

// FuzzReadCast: the reader never panics, fails only with ErrBadCast, and
// what it accepts satisfies its documented checks.
func FuzzReadCast(f *testing.F) {
	f.Add(sampleCast)
	f.Add(`{"version": 2, "width": 1, "height": 1}` + "\n" + `[1e308, "o", "\ud800"]`)
	f.Add(`{"version": 2, "width": 80, "height": 24}` + "\n" + `[0, "r", "0x0"]` + "\n" + `[`)
	f.Add("\n\n{}\n")
	f.Add(specShapedV3)
	f.Add(`{"version": 3, "term": {"cols": 2, "rows": 2}}` + "\n#\n[0.5, \"x\", \"-1\"]\n# end")
	f.Fuzz(func(t *testing.T, s string) {
		cr, err := NewReader(strings.NewReader(s))
		if err != nil {
			if !errors.Is(err, ErrBadCast) {
				t.Fatalf("NewReader error %v is not ErrBadCast", err)
			}
			return
		}
		if h := cr.Header(); (h.Version != 2 && h.Version != 3) || h.Width < 1 || h.Height < 1 || h.Width > MaxSide || h.Height > MaxSide {
			t.Fatalf("accepted header %+v", h)
		}
		prev := 0.0
		for range 10000 {
			ev, err := cr.Next()
			if err != nil {
				if err != io.EOF && !errors.Is(err, ErrBadCast) {
					t.Fatalf("Next error %v", err)
				}
				return
			}
			if ev.Time < 0 || ev.Code == "" || cr.Header().Version == 3 && ev.Time < prev {
				t.Fatalf("accepted event %+v", ev)
			}
			prev = ev.Time
			if ev.Code == CodeResize {
				if c, r, err := ParseSize(ev.Data); err == nil && (c < 1 || r < 1 || c > MaxSide || r > MaxSide) {
					t.Fatalf("accepted resize %q as %dx%d", ev.Data, c, r)
				}
			}
		}
	})
}
