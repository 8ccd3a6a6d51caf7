package main

import (
	"bytes"
	"errors"
	"testing"
)

func TestParseEscapes(t *testing.T) {
	tests := []struct {
		name, in string
		want     string
	}{
		{"plain", "hello", "hello"},
		{"empty", "", ""},
		{"enter", `ls\r`, "ls\r"},
		{"newline tab", `a\nb\tc`, "a\nb\tc"},
		{"escape", `\e[A`, "\x1b[A"},
		{"bell backspace", `\a\b`, "\a\b"},
		{"backslash", `a\\b`, `a\b`},
		{"hex lower", `\x03`, "\x03"},
		{"hex upper", `\xFF\x7f`, "\xff\x7f"},
		{"utf8 passes", "héllo\\r", "héllo\r"},
		{"escaped backslash before r", `\\r`, `\r`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseEscapes(tt.in)
			if err != nil {
				t.Fatalf("parseEscapes(%q): %v", tt.in, err)
			}
			if string(got) != tt.want {
				t.Fatalf("parseEscapes(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseEscapesErrors(t *testing.T) {
	tests := []struct {
		name, in string
		offset   int
	}{
		{"trailing backslash", `abc\`, 3},
		{"unknown", `a\q`, 1},
		{"short hex", `\x4`, 0},
		{"no hex", `x\x`, 1},
		{"bad hex", `\xg0`, 0},
		{"capital X", `\X41`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseEscapes(tt.in)
			var ee *escapeError
			if !errors.As(err, &ee) {
				t.Fatalf("parseEscapes(%q) error = %v, want *escapeError", tt.in, err)
			}
			if ee.offset != tt.offset {
				t.Fatalf("parseEscapes(%q) offset = %d, want %d", tt.in, ee.offset, tt.offset)
			}
		})
	}
}

// FuzzParseEscapes checks that the parser never panics, that plain text
// without backslashes is copied verbatim, and that re-escaping what it
// produced round-trips.
func FuzzParseEscapes(f *testing.F) {
	for _, s := range []string{"", `hello\r`, `\e[1;2H\x1b`, `\\`, `\`, `\x`, `\xZZ`, "\xff\\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := parseEscapes(s)
		if err != nil {
			return
		}
		if !bytes.ContainsRune([]byte(s), '\\') && string(out) != s {
			t.Fatalf("plain %q changed to %q", s, out)
		}
		back, err := parseEscapes(escapeAll(out))
		if err != nil || !bytes.Equal(back, out) {
			t.Fatalf("round trip of %q: %q, %v", out, back, err)
		}
	})
}

// escapeAll writes every byte of p as \xNN.
func escapeAll(p []byte) string {
	const hex = "0123456789abcdef"
	var b []byte
	for _, c := range p {
		b = append(b, '\\', 'x', hex[c>>4], hex[c&15])
	}
	return string(b)
}
