package engine

import (
	"reflect"
	"testing"
)

// TestGroundLoop covers the events ground and appendSpans handle without
// going back to Write, each next to what must make them stop: the screen
// must be the one expected, the same with the span form off, and the
// same however the input is split.
func TestGroundLoop(t *testing.T) {
	tests := []struct {
		name string
		cols int
		in   string
		want []string
	}{
		{"rep after a run", 10, "ab\x1b[3b", []string{"abbbb", "", ""}},
		{"rep after an sgr", 10, "ab\x1b[1m\x1b[3b", []string{"ab", "", ""}},
		{"rep after a two-code sgr", 10, "ab\x1b[1;31m\x1b[3bc", []string{"abc", "", ""}},
		{"insert mode after a cr", 10, "abcdef\r\x1b[4hXY", []string{"XYabcdef", "", ""}},
		{"charset restored by scorc", 10, "\x1b(0\x1b[s\x1b(Bab\x1b[uqq", []string{"──", "", ""}},
		{"charset restored by scorc at the text's end", 10, "ab\x1b(0\x1b[s\x1b(B\x1b[uqq", []string{"ab──", "", ""}},
		{"cr then overwrite", 10, "hello\rHE", []string{"HEllo", "", ""}},
		{"cr then el then append", 10, "hello\r\x1b[Kab", []string{"ab", "", ""}},
		{"cr then el of a longer bar", 10, "\x1b[36m[###]\x1b[0m 9%\r\x1b[K\x1b[36m[#]\x1b[0m", []string{"[#]", "", ""}},
		{"el to the start", 10, "hello\x1b[1Kx", []string{"     x", "", ""}},
		{"el of the whole row", 10, "hello\x1b[2Kab", []string{"     ab", "", ""}},
		{"el then margin", 5, "ab\x1b[Kcdefg", []string{"abcde", "fg", ""}},
		{"crlf in a scroll region", 10, "\x1b[1;2rL1\r\nL2\r\nL3", []string{"L2", "L3", ""}},
		{"crlf onto a row with text", 10, "\x1b[2;1Hxyz\x1b[Hab\r\ncd", []string{"ab", "cdz", ""}},
		{"crlf at the bottom", 10, "a\r\nb\r\nc\r\nd", []string{"b", "c", "d"}},
		{"sgr past the parameter limit", 10, "ab\x1b[99999999999mcd", []string{"abcd", "", ""}},
		{"sgr then the margin", 5, "abc\x1b[1mdefg", []string{"abcde", "fg", ""}},
		{"autowrap off after a run", 5, "ab\x1b[?7lcdefgh", []string{"abcdh", "", ""}},
		{"cursor moved after a run", 10, "abc\x1b[1Gx\x1b[5Gy", []string{"xbc y", "", ""}},
		{"lf alone", 10, "ab\nc", []string{"ab", "  c", ""}},
		{"cr alone at the end", 10, "ab\r", []string{"ab", "", ""}},
		{"utf-8 after a run", 10, "ab\x1b[1mé\x1b[0mc", []string{"abéc", "", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spans, cells := spanPair(t, tt.cols, 3, 10)
			spans.Write([]byte(tt.in))
			cells.Write([]byte(tt.in))
			if got := gridText(screenOf(spans)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("rows = %q, want %q", got, tt.want)
			}
			checkSpanSame(t, spans, cells)
			checkSplits(t, tt.cols, 3, []byte(tt.in))
		})
	}
}
