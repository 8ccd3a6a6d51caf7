package sanitize_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire/sanitize"
)

// policyCase is one row of docs/sanitizer.md: an input in 7-bit form and what
// must come out. Rows whose input has an ESC Fe pair also run in raw C1 and
// UTF-8-encoded C1 form with the same expected output.
type policyCase struct {
	name    string
	in      string
	want    string
	profile sanitize.Profile
}

const ris = "\x1b[!p\x1b[H\x1b[2J"

var policyCases = []policyCase{
	// Parser rules.
	{name: "esc in csi params", in: "\x1b[1;\x1b[2A", want: "\x1b[2A"},
	{name: "esc in osc", in: "\x1b]0;ti\x1b[6nx", want: "x"},
	{name: "esc in dcs", in: "\x1bP1$q\x1b[Hx", want: "\x1b[Hx"},
	{name: "esc in esc", in: "\x1b(\x1b7", want: "\x1b7"},
	{name: "lf in csi cpr", in: "\x1b[6\nn", want: "\n"},
	{name: "cr in cup", in: "\x1b[2\r;3H", want: "\r\x1b[2;3H"},
	{name: "enq and bel in csi", in: "\x1b[1\x05\x07A", want: "\x1b[1A"},
	{name: "c0 in esc", in: "\x1b\n\t7", want: "\n\t\x1b7"},
	{name: "c0 in esc intermediate", in: "\x1b(\b0", want: "\b\x1b(0"},
	{name: "can aborts csi", in: "\x1b[1\x18A", want: "A"},
	{name: "sub aborts csi", in: "\x1b[6\x1an", want: "n"},
	{name: "can aborts osc", in: "\x1b]0;t\x18X", want: "X"},
	{name: "sub aborts dcs", in: "\x1bPq\x1aX", want: "X"},
	{name: "can aborts esc", in: "\x1b\x18c", want: "c"},
	{name: "can sub dropped in text", in: "a\x18b\x1ac", want: "abc"},
	{name: "bel ends osc", in: "\x1b]2;hi\x07", want: "\x1b]2;hi\x1b\\"},
	{name: "bel is data in dcs", in: "\x1bPq\x07x\x1b\\y", want: "y"},
	{name: "bel is data in apc", in: "\x1b_G\x07a\x1b\\b", want: "b"},
	{name: "bel is data in pm", in: "\x1b^\x07z\x1b\\", want: ""},
	{name: "bel is data in sos", in: "\x1bX\x07z\x1b\\", want: ""},
	{name: "c1 csi query", in: "\x1b[6n", want: ""},
	{name: "c1 csi allowed", in: "\x1b[A", want: "\x1b[A"},
	{name: "c1 ind nel hts ri", in: "\x1bD\x1bE\x1bH\x1bM", want: "\x1bD\x1bE\x1bH\x1bM"},
	{name: "c1 st alone", in: "a\x1b\\b", want: "ab"},
	{name: "c1 other controls", in: "\x1bF\x1bN\x1bO\x1bV\x1bW\x1bZ", want: ""},
	{name: "utf8 continuation 80-9f", in: "Ü😀\u00a0€", want: "Ü😀\u00a0€"},
	{name: "utf8 continuation in title", in: "\x1b]2;Ü😀\x07", want: "\x1b]2;Ü😀\x1b\\"},
	{name: "utf8 continuation in dcs", in: "\x1bP\xc3\x9cx\x1b\\y", want: "y"},
	{name: "invalid utf8", in: "a\xffb\xc0\xafc", want: "a\uFFFDb\uFFFD\uFFFDc"},
	{name: "truncated utf8", in: "\xe2\x82a\xf0\x9f", want: "\uFFFDa"},
	{name: "surrogate", in: "\xed\xa0\x80", want: "\uFFFD\uFFFD"},
	{name: "overlong e0", in: "\xe0\x80\xafx", want: "\uFFFD\uFFFDx"},
	{name: "non-ascii in csi", in: "\x1b[1é6nA", want: "A"},
	{name: "non-ascii in esc", in: "\x1bé7x", want: "x"},
	{name: "invalid utf8 in csi", in: "\x1b[1\xff;1Hx", want: "x"},
	{name: "csi at byte cap", in: "\x1b[" + strings.Repeat("0", 253) + "A", want: "\x1b[0A"},
	{name: "csi over byte cap", in: "\x1b[" + strings.Repeat("0", 254) + "Ax", want: "x"},
	{name: "csi at param cap", in: "\x1b[" + strings.Repeat("1;", 31) + "1m", want: "\x1b[" + strings.Repeat("1;", 31) + "1m"},
	{name: "csi over param cap", in: "\x1b[" + strings.Repeat("1;", 32) + "1mx", want: "x"},
	{name: "title at cap", in: "\x1b]2;" + strings.Repeat("t", 1024) + "\x07", want: "\x1b]2;" + strings.Repeat("t", 1024) + "\x1b\\"},
	{name: "title over cap", in: "\x1b]2;" + strings.Repeat("t", 1025) + "\x07x", want: "x"},
	{name: "uri at cap", in: "\x1b]8;;https://" + strings.Repeat("u", 2040) + "\x07", want: "\x1b]8;;https://" + strings.Repeat("u", 2040) + "\x1b\\"},
	{name: "uri over cap", in: "\x1b]8;;https://" + strings.Repeat("u", 2041) + "\x07x", want: "x"},

	// Text.
	{name: "text and formatting c0", in: "hi\tthere\r\nb\bc", want: "hi\tthere\r\nb\bc"},
	{name: "bel coalesced", in: "\x07\x07a\x07\x1b[6n\x07\x07", want: "\x07a\x07"},
	{name: "so si", in: "\x0e\x1b)0q\x0f", want: "\x0e\x1b)0q\x0f"},
	{name: "other c0 and del", in: "\x00\x01\x04\x05\x0b\x0c\x10\x11\x13\x1c\x1f\x7f", want: ""},

	// ESC.
	{name: "esc allowed", in: "\x1b7\x1b8\x1bD\x1bE\x1bH\x1bM\x1b>", want: "\x1b7\x1b8\x1bD\x1bE\x1bH\x1bM\x1b>"},
	{name: "deckpam viewer", in: "\x1b=", want: ""},
	{name: "deckpam driver", in: "\x1b=", want: "\x1b=", profile: sanitize.Driver},
	{name: "charsets", in: "\x1b(B\x1b(0\x1b)B\x1b)0", want: "\x1b(B\x1b(0\x1b)B\x1b)0"},
	{name: "nrcs", in: "\x1b(A\x1b(K\x1b)<\x1b*0\x1b+B\x1b-A", want: ""},
	{name: "double size lines", in: "\x1b#3\x1b#4\x1b#5\x1b#6", want: "\x1b#3\x1b#4\x1b#5\x1b#6"},
	{name: "decaln", in: "\x1b#8", want: ""},
	{name: "ris rewritten", in: "a\x1bcb", want: "a" + ris + "b"},
	{name: "two intermediates", in: "\x1b((B", want: ""},

	// CSI.
	{name: "count finals", in: "\x1b[2@\x1b[2A\x1b[B\x1b[3C\x1b[D\x1b[E\x1b[F\x1b[5G\x1b[I\x1b[2J\x1b[K\x1b[L\x1b[M\x1b[P\x1b[S\x1b[T\x1b[X\x1b[Z\x1b[9`\x1b[a\x1b[d\x1b[e\x1b[3g",
		want: "\x1b[2@\x1b[2A\x1b[B\x1b[3C\x1b[D\x1b[E\x1b[F\x1b[5G\x1b[I\x1b[2J\x1b[K\x1b[L\x1b[M\x1b[P\x1b[S\x1b[T\x1b[X\x1b[Z\x1b[9`\x1b[a\x1b[d\x1b[e\x1b[3g"},
	{name: "cup hvp decstbm", in: "\x1b[H\x1b[10;20H\x1b[;5f\x1b[2;20r\x1b[r", want: "\x1b[H\x1b[10;20H\x1b[;5f\x1b[2;20r\x1b[r"},
	{name: "save restore", in: "\x1b[s\x1b[u", want: "\x1b[s\x1b[u"},
	{name: "decslrm", in: "\x1b[1;5s", want: ""},
	{name: "too many count params", in: "\x1b[1;2A\x1b[1;2;3H\x1b[1;2;3;4;5T", want: ""},
	{name: "counts clamped", in: "\x1b[5000A\x1b[4294967302B\x1b[007C", want: "\x1b[1000A\x1b[1000B\x1b[7C"},
	{name: "rep clamped", in: "x\x1b[99999b\x1b[3b", want: "x\x1b[1920b\x1b[3b"},
	{name: "irm", in: "\x1b[4h\x1b[4l", want: "\x1b[4h\x1b[4l"},
	{name: "irm filtered", in: "\x1b[4;20h\x1b[2;4l", want: "\x1b[4h\x1b[4l"},
	{name: "kam srm lnm", in: "\x1b[2h\x1b[12h\x1b[20h\x1b[h", want: ""},
	{name: "sgr", in: "\x1b[0;1;38;5;208;48;2;1;2;3m\x1b[m\x1b[;1m", want: "\x1b[0;1;38;5;208;48;2;1;2;3m\x1b[m\x1b[;1m"},
	{name: "sgr colon forms", in: "\x1b[38:2::255:0:0m\x1b[4:3m\x1b[58:5:9m", want: "\x1b[38:2::255:0:0m\x1b[4:3m\x1b[58:5:9m"},
	{name: "sgr canonical", in: "\x1b[01;031m\x1b[99999m", want: "\x1b[1;31m\x1b[1000m"},
	{name: "colon outside sgr", in: "\x1b[1:2H\x1b[?1049:1h", want: ""},
	{name: "decset display modes", in: "\x1b[?1h\x1b[?6l\x1b[?7h\x1b[?12l\x1b[?25l\x1b[?47h\x1b[?1047h\x1b[?1048h\x1b[?1049h\x1b[?2026h\x1b[?2027l",
		want: "\x1b[?1h\x1b[?6l\x1b[?7h\x1b[?12l\x1b[?25l\x1b[?47h\x1b[?1047h\x1b[?1048h\x1b[?1049h\x1b[?2026h\x1b[?2027l"},
	{name: "decset mixed viewer", in: "\x1b[?1049;1000;2004;25;1006h", want: "\x1b[?1049;25h"},
	{name: "decset mixed driver", in: "\x1b[?1049;1000;2004;25;1006;2048h", want: "\x1b[?1049;1000;2004;25;1006h", profile: sanitize.Driver},
	{name: "decset input modes viewer", in: "\x1b[?1000h\x1b[?1002h\x1b[?1003h\x1b[?1004h\x1b[?1005h\x1b[?1006h\x1b[?1015h\x1b[?2004h", want: ""},
	{name: "decset input modes driver", in: "\x1b[?1000h\x1b[?1002l\x1b[?1003h\x1b[?1004h\x1b[?1005h\x1b[?1006h\x1b[?1015h\x1b[?2004h",
		want: "\x1b[?1000h\x1b[?1002l\x1b[?1003h\x1b[?1004h\x1b[?1005h\x1b[?1006h\x1b[?1015h\x1b[?2004h", profile: sanitize.Driver},
	{name: "decset empty member", in: "\x1b[?;25h", want: "\x1b[?25h"},
	{name: "cursor shape", in: "\x1b[2 q\x1b[ q\x1b[6 q", want: "\x1b[2 q\x1b[ q\x1b[6 q"},
	{name: "cursor shape out of range", in: "\x1b[7 q\x1b[1;2 q", want: ""},
	{name: "decstr", in: "\x1b[!p", want: "\x1b[!p"},
	{name: "decstr with params", in: "\x1b[1!p", want: ""},
	{name: "unknown csi", in: "\x1b[1y\x1b[>1;2x", want: ""},

	// OSC that passes.
	{name: "title 0 1 2", in: "\x1b]0;a b\x07\x1b]1;icon\x1b\\\x1b]2;c\x07", want: "\x1b]0;a b\x1b\\\x1b]1;icon\x1b\\\x1b]2;c\x1b\\"},
	{name: "title empty", in: "\x1b]2;\x07", want: "\x1b]2;\x1b\\"},
	{name: "title leading zeros", in: "\x1b]002;t\x07", want: "\x1b]2;t\x1b\\"},
	{name: "title with c0", in: "\x1b]2;a\tb\x07", want: ""},
	{name: "title with del", in: "\x1b]2;a\x7fb\x07", want: ""},
	{name: "title with bidi override", in: "\x1b]2;a\u202eb\x07\x1b]2;c\u2066d\x07", want: ""},
	{name: "title with invalid utf8", in: "\x1b]2;a\xffb\x07", want: ""},
	{name: "title without text", in: "\x1b]2\x07", want: ""},
	{name: "osc 8 link", in: "\x1b]8;;https://example.com/a?b=c;d\x1b\\x\x1b]8;;\x1b\\", want: "\x1b]8;;https://example.com/a?b=c;d\x1b\\x\x1b]8;;\x1b\\"},
	{name: "osc 8 schemes", in: "\x1b]8;;HTTP://a\x07\x1b]8;;mailto:a@b\x07", want: "\x1b]8;;HTTP://a\x1b\\\x1b]8;;mailto:a@b\x1b\\"},
	{name: "osc 8 id kept", in: "\x1b]8;foo=bar:id=ab.C_1-2;http://x\x07", want: "\x1b]8;id=ab.C_1-2;http://x\x1b\\"},
	{name: "osc 8 bad id dropped", in: "\x1b]8;id=a b;http://x\x07\x1b]8;id=" + strings.Repeat("i", 65) + ";http://y\x07", want: "\x1b]8;;http://x\x1b\\\x1b]8;;http://y\x1b\\"},
	{name: "osc 8 bad schemes", in: "\x1b]8;;file:///etc/passwd\x07\x1b]8;;javascript:alert(1)\x07\x1b]8;;ssh://h\x07\x1b]8;;example.com\x07", want: ""},
	{name: "osc 8 non printable uri", in: "\x1b]8;;http://a b\x07\x1b]8;;http://é\x07", want: ""},
	{name: "osc 8 close with params", in: "\x1b]8;id=1;\x07", want: "\x1b]8;;\x1b\\"},
	{name: "osc 8 no uri separator", in: "\x1b]8;id=1\x07", want: ""},

	// Queries: never pass.
	{name: "enq", in: "a\x05b", want: "ab"},
	{name: "decid", in: "\x1bZ", want: ""},
	{name: "da1 da2 da3", in: "\x1b[c\x1b[0c\x1b[>c\x1b[>0c\x1b[=c", want: ""},
	{name: "dsr cpr", in: "\x1b[5n\x1b[6n\x1b[n", want: ""},
	{name: "private dsr", in: "\x1b[?6n\x1b[?996n\x1b[?15n\x1b[?25n", want: ""},
	{name: "overflowing cpr", in: "\x1b[4294967302n", want: ""},
	{name: "decrqm", in: "\x1b[2$p\x1b[?2026$p", want: ""},
	{name: "xtversion", in: "\x1b[>q\x1b[>0q", want: ""},
	{name: "decrqss", in: "\x1bP$qm\x1b\\\x1bP$q\"p\x1b\\", want: ""},
	{name: "xtgettcap xtgetxres", in: "\x1bP+q544e\x1b\\\x1bP+Qfoo\x1b\\", want: ""},
	{name: "kitty keyboard query", in: "\x1b[?u", want: ""},
	{name: "xtqmodkeys", in: "\x1b[?4m\x1b[?m", want: ""},
	{name: "xtsmgraphics", in: "\x1b[?1;1S\x1b[?2;1;0S", want: ""},
	{name: "window ops", in: "\x1b[14t\x1b[18t\x1b[21t\x1b[22;0t\x1b[23;0t\x1b[8;24;80t\x1b[t", want: ""},
	{name: "decreqtparm", in: "\x1b[x\x1b[1x", want: ""},
	{name: "decrqpsr decrqtsr", in: "\x1b[1$w\x1b[2$w\x1b[1$u", want: ""},
	{name: "decrqcra", in: "\x1b[1;1;1;1;1;1*y", want: ""},
	{name: "decrqde decrqupss", in: "\x1b[\"v\x1b[&u", want: ""},
	{name: "xtreportsgr decrqlp", in: "\x1b[1;1;1;1#|\x1b['|", want: ""},
	{name: "color queries", in: "\x1b]4;1;?\x07\x1b]5;0;?\x07\x1b]10;?\x07\x1b]11;?\x1b\\\x1b]12;?\x07\x1b]17;?\x07\x1b]19;?\x07", want: ""},
	{name: "other osc queries", in: "\x1b]21\x07\x1b]22;?\x07\x1b]50;?\x07\x1b]52;c;?\x07\x1b]60\x07\x1b]61;x\x07\x1b]62\x07\x1b]99;;x\x07\x1b]1337;ReportCellSize\x07\x1b]5522;type=read\x07", want: ""},
	{name: "kitty graphics", in: "\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\", want: ""},

	// Deferred-reply and key-encoding switches.
	{name: "private switches", in: "\x1b[?2048h\x1b[?2031h\x1b[?1007h\x1b[?2001h\x1b[?2002h\x1b[?2003h\x1b[?5522h\x1b[?9h\x1b[?1001h\x1b[?1016h", want: ""},
	{name: "private switches driver", in: "\x1b[?2048h\x1b[?2031h\x1b[?1007h\x1b[?9h\x1b[?1001h\x1b[?1016h", want: "", profile: sanitize.Driver},
	{name: "kitty keyboard", in: "\x1b[>1u\x1b[=1;1u\x1b[<u\x1b[<1u", want: ""},
	{name: "modify other keys", in: "\x1b[>4;2m\x1b[>4m", want: ""},
	{name: "decudk", in: "\x1bP0;1|17/6162\x1b\\", want: ""},
	{name: "s8c1t decscl", in: "\x1b F\x1b G\x1b L\x1b M\x1b N\x1b[62;1\"p\x1b[65\"p", want: ""},
	{name: "charset switching", in: "\x1b%@\x1b%G", want: ""},
	{name: "vt52 tek", in: "\x1b[?2l\x1b[?38h", want: ""},
	{name: "deccolm", in: "\x1b[?3h\x1b[?3l\x1b[?40h", want: ""},

	// Side effects.
	{name: "osc 52 write", in: "\x1b]52;c;aGVsbG8=\x07", want: ""},
	{name: "osc side effects", in: "\x1b]7;file://h/tmp\x07\x1b]9;hi\x07\x1b]133;A\x07\x1b]633;A\x07\x1b]777;notify;a;b\x07\x1b]1337;SetMark\x07", want: ""},
	{name: "fonts and icons", in: "\x1b]3;x=y\x07\x1b]46;/tmp/log\x07\x1b]50;fixed\x07\x1b]51;x\x07\x1b]Ilabel\x07\x1b]Llabel\x07\x1b]llabel\x07", want: ""},
	{name: "colors", in: "\x1b]4;1;#ff0000\x07\x1b]10;#fff\x07\x1b]11;#000\x07\x1b]104\x07\x1b]110\x07\x1b]119\x07", want: ""},
	{name: "media copy", in: "\x1b[5i\x1b[4i\x1b[?5i\x1b[i", want: ""},
	{name: "status line", in: "\x1b[2$~\x1b[1$}", want: ""},
	{name: "charset shifts", in: "\x1bn\x1bo\x1b|\x1b}\x1b~\x1bN\x1bO", want: ""},
	{name: "sixel", in: "\x1bPq#0;2;0;0;0#0~~\x1b\\", want: ""},
	{name: "regis", in: "\x1bP0pS(E)\x1b\\", want: ""},
	{name: "tmux passthrough", in: "\x1bPtmux;\x1b\x1b[6n\x1b\\", want: ""},
	{name: "kitty remote control", in: "\x1bP@kitty-cmd{\"cmd\":\"ls\"}\x1b\\", want: ""},
	{name: "dcs 1000p", in: "\x1bP1000p%session-changed\x1b\\", want: ""},
	{name: "apc pm sos", in: "\x1b_hello\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\", want: ""},
	{name: "unterminated strings", in: "x\x1b]2;title", want: "x"},
}

// policyInputs expands policyCases into named inputs: the 7-bit form and,
// where they exist, the raw C1 and UTF-8-encoded C1 forms.
func policyInputs() []policyCase {
	var out []policyCase
	for _, c := range policyCases {
		out = append(out, c)
		raw, enc := c1Forms([]byte(c.in))
		if raw == nil {
			continue
		}
		r, e := c, c
		r.name, r.in = c.name+"/c1", string(raw)
		e.name, e.in = c.name+"/utf8c1", string(enc)
		out = append(out, r, e)
	}
	return out
}

func TestPolicy(t *testing.T) {
	for _, c := range policyInputs() {
		t.Run(c.name, func(t *testing.T) {
			got := run(sanitize.Options{Profile: c.profile}, []byte(c.in))
			if string(got) != c.want {
				t.Fatalf("in  %q\ngot  %q\nwant %q", c.in, got, c.want)
			}
			checkSafe(t, got)
			if again := run(sanitize.Options{Profile: c.profile}, got); !bytes.Equal(again, got) {
				t.Fatalf("not idempotent: %q then %q", got, again)
			}
		})
	}
}

func TestChunking(t *testing.T) {
	for _, c := range policyInputs() {
		t.Run(c.name, func(t *testing.T) {
			opts := sanitize.Options{Profile: c.profile}
			whole := run(opts, []byte(c.in))
			for how, chunks := range splits([]byte(c.in)) {
				if got := run(opts, chunks...); !bytes.Equal(got, whole) {
					t.Fatalf("%s: got %q, whole gives %q", how, got, whole)
				}
			}
		})
	}
}
