package xvt

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// recorder collects answers; tests read it only after Write returns.
type recorder struct{ buf bytes.Buffer }

func (r *recorder) answer(p []byte) { r.buf.Write(p) }

func newTerm(tb testing.TB, cols, rows int, answer func([]byte)) *Terminal {
	tb.Helper()
	t, err := New(term.Options{Cols: cols, Rows: rows, Scrollback: 50, Answer: answer, Version: "1.2.3"})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = t.Close() })
	return t
}

// feed writes data with a watchdog: x/vt blocks forever on an undrained
// answer, which must fail the test rather than hang it.
func feed(tb testing.TB, t *Terminal, data string) {
	tb.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		t.Write([]byte(data))
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		tb.Fatal("Write blocked")
	}
}

func TestAnswers(t *testing.T) {
	const st = "\x1b\\"
	hex := func(s string) string { return fmt.Sprintf("%x", s) }
	tests := []struct {
		name, setup, query, want string
	}{
		{"DA1", "", "\x1b[c", term.DA1},
		{"DA1 zero", "", "\x1b[0c", term.DA1},
		{"DA1 nonzero ignored", "", "\x1b[1c", ""},
		{"DA2", "", "\x1b[>c", term.DA2},
		{"DSR 5", "", "\x1b[5n", "\x1b[0n"},
		{"CPR", "\x1b[3;7H", "\x1b[6n", "\x1b[3;7R"},
		{"CPR origin mode", "\x1b[5;20r\x1b[?6h\x1b[2;4H", "\x1b[6n", "\x1b[2;4R"},
		{"DECXCPR", "\x1b[10;2H", "\x1b[?6n", "\x1b[?10;2R"},
		{"CPR wrapped param is no CPR", "", "\x1b[4294967302n", ""},
		{"DECRQM DECCKM set", "\x1b[?1h", "\x1b[?1$p", "\x1b[?1;1$y"},
		{"DECRQM DECAWM default", "", "\x1b[?7$p", "\x1b[?7;1$y"},
		{"DECRQM bracketed paste reset", "", "\x1b[?2004$p", "\x1b[?2004;2$y"},
		{"DECRQM unknown", "", "\x1b[?2026$p", "\x1b[?2026;0$y"},
		{"DECRQM unknown even when set", "\x1b[?2026h", "\x1b[?2026$p", "\x1b[?2026;0$y"},
		{"DECRQM ANSI LNM", "", "\x1b[20$p", "\x1b[20;2$y"},
		{"DECRQM ANSI unknown", "", "\x1b[2$p", "\x1b[2;0$y"},
		{"DECRQM IRM reset", "", "\x1b[4$p", "\x1b[4;2$y"},
		{"DECRQM IRM set", "\x1b[4h", "\x1b[4$p", "\x1b[4;1$y"},
		{"XTVERSION", "", "\x1b[>q", "\x1bP>|ptyhost(1.2.3)" + st},
		{"OSC 10 BEL", "", "\x1b]10;?\a", "\x1b]10;rgb:e5e5/e5e5/e5e5\a"},
		{"OSC 11 ST", "", "\x1b]11;?\x1b\\", "\x1b]11;rgb:0000/0000/0000" + st},
		{"OSC 12 ST", "", "\x1b]12;?\x1b\\", "\x1b]12;rgb:e5e5/e5e5/e5e5" + st},
		{"OSC 11 after set", "\x1b]11;rgb:12/34/56\a", "\x1b]11;?\a", "\x1b]11;rgb:1212/3434/5656\a"},
		{"OSC 4", "", "\x1b]4;1;?\x1b\\", "\x1b]4;1;rgb:cdcd/0000/0000" + st},
		{"OSC 4 two", "", "\x1b]4;1;?;232;?\a", "\x1b]4;1;rgb:cdcd/0000/0000\a\x1b]4;232;rgb:0808/0808/0808\a"},
		{"?996n", "", "\x1b[?996n", term.ColorSchemeDark},
		{"CSI 18 t", "", "\x1b[18t", "\x1b[8;24;80t"},
		{"CSI 14 t", "", "\x1b[14t", "\x1b[4;384;640t"},
		{"CSI 16 t", "", "\x1b[16t", "\x1b[6;16;8t"},
		{"title report ignored", "\x1b]2;evil\a", "\x1b[21t\x1b[20t", ""},
		{"DECRQSS SGR", "\x1b[1;3;31;48;5;200m", "\x1bP$qm" + st, "\x1bP1$r0;1;3;31;48;5;200m" + st},
		{"DECRQSS SGR reset", "\x1b[1m\x1b[0m", "\x1bP$qm" + st, "\x1bP1$r0m" + st},
		{"DECRQSS SGR after DECRC", "\x1b[1m\x1b7\x1b[0;4m\x1b8", "\x1bP$qm" + st, "\x1bP1$r0;1m" + st},
		{"DECRQSS SGR after the alternate screen", "\x1b[1m\x1b[?1049h\x1b[0;3m\x1b[?1049l", "\x1bP$qm" + st, "\x1bP1$r0;1m" + st},
		{"DECRQSS SGR after RIS", "\x1b[1m\x1bc", "\x1bP$qm" + st, "\x1bP1$r0m" + st},
		{"DECRQSS SGR RGB", "\x1b[38;2;1;2;3m", "\x1bP$qm" + st, "\x1bP1$r0;38;2;1;2;3m" + st},
		{"DECRQSS DECSCUSR", "\x1b[5 q", "\x1bP$q q" + st, "\x1bP1$r5 q" + st},
		{"DECRQSS DECSTBM", "\x1b[2;10r", "\x1bP$qr" + st, "\x1bP1$r2;10r" + st},
		{"DECRQSS DECSTBM default", "", "\x1bP$qr" + st, "\x1bP1$r1;24r" + st},
		{"DECRQSS other", "", "\x1bP$q\"p" + st, term.DECRQSSInvalid},
		{"DECRQSS echo attempt", "", "\x1bP$q\x1b[31mevil" + st, term.DECRQSSInvalid},
		{"XTGETTCAP TN", "", "\x1bP+q" + hex("TN") + st, "\x1bP1+r" + hex("TN") + "=" + hex("xterm-256color") + st},
		{"XTGETTCAP unknown", "", "\x1bP+q" + hex("evil") + st, "\x1bP0+r" + st},
		{"kitty keyboard query", "", "\x1b[?u", ""},
		{"in-band resize never reported", "", "\x1b[?2048h", ""},
		{"DECRQM in-band resize", "\x1b[?2048h", "\x1b[?2048$p", "\x1b[?2048;0$y"},
		{"OSC 52 query ignored", "", "\x1b]52;c;?\a", ""},
		{"DECRQCRA ignored", "", "\x1b[1;1;1;1;1;1*y", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r recorder
			vt := newTerm(t, 80, 24, r.answer)
			feed(t, vt, tt.setup)
			r.buf.Reset()
			feed(t, vt, tt.query)
			if got := r.buf.String(); got != tt.want {
				t.Errorf("answer to %q = %q, want %q", tt.query, got, tt.want)
			}
			if n := vt.stray.Load(); n != 0 {
				t.Errorf("x/vt wrote %d bytes to its own pipe", n)
			}
		})
	}
}

