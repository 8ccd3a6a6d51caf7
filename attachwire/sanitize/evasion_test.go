package sanitize_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire/sanitize"
)

// TestEvasions feeds tricks that make naive filters let a query through.
// None of the outputs may hold a query; the wanted output pins down where
// the parser resynchronizes.
func TestEvasions(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"esc inside params", "\x1b[6\x1b[5n", ""},
		{"esc inside params then text", "\x1b[1;2\x1b[3Hx", "\x1b[3Hx"},
		{"lf inside cpr", "\x1b[6\nn", "\n"},
		{"cr bs ht inside dsr", "\x1b[\r\b\t5n", "\r\b\t"},
		{"vt ff inside cpr", "\x1b[6\x0b\x0cn", ""},
		{"can aborts then query", "\x1b[1\x18\x1b[6n", ""},
		{"sub aborts, rest is text", "\x1b[6\x1an", "n"},
		{"unterminated osc then query", "\x1b]0;title\x1b[6n", ""},
		{"unterminated osc then c1 query", "\x1b]0;title\x9b6n", ""},
		{"unterminated dcs then query", "\x1bPq#0;2\x1b[c", ""},
		{"unterminated apc then query", "\x1b_Gq=1\x1b[>q", ""},
		{"overflowing cpr", "\x1b[4294967302n", ""},
		{"overflowing sgr", "\x1b[4294967302m", "\x1b[1000m"},
		{"overflowing cup", "\x1b[18446744073709551617;4294967297H", "\x1b[1000;1000H"},
		{"overflowing decset", "\x1b[?4294968345h", ""}, // wraps to 1049 in 32 bits
		{"over-cap title then query", "\x1b]2;" + strings.Repeat("a", 5000) + "\x1b[6n", ""},
		{"over-cap title terminated then query", "\x1b]2;" + strings.Repeat("a", 5000) + "\x07\x1b[6nok", "ok"},
		{"over-cap csi then query", "\x1b[" + strings.Repeat("1;", 200) + "\x1b[6nok", "ok"},
		{"over-cap csi bytes then query", "\x1b[" + strings.Repeat("0", 1000) + "6n\x1b[5nok", "ok"},
		{"long dcs then query", "\x1bP" + strings.Repeat("x", 70000) + "\x1b[6nok", "ok"},
		{"bel inside dcs does not end it", "\x1bP$q\x07\x1b[6n\x1b\\ok", "ok"},
		{"bel inside apc does not end it", "\x1b_\x07m\x1b\\ok", "ok"},
		{"continuation 0x9b inside text", "\xe2\x80\x9b6n", "\u201b6n"},
		{"continuation 0x9c inside osc", "\x1b]2;\xc3\x9c\x1b[6n", ""},
		{"continuation 0x9d inside text", "\xe2\x80\x9d", "\u201d"},
		{"truncated rune swallows 0x9b", "\xe2\x9b6n", "\uFFFD6n"},
		{"lone continuation is c1", "a\x9b6nb", "ab"},
		{"utf8 c1 csi", "a\xc2\x9b6nb", "ab"},
		{"utf8 c1 osc 52", "\xc2\x9d52;c;aGk=\xc2\x9c", ""},
		{"utf8 c1 dcs with c1 st", "\xc2\x90$qm\xc2\x9cok", "ok"},
		{"raw c1 st ends apc", "\x9f_G\x9cok", "ok"},
		{"esc esc", "\x1b\x1b[6n", ""},
		{"double csi", "\x1b[\x1b[6n", ""},
		{"st without string", "\x1b\\\x9c", ""},
		{"nul padding in csi", "\x1b[6\x00n", ""},
		{"del in csi", "\x1b[6\x7fn", ""},
		{"enq alone", "\x05\x05", ""},
		{"decid by c1", "\x9a", ""},
		{"private marker later in params", "\x1b[1?6n", ""},
		{"tmux passthrough", "\x1bPtmux;\x1b\x1b]52;c;?\x07\x1b\\", ""},
		{"screen passthrough", "\x1bP\x1b]52;c;?\x07\x1b\\", ""},
		{"osc 52 terminated by c1 st", "\x1b]52;c;?\x9c", ""},
		{"title holding an escape", "\x1b]2;a\x1b[6nb\x07", "b\x07"},
		{"title holding a c1", "\x1b]2;a\x9b6nb\x07", "b\x07"},
		{"title holding utf8 c1", "\x1b]2;a\xc2\x9b6nb\x07", "b\x07"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for how, chunks := range splits([]byte(c.in)) {
				got := run(sanitize.Options{}, chunks...)
				if string(got) != c.want {
					t.Fatalf("%s: in %q\ngot  %q\nwant %q", how, c.in, got, c.want)
				}
				checkSafe(t, got)
			}
		})
	}
}

