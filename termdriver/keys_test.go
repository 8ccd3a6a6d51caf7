package termdriver

import (
	"errors"
	"testing"
)

func TestKeyEncoding(t *testing.T) {
	tests := []struct {
		name        string
		normal, app string
	}{
		{"Enter", "\r", "\r"},
		{"enter", "\r", "\r"},
		{"Tab", "\t", "\t"},
		{"S-Tab", "\x1b[Z", "\x1b[Z"},
		{"Esc", "\x1b", "\x1b"},
		{"Backspace", "\x7f", "\x7f"},
		{"C-Backspace", "\x08", "\x08"},
		{"Space", " ", " "},
		{"C-Space", "\x00", "\x00"},
		{"C-a", "\x01", "\x01"},
		{"C-z", "\x1a", "\x1a"},
		{"Ctrl-C", "\x03", "\x03"},
		{"C-[", "\x1b", "\x1b"},
		{"C-]", "\x1d", "\x1d"},
		{"C-?", "\x7f", "\x7f"},
		{"M-x", "\x1bx", "\x1bx"},
		{"C-M-a", "\x1b\x01", "\x1b\x01"},
		{"Alt-Enter", "\x1b\r", "\x1b\r"},
		{"x", "x", "x"},
		{"é", "é", "é"},
		{"Up", "\x1b[A", "\x1bOA"},
		{"Down", "\x1b[B", "\x1bOB"},
		{"Right", "\x1b[C", "\x1bOC"},
		{"Left", "\x1b[D", "\x1bOD"},
		{"Home", "\x1b[H", "\x1bOH"},
		{"End", "\x1b[F", "\x1bOF"},
		{"C-Left", "\x1b[1;5D", "\x1b[1;5D"},
		{"S-Up", "\x1b[1;2A", "\x1b[1;2A"},
		{"C-S-Right", "\x1b[1;6C", "\x1b[1;6C"},
		{"Insert", "\x1b[2~", "\x1b[2~"},
		{"Delete", "\x1b[3~", "\x1b[3~"},
		{"PageUp", "\x1b[5~", "\x1b[5~"},
		{"PageDown", "\x1b[6~", "\x1b[6~"},
		{"pgdn", "\x1b[6~", "\x1b[6~"},
		{"C-PageDown", "\x1b[6;5~", "\x1b[6;5~"},
		{"F1", "\x1bOP", "\x1bOP"},
		{"F4", "\x1bOS", "\x1bOS"},
		{"S-F1", "\x1b[1;2P", "\x1b[1;2P"},
		{"F5", "\x1b[15~", "\x1b[15~"},
		{"F10", "\x1b[21~", "\x1b[21~"},
		{"F11", "\x1b[23~", "\x1b[23~"},
		{"F12", "\x1b[24~", "\x1b[24~"},
		{"C-F12", "\x1b[24;5~", "\x1b[24;5~"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := ParseKey(tt.name)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(k.Append(nil, false)); got != tt.normal {
				t.Errorf("normal mode: %q, want %q", got, tt.normal)
			}
			if got := string(k.Append(nil, true)); got != tt.app {
				t.Errorf("application cursor keys: %q, want %q", got, tt.app)
			}
			back, err := ParseKey(k.String())
			if err != nil || back != k {
				t.Errorf("ParseKey(%q) = %v, %v; want %v", k.String(), back, err, k)
			}
		})
	}
}

func TestKeyMalformed(t *testing.T) {
	for _, name := range []string{
		"", "Enterr", "F13", "F0", "ab", "C-", "C-C-a", "C-1", "S-a", "\x01", "\x7f", "\x1b",
		"\xff", "C-é", "Ctrl", "M-", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
	} {
		t.Run(name, func(t *testing.T) {
			k, err := ParseKey(name)
			var ke *KeyError
			if !errors.As(err, &ke) {
				t.Fatalf("ParseKey(%q) = %v, %v; want a *KeyError", name, k, err)
			}
			if ke.Error() == "" {
				t.Error("empty message")
			}
		})
	}
}
