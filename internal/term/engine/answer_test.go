package engine

import (
	"reflect"
	"strings"
	"testing"
)

func TestAnswers(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"da1", "\x1b[c\x1b[0c", []string{"\x1b[?62;22c", "\x1b[?62;22c"}},
		{"da2", "\x1b[>c\x1b[>0c", []string{"\x1b[>1;10;0c", "\x1b[>1;10;0c"}},
		{"da3 unanswered", "\x1b[=c", nil},
		{"dsr", "\x1b[5n", []string{"\x1b[0n"}},
		{"cpr", "\x1b[3;7H\x1b[6n", []string{"\x1b[3;7R"}},
		{"decxcpr", "\x1b[3;7H\x1b[?6n", []string{"\x1b[?3;7R"}},
		{"cpr origin mode", "\x1b[2;4r\x1b[?6h\x1b[2;3H\x1b[6n", []string{"\x1b[2;3R"}},
		{"cpr pending wrap", "\x1b[1;80Hx\x1b[6n", []string{"\x1b[1;80R"}},
		{"cpr inside csi", "\x1b[6\nn", []string{"\x1b[2;1R"}},
		{"color scheme", "\x1b[?996n", []string{"\x1b[?997;1n"}},
		{"xtversion", "\x1b[>q\x1b[>0q", []string{"\x1bP>|ptyhost(1.2.3)\x1b\\", "\x1bP>|ptyhost(1.2.3)\x1b\\"}},
		{"osc 10 bel", "\x1b]10;?\x07", []string{"\x1b]10;rgb:e5e5/e5e5/e5e5\x07"}},
		{"osc 11 st", "\x1b]11;?\x1b\\", []string{"\x1b]11;rgb:0000/0000/0000\x1b\\"}},
		{"osc 12", "\x1b]12;?\x07", []string{"\x1b]12;rgb:e5e5/e5e5/e5e5\x07"}},
		{"osc 10 set then query", "\x1b]10;#102030\x07\x1b]10;?\x07\x1b]110\x07\x1b]10;?\x07",
			[]string{"\x1b]10;rgb:1010/2020/3030\x07", "\x1b]10;rgb:e5e5/e5e5/e5e5\x07"}},
		{"osc 11 rgb spec", "\x1b]11;rgb:ff/8/0\x07\x1b]11;?\x07", []string{"\x1b]11;rgb:ffff/8888/0000\x07"}},
		{"osc 10 chain", "\x1b]10;?;?\x07", []string{"\x1b]10;rgb:e5e5/e5e5/e5e5\x07", "\x1b]11;rgb:0000/0000/0000\x07"}},
		{"osc 4", "\x1b]4;1;?;255;?\x1b\\", []string{"\x1b]4;1;rgb:cdcd/0000/0000\x1b\\", "\x1b]4;255;rgb:eeee/eeee/eeee\x1b\\"}},
		{"decrqm private", "\x1b[?25$p\x1b[?2004h\x1b[?2004$p\x1b[?9999$p", []string{"\x1b[?25;1$y", "\x1b[?2004;1$y", "\x1b[?9999;0$y"}},
		{"decrqm ansi", "\x1b[4$p\x1b[4h\x1b[4$p\x1b[20$p", []string{"\x1b[4;2$y", "\x1b[4;1$y", "\x1b[20;0$y"}},
		{"decrqm mouse", "\x1b[?1002h\x1b[?1002$p\x1b[?1000$p", []string{"\x1b[?1002;1$y", "\x1b[?1000;2$y"}},
		{"decrqss sgr", "\x1b[1;4;31;48;5;200m\x1bP$qm\x1b\\", []string{"\x1bP1$r0;1;4;31;48;5;200m\x1b\\"}},
		{"decrqss truecolor", "\x1b[38;2;1;2;3;94m\x1bP$qm\x1b\\", []string{"\x1bP1$r0;94m\x1b\\"}},
		{"decrqss cursor style", "\x1b[5 q\x1bP$q q\x1b\\", []string{"\x1bP1$r5 q\x1b\\"}},
		{"decrqss region", "\x1b[2;5r\x1bP$qr\x1b\\", []string{"\x1bP1$r2;5r\x1b\\"}},
		{"decrqss other", "\x1bP$qevil\x1b\\\x1bP$q\"p\x1b\\", []string{"\x1bP0$r\x1b\\", "\x1bP0$r\x1b\\"}},
		{"xtgettcap", "\x1bP+q544e;436f;6576696c\x1b\\", []string{"\x1bP1+r544e=787465726d2d323536636f6c6f72\x1b\\\x1bP1+r436f=323536\x1b\\\x1bP0+r\x1b\\"}},
		{"window reports", "\x1b[18t\x1b[14t\x1b[16t", []string{"\x1b[8;24;80t", "\x1b[4;384;640t", "\x1b[6;16;8t"}},
		{"title report unanswered", "\x1b]2;evil\x07\x1b[21t\x1b[20t", nil},
		{"kitty keyboard query unanswered", "\x1b[?u", nil},
		{"unknown dsr unanswered", "\x1b[?15n\x1b[99n", nil},
		{"overflowed parameter not answered", "\x1b[4294967302n", nil},
		{"clipboard and font unanswered", "\x1b]52;c;?\x07\x1b]50;?\x07", nil},
		{"order", "\x1b[6n\x1b[c\x1b]11;?\x07\x1b[5n", []string{"\x1b[1;1R", "\x1b[?62;22c", "\x1b]11;rgb:0000/0000/0000\x07", "\x1b[0n"}},
		{"aborted by can", "\x1b[6\x18n\x1b]11;?\x18", nil},
		{"raw and utf-8 c1 csi query as their 7-bit form", "\x9b6n\xc2\x9b5n\x9d11;?\x9c", []string{"\x1b[1;1R", "\x1b[0n", "\x1b]11;rgb:0000/0000/0000\x1b\\"}},
		{"non-ascii inside a query drops it", "\x1b[6én\x1b[\xff5n\x1b[>\xc2\xa0c", nil},
		{"dcs over cap dropped", "\x1bP$q" + strings.Repeat(" ", 2000) + "m\x1b\\", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, ans := newTest(t, 80, 24, 0)
			e.Write([]byte(tt.in))
			if !reflect.DeepEqual(*ans, tt.want) {
				t.Errorf("answers %q, want %q", *ans, tt.want)
			}
			checkSplits(t, 80, 24, []byte(tt.in))
		})
	}
}

func TestAnswersAfterClose(t *testing.T) {
	e, ans := newTest(t, 80, 24, 0)
	e.Close()
	e.Write([]byte("\x1b[c"))
	if len(*ans) != 0 {
		t.Fatalf("answered after Close: %q", *ans)
	}
}

func TestAnswerPixelSize(t *testing.T) {
	e, ans := newTest(t, 80, 24, 0)
	e.Resize(100, 30, 1000, 600)
	e.Write([]byte("\x1b[14t\x1b[16t\x1b[18t"))
	want := []string{"\x1b[4;600;1000t", "\x1b[6;20;10t", "\x1b[8;30;100t"}
	if !reflect.DeepEqual(*ans, want) {
		t.Fatalf("answers %q, want %q", *ans, want)
	}
}
