package term

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/version"
)

func TestAnswers(t *testing.T) {
	tcap := func(names ...string) []byte {
		var parts []string
		for _, n := range names {
			parts = append(parts, hex.EncodeToString([]byte(n)))
		}
		return []byte(strings.Join(parts, ";"))
	}
	tests := []struct {
		name string
		got  []byte
		want string
	}{
		{"cpr", AppendCPR(nil, 3, 14, false), "\x1b[3;14R"},
		{"decxcpr", AppendCPR(nil, 1, 1, true), "\x1b[?1;1R"},
		{"xtversion", AppendXTVERSION(nil, "1.2.3"), "\x1bP>|ptyhost(1.2.3)\x1b\\"},
		{"xtversion default", AppendXTVERSION(nil, ""), "\x1bP>|ptyhost(" + version.String() + ")\x1b\\"},
		{"xtversion hostile", AppendXTVERSION(nil, "1\x1b[6n)(\x07 x"), "\x1bP>|ptyhost(1[6nx)\x1b\\"},
		{"osc 11 bel", AppendOSCColor(nil, 11, DefaultBg(), true), "\x1b]11;rgb:0000/0000/0000\x07"},
		{"osc 10 st", AppendOSCColor(nil, 10, DefaultFg(), false), "\x1b]10;rgb:e5e5/e5e5/e5e5\x1b\\"},
		{"osc 4 ansi", AppendOSC4(nil, 1, true), "\x1b]4;1;rgb:cdcd/0000/0000\x07"},
		{"osc 4 cube", AppendOSC4(nil, 196, false), "\x1b]4;196;rgb:ffff/0000/0000\x1b\\"},
		{"osc 4 gray", AppendOSC4(nil, 232, false), "\x1b]4;232;rgb:0808/0808/0808\x1b\\"},
		{"decrpm private", AppendDECRPM(nil, 2004, ModeSet, true), "\x1b[?2004;1$y"},
		{"decrpm ansi", AppendDECRPM(nil, 4, ModeReset, false), "\x1b[4;2$y"},
		{"decrqss", AppendDECRQSS(nil, "0;1m"), "\x1bP1$r0;1m\x1b\\"},
		{"xtgettcap known", AppendXTGETTCAP(nil, tcap("TN")), "\x1bP1+r544e=787465726d2d323536636f6c6f72\x1b\\"},
		{"xtgettcap two", AppendXTGETTCAP(nil, tcap("Co", "RGB")), "\x1bP1+r436f=323536\x1b\\\x1bP1+r524742=382f382f38\x1b\\"},
		// An unknown name is never echoed back, hostile or not.
		{"xtgettcap unknown", AppendXTGETTCAP(nil, tcap("\x1b[6n")), "\x1bP0+r\x1b\\"},
		{"xtgettcap not hex", AppendXTGETTCAP(nil, []byte("zz")), "\x1bP0+r\x1b\\"},
		{"xtgettcap empty", AppendXTGETTCAP(nil, nil), "\x1bP0+r\x1b\\"},
		{"18t", AppendWindowReport(nil, 18, 80, 24, 0, 0), "\x1b[8;24;80t"},
		{"14t synthetic", AppendWindowReport(nil, 14, 80, 24, 0, 0), "\x1b[4;384;640t"},
		{"14t real", AppendWindowReport(nil, 14, 80, 24, 800, 600), "\x1b[4;600;800t"},
		{"16t", AppendWindowReport(nil, 16, 80, 24, 800, 600), "\x1b[6;25;10t"},
		{"other t", AppendWindowReport(nil, 21, 80, 24, 0, 0), ""},
	}
	for _, tt := range tests {
		if string(tt.got) != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

func TestCursorShape(t *testing.T) {
	want := []attachwire.CursorShape{
		attachwire.CursorDefault, attachwire.CursorBlock, attachwire.CursorBlock,
		attachwire.CursorUnderline, attachwire.CursorUnderline, attachwire.CursorBar,
		attachwire.CursorBar, attachwire.CursorDefault,
	}
	for ps, w := range want {
		if got := CursorShape(ps); got != w {
			t.Errorf("CursorShape(%d) = %d, want %d", ps, got, w)
		}
	}
}
