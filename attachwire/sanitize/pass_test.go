package sanitize_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire/sanitize"
	"github.com/ptyhost/ptyhost/internal/streamgen"
)

// copyCases sit on the edges of what the copy-through path may take
// whole: canonical or not, passed as they are or rewritten, within the caps
// or just past them. Each is wrapped in text, so that the fast path meets
// it in the middle of a run.
var copyCases = []string{
	"\x1b[m", "\x1b[0m", "\x1b[00m", "\x1b[01m", "\x1b[10m", "\x1b[100m", "\x1b[1000m",
	"\x1b[1001m", "\x1b[9999m", "\x1b[99999m", "\x1b[;1m", "\x1b[1;m", "\x1b[;m",
	"\x1b[38:2::1:2:3m", "\x1b[38;5;0244m", "\x1b[1:2H", "\x1b[5;1H", "\x1b[5;1;1H",
	"\x1b[H", "\x1b[;H", "\x1b[K", "\x1b[2K", "\x1b[1;2K", "\x1b[s", "\x1b[1s", "\x1b[u",
	"\x1b[3b", "\x1b[5b", "\x1b[4h", "\x1b[4l", "\x1b[1001A", "\x1b[1000A", "\x1b[y",
	"\x1b[?25l", "\x1b[?25h", "\x1b[?1049h", "\x1b[?01049h", "\x1b[?1000;1006h",
	"\x1b[?1049;1000h", "\x1b[?h", "\x1b[?;25h", "\x1b[?25;h", "\x1b[?25:1h", "\x1b[?5m",
	"\x1b[?99999h", "\x1b[?12345h", "\x1b[>4;2m", "\x1b[=1m", "\x1b[<1m", "\x1b[1?m",
	"\x1b[ q", "\x1b[2 q", "\x1b[!p", "\x1b[1\nm", "\x1b[1\x1bm", "\x1b[1\xc3\xa9m",
	"\x1b[1\x7fm", "\x1b[6n", "\x1b[c", "\x1b7", "\x1b8", "\x1bD", "\x1bE", "\x1bH", "\x1bM",
	"\x1b=", "\x1b>", "\x1bc", "\x1b(B", "\x1b(0", "\x1b(A", "\x1b)B", "\x1b#3", "\x1b#6",
	"\x1b#8", "\x1b#", "\x1bZ", "\x1b[", "\x1b", "\x1b\x1b[1m", "\x07\x07", "\x00", "\x0e",
	"\x9b1m", "\xc2\x9b1m", "\xc2\xa0", "\xc3(", "\xe2\x82", "\xed\xa0\x80", "\xf0\x9f\x98\x80",
	"\xf4\x90\x80\x80", "\r\n\t\b",
	"\x1b[" + strings.Repeat("1;", 31) + "1m", "\x1b[" + strings.Repeat("1;", 32) + "1m",
	"\x1b[" + strings.Repeat(";", 31) + "m", "\x1b[" + strings.Repeat(";", 32) + "m",
	"\x1b[" + strings.Repeat("1", 252) + "m", "\x1b[" + strings.Repeat("0;", 126) + "1m",
	"\x1b[" + strings.Repeat("0;", 127) + "m",
}

// TestCopyThrough holds the copy-through path to the parser it stands in
// for: every input gives the same output whole (the fast paths) as byte by
// byte (the parser alone, which no fast path reaches), in both profiles
// and on a screen small enough to cap REP.
func TestCopyThrough(t *testing.T) {
	inputs := map[string][]byte{}
	for _, c := range copyCases {
		inputs[c] = []byte("text " + c + " more text\r\n" + c + c)
	}
	for seed := uint64(1); seed <= 3; seed++ {
		inputs["mixed"+string(rune('0'+seed))] = streamgen.Mixed(seed, 16<<10)
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "streams", "*.raw"))
	for _, path := range files {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		inputs[filepath.Base(path)] = raw
	}
	for name, in := range inputs {
		// The 2×2 screen lowers REP's cap below the other counts'.
		for _, opts := range []sanitize.Options{{}, {Profile: sanitize.Driver}, {Cols: 2, Rows: 2}} {
			whole, byByte := run(opts, in), run(opts, bytewise(in)...)
			if !bytes.Equal(whole, byByte) {
				t.Errorf("%q, %+v:\nwhole     %q\nbytewise  %q", name, opts, cut(whole), cut(byByte))
			}
		}
	}
}

// cut bounds b for a failure message.
func cut(b []byte) []byte {
	if len(b) > 400 {
		return b[:400]
	}
	return b
}