// TestAnswerOrder mixes every kind of query in one stream, fed whole, byte
// by byte and in random chunks: the answers come in query order each time.
func TestAnswerOrder(t *testing.T) {
	queries := []string{
		"\x1b[c", "\x1b]11;?\a", "\x1b[6n", "\x1b[>q", "\x1b[?1$p", "\x1bP$qm\x1b\\",
		"\x1b]10;?\x1b\\", "\x1b[5n", "\x1b[>c", "\x1b[18t", "\x1b]4;2;?\a", "\x1b[?996n", "\x1b[c",
	}
	var want bytes.Buffer
	{
		var r recorder
		vt := newTerm(t, 80, 24, r.answer)
		for _, q := range queries {
			r.buf.Reset()
			feed(t, vt, "ab"+q)
			if r.buf.Len() == 0 {
				t.Fatalf("no answer to %q", q)
			}
			want.Write(r.buf.Bytes())
		}
	}
	stream := "ab" + strings.Join(queries, "ab")
	for _, split := range splits(stream) {
		t.Run(split.name, func(t *testing.T) {
			var r recorder
			vt := newTerm(t, 80, 24, r.answer)
			for _, chunk := range split.chunks {
				feed(t, vt, chunk)
			}
			if got := r.buf.String(); got != want.String() {
				t.Errorf("answers\n got %q\nwant %q", got, want.String())
			}
		})
	}
}

