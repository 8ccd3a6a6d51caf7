package xvt

import (
	"strings"
	"testing"
)

// runFilter passes chunks through a 20×6 filter and returns what x/vt
// would be fed.
func runFilter(chunks []string) string {
	f := newFilter(20, 6)
	var out strings.Builder
	for _, c := range chunks {
		p := []byte(c)
		for len(p) > 0 {
			n, ev := f.scan(p)
			p = p[n:]
			if ev == evWide {
				f.insertIfIRM(2)
				f.releaseRune()
			}
			out.Write(f.out)
			f.out = f.out[:0]
		}
	}
	return out.String()
}

func TestFilter(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"text passes", "hello\r\n", "hello\r\n"},
		{"utf8 passes", "\xe4\xb8\xad\xc3\xa9", "\xe4\xb8\xad\xc3\xa9"},
		{"sgr passes", "\x1b[1;38;5;208;48;2;1;2;3m", "\x1b[1;38;5;208;48;2;1;2;3m"},
		{"sgr colons and empty sub-parameters", "\x1b[38:2::10:20:30m", "\x1b[38:2::10:20:30m"},
		{"missing parameters stay missing", "\x1b[;5H\x1b[5;H\x1b[;m", "\x1b[;5H\x1b[5;H\x1b[;m"},
		{"REP clamped to rows*cols", "x\x1b[1000000000b", "x\x1b[120b"},
		{"REP zero stays", "x\x1b[0b", "x\x1b[0b"},
		{"wrapping parameter saturates", "\x1b[4294967302n", "\x1b[65535n"},
		{"wrapping parameter in DA1", "\x1b[4294967296c", "\x1b[65535c"},
		{"ECH clamped to cols", "\x1b[2000000000X", "\x1b[20X"},
		{"ICH DCH clamped", "\x1b[99@\x1b[99P", "\x1b[20@\x1b[20P"},
		{"CHT CBT clamped", "\x1b[2000000000I\x1b[2000000000Z", "\x1b[20I\x1b[20Z"},
		{"IL DL SU SD clamped", "\x1b[99L\x1b[99M\x1b[99S\x1b[99T", "\x1b[6L\x1b[6M\x1b[6S\x1b[6T"},
		{"cursor moves clamped", "\x1b[99A\x1b[99B\x1b[99C\x1b[99D\x1b[99E\x1b[99F", "\x1b[6A\x1b[6B\x1b[20C\x1b[20D\x1b[6E\x1b[6F"},
		{"absolute positions clamped", "\x1b[99G\x1b[99d\x1b[99`\x1b[99;99H\x1b[99;99f", "\x1b[20G\x1b[6d\x1b[20`\x1b[6;20H\x1b[6;20f"},
		{"margins clamped", "\x1b[1;99r", "\x1b[1;6r"},
		{"private sequences not clamped as counts", "\x1b[?1000h\x1b[>4;2m\x1b[?99S", "\x1b[?1000h\x1b[>4;2m\x1b[?99S"},
		{"intermediate kept", "\x1b[5 q\x1b[?2026$p", "\x1b[5 q\x1b[?2026$p"},
		{"?2048 dropped", "\x1b[?2048h", "\x1b[\x18"},
		{"?2048 dropped from a list", "\x1b[?1;2048;2004h", "\x1b[?1;2004h"},
		{"?2048 reset dropped too", "\x1b[?2048l", "\x1b[\x18"},
		{"?47 becomes ?1047", "\x1b[?1;47h\x1b[?47l", "\x1b[?1;1047h\x1b[?1047l"},
		{"ANSI 2048 untouched", "\x1b[2048h", "\x1b[2048h"},
		{"C0 inside CSI executes first", "\x1b[1\r2m", "\x1b[\r12m"},
		{"CSI aborted by ESC", "\x1b[12\x1b[3n", "\x1b[\x1b[3n"},
		{"CSI aborted by CAN", "\x1b[12\x18z", "\x1b[\x18z"},
		{"parameter after intermediate cancels", "\x1b[1 2q", "\x1b[\x18q"},
		{"8-bit CSI", "\x9b5n", "\x9b5n"},
		{"OSC passes", "\x1b]0;title\a\x1b]11;?\x1b\\", "\x1b]0;title\a\x1b]11;?\x1b\\"},
		{"DCS passes", "\x1bP$qm\x1b\\", "\x1bP$qm\x1b\\"},
		{"ESC in UTF-8 is a continuation byte for x/vt", "\xe4\x1b[5n", "\xe4\x1b[5n"},
		{"insert mode inserts before each character", "\x1b[4hab\x1b[4lc", "\x1b[4h\x1b[@a\x1b[@b\x1b[4lc"},
		{"insert mode with wide and combining characters", "\x1b[4h\u4e2de\u0301", "\x1b[4h\x1b[2@\u4e2d\x1b[@e\u0301"},
		{"insert mode ends with RIS", "\x1b[4h\x1bca", "\x1b[4h\x1bca"},
		{"private mode 4 is not insert mode", "\x1b[?4ha", "\x1b[?4ha"},
		{"more than 32 parameters", "\x1b[" + strings.Repeat("1;", 40) + "m", "\x1b[" + strings.Repeat("1;", 31) + "1m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, sp := range splits(tt.in) {
				if got := runFilter(sp.chunks); got != tt.want {
					t.Errorf("%s: filter(%q) = %q, want %q", sp.name, tt.in, got, tt.want)
				}
			}
		})
	}
}

// TestFilterEvents checks where scan stops: before each run of text and
// after each OSC 4/10/11/12, with the terminator.
func TestFilterEvents(t *testing.T) {
	f := newFilter(20, 6)
	in := []byte("ab\x1b[1mc\rd\x1b]11;?\a\x1b]10;?\x1b\\\x1b]2;x\ae\x1b[Hf")
	var got []string
	for p := in; len(p) > 0; {
		n, ev := f.scan(p)
		p = p[n:]
		switch ev {
		case evRunStart:
			got = append(got, "run:"+string(p[0]))
		case evOSCBEL:
			got = append(got, "osc:bel")
		case evOSCST:
			got = append(got, "osc:st")
		}
	}
	// SGR and OSC leave the cursor alone, so they do not end a run.
	want := "run:a run:d osc:bel osc:st run:f"
	if strings.Join(got, " ") != want {
		t.Errorf("events %q, want %q", strings.Join(got, " "), want)
	}
}