func TestCallbacks(t *testing.T) {
	var titles, clips []string
	opts := sanitize.Options{
		OnTitle:     func(s string) { titles = append(titles, s) },
		OnClipboard: func(s string) { clips = append(clips, s) },
	}
	in := "\x1b]0;one\x07\x1b]2;t\u202ewo\x07\x1b]52;c;aGVsbG8gd29ybGQ=\x07" +
		"\x1b]52;c;?\x07\x1b]52;p;YQ\x1b\\\x1b]52;c;!!\x07\x1b]52;c;G1s2bgp4\x07" +
		"\x1b]52;c;" + strings.Repeat("QUFB", 20000) + "\x07"
	got := run(opts, []byte(in))
	if want := "\x1b]0;one\x1b\\"; string(got) != want {
		t.Errorf("output %q, want %q", got, want)
	}
	if want := []string{"one"}; !equal(titles, want) {
		t.Errorf("titles %q, want %q", titles, want)
	}
	// "hello world"; "a" without padding; ESC [ 6 n LF x with controls removed.
	if want := []string{"hello world", "a", "[6nx"}; !equal(clips, want) {
		t.Errorf("clipboard %q, want %q", clips, want)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestOptionsCaps(t *testing.T) {
	opts := sanitize.Options{MaxCSIBytes: 8, MaxCSIParams: 2, MaxTitleBytes: 3, MaxURIBytes: 12, Cols: 10, Rows: 2}
	for _, c := range []struct{ in, want string }{
		{"\x1b[12345A", "\x1b[1000A"},
		{"\x1b[123456A", ""},
		{"\x1b[1;2H", "\x1b[1;2H"},
		{"\x1b[1;2;3m", ""},
		{"\x1b]2;abc\x07", "\x1b]2;abc\x1b\\"},
		{"\x1b]2;abcd\x07", ""},
		{"\x1b]8;;http://abcde\x07", "\x1b]8;;http://abcde\x1b\\"},
		{"\x1b]8;;http://abcdef\x07", ""},
		{"x\x1b[50b", "x\x1b[20b"},
	} {
		if got := run(opts, []byte(c.in)); string(got) != c.want {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSetSize(t *testing.T) {
	s := sanitize.New(sanitize.Options{})
	s.SetSize(200, 60)
	if got := s.Append(nil, []byte("x\x1b[99999b")); string(got) != "x\x1b[12000b" {
		t.Errorf("got %q", got)
	}
	s.SetSize(0, 0)
	if got := s.Append(nil, []byte("\x1b[99999b")); string(got) != "\x1b[1920b" {
		t.Errorf("after SetSize(0, 0): got %q", got)
	}
}

func TestFlushAndReset(t *testing.T) {
	s := sanitize.New(sanitize.Options{})
	out := s.Append(nil, []byte("\x1b]2;pending"))
	s.Flush()
	out = s.Append(out, []byte("\x07ok\xe2\x82"))
	s.Flush()
	out = s.Append(out, []byte("\xacx\x07"))
	if want := "\x07ok\uFFFDx\x07"; string(out) != want {
		t.Errorf("Flush: got %q, want %q", out, want)
	}
	// The BEL coalescing state survives Flush but not Reset.
	if got := s.Append(nil, []byte("\x07")); len(got) != 0 {
		t.Errorf("BEL after BEL: got %q", got)
	}
	s.Reset()
	if got := s.Append(nil, []byte("\x07")); string(got) != "\x07" {
		t.Errorf("BEL after Reset: got %q", got)
	}
}

type errWriter struct{ err error }

func (w errWriter) Write(p []byte) (int, error) { return 0, w.err }

func TestWriter(t *testing.T) {
	var buf bytes.Buffer
	w := sanitize.NewWriter(&buf, sanitize.Options{Profile: sanitize.Driver})
	for _, p := range []string{"a\x1b[", "6n\x1b[?20", "04h\x1b[", "5", "n\x1b=", "b"} {
		if n, err := w.Write([]byte(p)); n != len(p) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", p, n, err)
		}
	}
	if want := "a\x1b[?2004h\x1b=b"; buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
	w.Write([]byte("\x1b]2;x"))
	w.Flush()
	w.Write([]byte("\x07c"))
	if want := "a\x1b[?2004h\x1b=b\x07c"; buf.String() != want {
		t.Errorf("after Flush: got %q, want %q", buf.String(), want)
	}

	boom := errors.New("boom")
	w.Reset(errWriter{boom})
	if n, err := w.Write([]byte("x")); n != 1 || !errors.Is(err, boom) {
		t.Errorf("Write to failing writer = %d, %v", n, err)
	}
	if n, err := w.Write([]byte("\x1b[6n")); n != 4 || err != nil {
		t.Errorf("Write with nothing to pass = %d, %v; want no call to the writer", n, err)
	}
}

func TestUIString(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"plain", 0, "plain"},
		{"tab\there\nnl", 0, "tabherenl"},
		{"del\x7f c1\u0085 \u009b6n", 0, "del c1 6n"},
		{"bidi \u202eevil\u202c \u2066iso\u2069", 0, "bidi evil iso"},
		{"bad \xff\xc0utf8", 0, "bad utf8"},
		{"keeps \uFFFD", 0, "keeps \uFFFD"},
		{"日本語テキスト", 3, "日本語"},
		{"a\x1bbc", 2, "ab"},
		{"abc", 3, "abc"},
		{"abc", -1, "abc"},
		{"😀👍🏽", 2, "😀👍"},
	} {
		if got := sanitize.UIString(c.in, c.max); got != c.want {
			t.Errorf("UIString(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
	if n := testing.AllocsPerRun(10, func() { sanitize.UIString("already clean", 0) }); n != 0 {
		t.Errorf("UIString of a clean string allocates %v times", n)
	}
}