type split struct {
	name   string
	chunks []string
}

// splits returns s whole, byte by byte, halved at a few offsets and in
// seeded random chunks.
func splits(s string) []split {
	out := []split{{"whole", []string{s}}}
	bytewise := make([]string, len(s))
	for i := 0; i < len(s); i++ {
		bytewise[i] = s[i : i+1]
	}
	out = append(out, split{"bytewise", bytewise})
	for _, at := range []int{1, len(s) / 3, len(s) / 2, len(s) - 1} {
		out = append(out, split{fmt.Sprintf("halved at %d", at), []string{s[:at], s[at:]}})
	}
	for seed := uint64(1); seed <= 3; seed++ {
		rng := rand.New(rand.NewPCG(seed, 0))
		var chunks []string
		for rest := s; len(rest) > 0; {
			n := min(1+rng.IntN(7), len(rest))
			chunks = append(chunks, rest[:n])
			rest = rest[n:]
		}
		out = append(out, split{fmt.Sprintf("random seed %d", seed), chunks})
	}
	return out
}

// TestSplitEquivalence feeds streams exercising every filter state in
// every split and compares the resulting screens and answers.
func TestSplitEquivalence(t *testing.T) {
	streams := []string{
		"hello\r\n\x1b[1;31mred\x1b[0m \x1b[38:2::10:20:30mrgb\x1b[m\r\n\x1b]0;title\a\x1b[4294967302C.",
		"x\x1b[1000000000b\x1b[5;5H\x1b[99999999999@y\x1b[?2048;1h\x1b[2J\x1b[H\xe4\xb8\xad\xe6\x96\x87 w\x1b[?25l",
		"\x1bP$qm\x1b\\\x1b[31;1\x1b[5nz\x1b[1;2$\x1b[6n\x9b6n\xc3\xa9\x1b]11;?\x1b\\\x1b]4;1;?\a",
		"\x1b[?1049h\x1b[2;3Halt\x1b[?1049l\x1b[3;1Hprimary\x1b7\x1b[1 q",
	}
	for i, s := range streams {
		var want attachwire.Screen
		var wantAns string
		for j, sp := range splits(s) {
			var r recorder
			vt := newTerm(t, 20, 6, r.answer)
			for _, chunk := range sp.chunks {
				feed(t, vt, chunk)
			}
			var got attachwire.Screen
			vt.Screen(&got)
			if j == 0 {
				want, wantAns = got, r.buf.String()
				continue
			}
			if d := screenDiff(&want, &got); d != "" {
				t.Errorf("stream %d, %s: screen differs from whole: %s", i, sp.name, d)
			}
			if r.buf.String() != wantAns {
				t.Errorf("stream %d, %s: answers %q, whole gave %q", i, sp.name, r.buf.String(), wantAns)
			}
		}
	}
}

func screenDiff(a, b *attachwire.Screen) string {
	switch {
	case a.CursorRow != b.CursorRow || a.CursorCol != b.CursorCol:
		return fmt.Sprintf("cursor %d,%d vs %d,%d", a.CursorRow, a.CursorCol, b.CursorRow, b.CursorCol)
	case a.Modes != b.Modes || a.Mouse != b.Mouse || a.CursorVisible != b.CursorVisible || a.CursorShape != b.CursorShape:
		return fmt.Sprintf("modes %#x/%#x/%v/%d vs %#x/%#x/%v/%d", a.Modes, a.Mouse, a.CursorVisible, a.CursorShape, b.Modes, b.Mouse, b.CursorVisible, b.CursorShape)
	case a.Active != b.Active || a.SavedCursorRow != b.SavedCursorRow || a.SavedCursorCol != b.SavedCursorCol:
		return "buffer or saved cursor"
	}
	for i := range a.Primary {
		if a.Primary[i] != b.Primary[i] {
			return fmt.Sprintf("primary cell %d: %+v vs %+v", i, a.Primary[i], b.Primary[i])
		}
	}
	if len(a.Scrollback) != len(b.Scrollback) {
		return "scrollback length"
	}
	return ""
}
