package engine

import (
	"reflect"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
)

func TestText(t *testing.T) {
	tests := []struct {
		name       string
		cols, rows int
		in         string
		want       []string
		row, col   int
		pending    bool
	}{
		{"plain", 10, 3, "hello\r\nworld", []string{"hello", "world", ""}, 1, 5, false},
		{"pending wrap", 5, 3, "abcde", []string{"abcde", "", ""}, 0, 4, true},
		{"wrap", 5, 3, "abcdef", []string{"abcde", "f", ""}, 1, 1, false},
		{"cr clears pending", 5, 3, "abcde\rX", []string{"Xbcde", "", ""}, 0, 1, false},
		{"scroll", 5, 2, "a\r\nb\r\nc", []string{"b", "c"}, 1, 1, false},
		{"no autowrap", 5, 2, "\x1b[?7labcdefg", []string{"abcdg", ""}, 0, 4, false},
		{"backspace", 5, 2, "abc\b\bX", []string{"aXc", ""}, 0, 2, false},
		{"backspace from pending wrap", 5, 1, "abcde\bX", []string{"abcdX"}, 0, 4, true},
		{"cub from pending wrap", 5, 1, "abcde\x1b[2DX", []string{"abcXe"}, 0, 4, false},
		{"lf keeps pending wrap", 5, 3, "abcde\nX", []string{"abcde", "", "X"}, 2, 1, false},
		{"el from pending wrap", 5, 1, "abcde\x1b[K", []string{"abcde"}, 0, 4, true},
		{"tab", 20, 2, "a\tb\tc", []string{"a       b       c", ""}, 0, 17, false},
		{"cht cbt", 20, 2, "\x1b[2Ix\x1b[Zy", []string{"                y", ""}, 0, 17, false},
		{"tbc hts", 20, 2, "\x1b[3g\x1b[5GX\x1bH\r\tY", []string{"    XY", ""}, 0, 6, false},
		{"cup", 10, 4, "\x1b[3;4HX", []string{"", "", "   X", ""}, 2, 4, false},
		{"cup clamped", 10, 4, "\x1b[99;99HX", []string{"", "", "", "         X"}, 3, 9, true},
		{"cursor moves", 10, 4, "\x1b[2;2H\x1b[AX\x1b[2BY\x1b[3DZ\x1b[4CW", []string{" X", "", "Z Y  W", ""}, 2, 6, false},
		{"cnl cpl", 10, 4, "ab\x1b[2Ec\x1b[Fd", []string{"ab", "d", "c", ""}, 1, 1, false},
		{"cha vpa", 10, 4, "\x1b[5GX\x1b[3dY", []string{"    X", "", "     Y", ""}, 2, 6, false},
		{"ed below", 5, 3, "aaaaa\r\nbbbbb\r\nccccc\x1b[2;3H\x1b[J", []string{"aaaaa", "bb", ""}, 1, 2, false},
		{"ed above", 5, 3, "aaaaa\r\nbbbbb\r\nccccc\x1b[2;3H\x1b[1J", []string{"", "   bb", "ccccc"}, 1, 2, false},
		{"ed all keeps pending wrap", 5, 3, "aaaaa\r\nbbbbb\x1b[2J", []string{"", "", ""}, 1, 4, true},
		{"el", 5, 3, "abcde\x1b[3G\x1b[K\r\nabcde\x1b[3G\x1b[1K\r\nabcde\x1b[2K", []string{"ab", "   de", ""}, 2, 4, true},
		{"ech", 6, 1, "abcdef\x1b[2G\x1b[2X", []string{"a  def"}, 0, 1, false},
		{"ech clamped", 6, 1, "abcdef\x1b[2G\x1b[2000000000X", []string{"a"}, 0, 1, false},
		{"ich", 6, 1, "abcdef\x1b[2G\x1b[2@", []string{"a  bcd"}, 0, 1, false},
		{"dch", 6, 1, "abcdef\x1b[2G\x1b[2P", []string{"adef"}, 0, 1, false},
		{"irm", 6, 1, "abcd\x1b[2G\x1b[4hXY\x1b[4lZ", []string{"aXYZcd"}, 0, 4, false},
		{"il dl", 5, 4, "a\r\nb\r\nc\r\nd\x1b[2H\x1b[L\x1b[4H\x1b[M", []string{"a", "", "b", ""}, 3, 0, false},
		{"su sd", 5, 3, "a\r\nb\r\nc\x1b[S\x1b[2T", []string{"", "", "b"}, 2, 1, false},
		{"rep", 10, 2, "ab\x1b[3b", []string{"abbbb", ""}, 0, 5, false},
		{"rep clamped to line", 5, 2, "a\x1b[999999999b", []string{"aaaaa", ""}, 0, 4, true},
		{"region scroll", 5, 4, "\x1b[2;3r\x1b[1;1Htop\x1b[2;1Hx\r\ny\r\nz\x1b[4;1Hbot", []string{"top", "y", "z", "bot"}, 3, 3, false},
		{"region ri", 5, 4, "a\r\nb\r\nc\r\nd\x1b[2;3r\x1b[2H\x1bM", []string{"a", "", "b", "d"}, 1, 0, false},
		{"origin mode", 5, 4, "\x1b[2;3r\x1b[?6h\x1b[1;1HX\x1b[9;1HY", []string{"", "X", "Y", ""}, 2, 1, false},
		{"decaln", 3, 2, "\x1b#8", []string{"EEE", "EEE"}, 0, 0, false},
		{"dec graphics", 6, 1, "\x1b(0lqk\x1b(Bq", []string{"┌─┐q"}, 0, 4, false},
		{"shift out", 6, 1, "\x1b)0a\x0eq\x0fq", []string{"a─q"}, 0, 3, false},
		{"decsc decrc", 10, 2, "\x1b[2;3H\x1b7\x1b[1;1HX\x1b8Y", []string{"X", "  Y"}, 1, 3, false},
		{"scosc scorc", 10, 2, "\x1b[2;3H\x1b[s\x1b[1;1HX\x1b[uY", []string{"X", "  Y"}, 1, 3, false},
		{"ris", 5, 2, "abc\x1b[?25l\x1bc", []string{"", ""}, 0, 0, false},
		{"wide", 6, 1, "a世b", []string{"a世b"}, 0, 4, false},
		{"wide wraps", 5, 2, "abcd世", []string{"abcd", "世"}, 1, 2, false},
		{"wide overwritten", 6, 1, "世界\x1b[2GX", []string{" X界"}, 0, 2, false},
		{"combining", 5, 1, "e\u0301x", []string{"e\u0301x"}, 0, 2, false},
		{"zwj emoji", 6, 1, "👨\u200d👩!", []string{"👨\u200d👩!"}, 0, 3, false},
		{"vs16", 6, 1, "❤\ufe0fx", []string{"❤\ufe0fx"}, 0, 2, false},
		{"invalid utf8 dropped", 5, 1, "a\xffb\xe2\x82c\xed\xa0\x80\xc0\xafd", []string{"abcd"}, 0, 4, false},
		{"raw c1 acts", 10, 2, "ab\x9b2Gc\x85", []string{"ac", ""}, 1, 0, false},
		{"utf8 c1 acts", 10, 1, "ab\xc2\x9b2Gc", []string{"ac"}, 0, 2, false},
		{"utf8 continuation in 0x80-0x9f", 10, 1, "Ü😀", []string{"Ü😀"}, 0, 3, false},
		{"csi with c0 inside", 10, 2, "a\x1b[2\nC b", []string{"a", "    b"}, 1, 5, false},
		{"can aborts", 10, 1, "a\x1b[2\x18Cb", []string{"aCb"}, 0, 3, false},
		{"esc restarts", 10, 1, "a\x1b[2\x1b[3Gb", []string{"a b"}, 0, 3, false},
		{"non-ascii in csi drops it", 10, 1, "a\x1b[2é3Gb", []string{"ab"}, 0, 2, false},
		{"osc title swallowed", 10, 1, "a\x1b]0;title\x07b\x1b]2;x\x1b\\c", []string{"abc"}, 0, 3, false},
		{"dcs swallowed", 10, 1, "a\x1bPq#0;2;0;0;0#0~~\x1b\\b", []string{"ab"}, 0, 2, false},
		{"apc swallowed", 10, 1, "a\x1b_Gf=100;AAAA\x1b\\b\x1b^zz\x1b\\c", []string{"abc"}, 0, 3, false},
		{"del ignored", 10, 1, "a\x7fb", []string{"ab"}, 0, 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := newTest(t, tt.cols, tt.rows, 10)
			e.Write([]byte(tt.in))
			s := screenOf(e)
			if got := gridText(s); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("rows = %q, want %q", got, tt.want)
			}
			if s.CursorRow != tt.row || s.CursorCol != tt.col {
				t.Errorf("cursor = %d,%d, want %d,%d", s.CursorRow, s.CursorCol, tt.row, tt.col)
			}
			if got := s.Modes&attachwire.ModePendingWrap != 0; got != tt.pending {
				t.Errorf("pending wrap = %v, want %v", got, tt.pending)
			}
			checkInvariants(t, s)
			checkSplits(t, tt.cols, tt.rows, []byte(tt.in))
		})
	}
}
