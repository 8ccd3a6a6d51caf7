package shellmark

import (
	"reflect"
	"strings"
	"testing"
)

func scanAll(chunks ...string) []Found {
	var s Scanner
	var out []Found
	base := 0
	for _, c := range chunks {
		n := len(out)
		out = s.Scan([]byte(c), out)
		for i := n; i < len(out); i++ {
			out[i].End += base
		}
		base += len(c)
	}
	return out
}

func TestScanFindsMarks(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []Found
	}{
		{"prompt BEL", "x\x1b]133;A\x07$ ", []Found{{End: 9, Mark: Mark{Kind: Prompt}}}},
		{"prompt ST", "\x1b]133;A\x1b\\", []Found{{End: 9, Mark: Mark{Kind: Prompt}}}},
		{"prompt with options", "\x1b]133;A;cl=m;aid=7\x07", []Found{{End: 19, Mark: Mark{Kind: Prompt}}}},
		{"prompt end", "\x1b]133;B\x07", []Found{{End: 8, Mark: Mark{Kind: PromptEnd}}}},
		{"start", "\x1b]133;C\x07out", []Found{{End: 8, Mark: Mark{Kind: CommandStart}}}},
		{"end with status", "\x1b]133;D;130\x07", []Found{{End: 12, Mark: Mark{Kind: CommandEnd, Status: 130, HasStatus: true}}}},
		{"end with status and options", "\x1b]133;D;2;aid=7\x07", []Found{{End: 16, Mark: Mark{Kind: CommandEnd, Status: 2, HasStatus: true}}}},
		{"end without status", "\x1b]133;D\x07", []Found{{End: 8, Mark: Mark{Kind: CommandEnd}}}},
		{"end with junk status", "\x1b]133;D;x\x07", []Found{{End: 10, Mark: Mark{Kind: CommandEnd}}}},
		{"633 command line", "\x1b]633;E;ls -l \\x3b echo \\\\n;nonce\x07", []Found{{End: 34, Mark: Mark{Kind: CommandLine, Text: `ls -l ; echo \n`}}}},
		{"633 letters", "\x1b]633;A\x07\x1b]633;C\x07\x1b]633;D;0\x07", []Found{
			{End: 8, Mark: Mark{Kind: Prompt}}, {End: 16, Mark: Mark{Kind: CommandStart}},
			{End: 26, Mark: Mark{Kind: CommandEnd, HasStatus: true}}}},
		{"633 property is no mark", "\x1b]633;P;Cwd=/tmp\x07", nil},
		{"133 E is no mark", "\x1b]133;E;ls\x07", nil},
		{"other OSC", "\x1b]0;title 133;A\x07\x1b]1337;A\x07\x1b]13;A\x07", nil},
		{"unknown letter", "\x1b]133;Z\x07\x1b]133;AB\x07\x1b]133;\x07", nil},
		// ESC ends a string, as in the host's emulator: a mark in tmux's
		// passthrough (ESC doubled) reaches a terminal as a mark.
		{"after ESC in DCS", "\x1bPtmux;\x1b\x1b]133;A\x07\x1b\\", []Found{{End: 16, Mark: Mark{Kind: Prompt}}}},
		{"DCS contents skipped", "\x1bPq]133;A\x07#0\x1b\\x", nil},
		{"APC ended by ESC", "\x1b_x\x1b]133;A\x07\x1b\\\x1b]133;C\x07", []Found{{End: 11, Mark: Mark{Kind: Prompt}}, {End: 21, Mark: Mark{Kind: CommandStart}}}},
		{"CAN aborts", "\x1b]133;A\x18\x07", nil},
		{"control byte spoils body", "\x1b]133;A\r\x07", nil},
		{"ESC abandons and restarts", "\x1b]133;A\x1b]133;C\x07", []Found{{End: 15, Mark: Mark{Kind: CommandStart}}}},
		{"CSI untouched", "\x1b[31mred\x1b[0m\x1b]133;A\x07", []Found{{End: 20, Mark: Mark{Kind: Prompt}}}},
		{"too long is skipped", "\x1b]633;E;" + strings.Repeat("a", MaxBody) + "\x07\x1b]133;A\x07", []Found{{End: 8 + MaxBody + 1 + 8, Mark: Mark{Kind: Prompt}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := scanAll(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestScanSameAtEverySplit(t *testing.T) {
	in := "a\x1b[1m\x1b]133;A\x07$ \x1b]633;E;make \\x3b ok\x1b\\\x1b]133;C\x07out\x1bPq#0\x1b]133;A\x07\x1b\\\x1b]133;D;1\x1b\\"
	want := scanAll(in)
	if len(want) != 5 {
		t.Fatalf("whole: %+v", want)
	}
	for i := 0; i <= len(in); i++ {
		for j := i; j <= len(in); j++ {
			if got := scanAll(in[:i], in[i:j], in[j:]); !reflect.DeepEqual(got, want) {
				t.Fatalf("split %d,%d: %+v", i, j, got)
			}
		}
	}
}

func TestEscapeRoundTrip(t *testing.T) {
	for _, s := range []string{"", "ls", `a\b;c`, "x\ny\x1b\x07\x7f", `\x41 stays`, "tab\there"} {
		esc := Escape(s)
		if strings.ContainsAny(esc, ";\x07\x1b\n") {
			t.Errorf("Escape(%q) = %q keeps a byte that ends the sequence", s, esc)
		}
		if got := Unescape(esc); got != s {
			t.Errorf("Unescape(Escape(%q)) = %q", s, got)
		}
	}
	if got := Unescape(`\q \x4 \x4g end\`); got != `\q \x4 \x4g end\` {
		t.Errorf("malformed escapes changed: %q", got)
	}
}

func FuzzScan(f *testing.F) {
	f.Add([]byte("\x1b]133;A\x07\x1b]633;E;ls\x07\x1b]133;C\x07o\x1b]133;D;0\x1b\\"), uint8(3))
	f.Add([]byte("\x1bP\x1b]133;A\x07\x1b\\\x1b]1;x\x1b"), uint8(1))
	f.Fuzz(func(t *testing.T, in []byte, cut uint8) {
		whole := scanAll(string(in))
		k := int(cut) % (len(in) + 1)
		if got := scanAll(string(in[:k]), string(in[k:])); !reflect.DeepEqual(got, whole) {
			t.Fatalf("split at %d: %+v, whole %+v", k, got, whole)
		}
		prev := 0
		for _, m := range whole {
			if m.End <= prev || m.End > len(in) {
				t.Fatalf("offsets out of order or range: %+v", whole)
			}
			prev = m.End
			if len(m.Text) > MaxBody {
				t.Fatalf("text of %d bytes", len(m.Text))
			}
		}
	})
}

func BenchmarkScan(b *testing.B) {
	chunk := []byte(strings.Repeat("\x1b[32mok\x1b[0m line of output with colour\r\n", 100) + "\x1b]133;D;0\x07\x1b]133;A\x07$ ")
	var s Scanner
	var out []Found
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		out = s.Scan(chunk, out[:0])
	}
}
