package termdriver

import (
	"testing"
)

func TestPlain(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"text", "hello\r\nworld\n", "hello\nworld\n"},
		{"colors", "\x1b[1;31mred\x1b[0m ok", "red ok"},
		{"title BEL", "\x1b]0;title\x07after", "after"},
		{"title ST", "\x1b]2;t\x1b\\after", "after"},
		{"charset", "\x1b(Bx", "x"},
		{"keypad", "\x1b=x\x1b>", "x"},
		{"controls", "a\x07b\x08c\x00d\x7fe\tf", "abcde\tf"},
		{"utf8", "héllo 世界", "héllo 世界"},
		{"dcs", "\x1bPq#0;2;0;0;0\x1b\\done", "done"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Whole, and split at every offset: the state carries over.
			var ps plainState
			if got := string(ps.appendPlain(nil, []byte(tt.in))); got != tt.want {
				t.Errorf("whole: %q, want %q", got, tt.want)
			}
			for i := range len(tt.in) {
				var ps plainState
				got := ps.appendPlain(nil, []byte(tt.in[:i]))
				got = ps.appendPlain(got, []byte(tt.in[i:]))
				if string(got) != tt.want {
					t.Errorf("split at %d: %q, want %q", i, got, tt.want)
				}
			}
		})
	}
}
