package termtest_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/internal/term/termtest"
)

// scenario is a real program driven inside tmux to make a recording.
type scenario struct {
	name       string
	cols, rows int
	setup      func(tb testing.TB, dir string) // writes the files cmd uses
	cmd        string                          // run in dir under script(1)
	keys       [][]string                      // tmux send-keys argument lists, sent in order
}

const bashPS1 = `\[\e[1;32m\]dev@box\[\e[0m\]:\[\e[1;34m\]\w\[\e[0m\]\$ `

var scenarios = []scenario{
	{
		name: "vim", cols: 80, rows: 24,
		setup: func(tb testing.TB, dir string) {
			writeFile(tb, dir, "main.c", "#include <stdio.h>\n\n/* say hello */\nint main(void) {\n\tconst char *who = \"world\";\n\tprintf(\"hello, %s\\n\", who);\n\treturn 0;\n}\n")
		},
		cmd: "vim -u NONE -i NONE -N -c 'syntax on' -c 'set number' main.c",
		keys: [][]string{
			{"G", "o"}, {"-l", "int answer(void) { return 42; } // added"}, {"Escape"},
			{":vsplit", "Enter"}, {":split", "Enter"}, {"g", "g"},
		},
	},
	{
		name: "less", cols: 80, rows: 24,
		setup: func(tb testing.TB, dir string) {
			var b strings.Builder
			for i := range 60 {
				switch i % 6 {
				case 0:
					b.WriteString("\x1b[1;31mERROR\x1b[0m ")
				case 1:
					b.WriteString("\x1b[33mWARN\x1b[0m  ")
				case 2:
					b.WriteString("\x1b[4;36mINFO\x1b[0m  ")
				case 3:
					b.WriteString("\x1b[38;5;208mDEBUG\x1b[0m ")
				case 4:
					b.WriteString("\x1b[38;2;120;200;80mTRACE\x1b[0m ")
				default:
					b.WriteString("\x1b[7mNOTE\x1b[0m  ")
				}
				b.WriteString(strings.Repeat("log line ", 1+i%5))
				b.WriteString("\n")
			}
			writeFile(tb, dir, "app.log", b.String())
		},
		cmd:  "less -R app.log",
		keys: [][]string{{"Space"}, {"/", "WARN", "Enter"}},
	},
	{
		name: "bash", cols: 80, rows: 24,
		cmd: "env -i HOME=\"$PWD\" TERM=xterm-256color PS1='" + bashPS1 + "' bash --norc --noprofile -i",
		keys: [][]string{
			{"-l", "echo hello world"}, {"Enter"},
			{"-l", `printf '\e[1;33mwarning:\e[0m disk \e[4mnearly\e[24m full\n'`}, {"Enter"},
			{"-l", "cd /usr"}, {"Enter"},
		},
	},
	{
		name: "htop", cols: 80, rows: 24,
		cmd: "exec htop -d 600 -p $$",
	},
	{
		name: "progress", cols: 80, rows: 24,
		cmd: `i=0; while [ $i -le 30 ]; do bar=$(printf "%${i}s" "" | tr " " "#"); ` +
			`printf "\r\033[1;34mfetching\033[0m [%-30s] %3d%%\033[K" "$bar" $((i*100/30)); i=$((i+1)); sleep 0.02; done; ` +
			`printf "\r\033[K\033[32mdone\033[0m 30/30\n"; exec sleep 1000`,
	},
	{
		name: "cat-cjk", cols: 80, rows: 24,
		setup: func(tb testing.TB, dir string) {
			cjk := strings.Repeat("\u6f22\u5b57", 21) // 42 wide glyphs: 84 columns
			writeFile(tb, dir, "cjk.txt", "exact fit then more:\n"+cjk+"\n"+
				"odd start:\n"+"a"+cjk+"\n"+
				"mixed: caf\u00e9 na\u0303o \u4e2d\u6587 ok\n")
		},
		cmd: "cat cjk.txt; exec sleep 1000",
	},
	{
		name: "ls", cols: 80, rows: 24,
		setup: func(tb testing.TB, dir string) {
			for _, d := range []string{"src", "docs", "build"} {
				if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
					tb.Fatal(err)
				}
			}
			for _, f := range []string{"README.md", "notes.txt", "release.tar.gz", "logo.png", "main.c"} {
				writeFile(tb, dir, f, "x\n")
			}
			writeFile(tb, dir, "run.sh", "#!/bin/sh\n")
			if err := os.Chmod(filepath.Join(dir, "run.sh"), 0o755); err != nil {
				tb.Fatal(err)
			}
			if err := os.Symlink("README.md", filepath.Join(dir, "link")); err != nil {
				tb.Fatal(err)
			}
		},
		cmd: "ls --color=always -F; ls --color=always -1 build src .; exec sleep 1000",
	},
}

// sequences are made-up byte streams, each aimed at one behaviour, whose
// golden screens come from tmux: small (20×6) so a difference is easy to
// read. Their names start with "seq-".
var sequences = []struct {
	name string
	data string
}{
	{"rep", "x\x1b[5b\r\nab\x1b[3b"},
	{"rep-huge", "x\x1b[1000000000b"},
	{"rep-after-sequences", "hello \x1b8\x1b[4b\r\nab\x1b[2E\x1b[3bc\x1b[31m\x1b[2bd\x1b[2b\x1b[2b"},
	{"ech-bce", "\x1b[44mhello world\x1b[8D\x1b[3X\x1b[0m"},
	{"el-bce", "abcdef\x1b[3D\x1b[41m\x1b[K\x1b[0m\r\n\x1b[42m\x1b[2K\x1b[0mx"},
	{"wide", "\u4e2d\u6587 ok \U0001F44D!"},
	{"wide-last-col", "0123456789abcdefghi\u4e2dz"},
	{"wide-overwrite", "\u4e2d\u6587\x1b[1;2Hx"},
	{"combining", "e\u0301 a\u0308 n\u0303"},
	{"tabs", "a\tb\tc\r\n\x1b[3g\x1b[5G\x1bH\rx\ty"},
	{"scroll-region", "1\r\n2\r\n3\r\n4\r\n5\r\n6\x1b[2;4r\x1b[4;1H\n\nX\x1b[r"},
	{"insert-delete", "abcdefgh\x1b[1;3H\x1b[2@XY\x1b[1;8H\x1b[2P"},
	{"il-dl", "1\r\n2\r\n3\r\n4\x1b[2;1H\x1b[L\x1b[4;1H\x1b[M"},
	{"il-dl-column", "abc\r\ndef\x1b[1;3H\x1b[LX\x1b[2;3H\x1b[MY"},
	{"il-dl-in-region", "1\r\n2\r\n3\r\n4\r\n5\x1b[2;5r\x1bE\x1b[3LX\x1b[4;1H\x1b[MY\x1b[r"},
	{"autowrap-off", "\x1b[?7l0123456789abcdefghijklmnop\x1b[?7h"},
	{"pending-wrap", "0123456789abcdefghij\x1b[1mX"},
	{"pending-wrap-cr", "0123456789abcdefghij\rY"},
	{"pending-wrap-end", "0123456789abcdefghij"},
	{"pending-wrap-sgr-end", "\x1b[3;5H0123456789abcdef\x1b[1m\x1b]0;t\x07"},
	{"pending-wrap-two-lines", "\x1b[2;11H0123456789abcdefghijklmnopqrstuvwxyz!?"},
	{"pending-wrap-wide-end", "0123456789abcdefgh\u4e2d"},
	{"no-wrap-last-col", "0123456789abcdefghi"},
	{"origin-mode", "\x1b[3;5r\x1b[?6h\x1b[1;1HO\x1b[9;9HP\x1b[?6l\x1b[r"},
	{"alt-screen-1049", "main\x1b[?1049halt\x1b[2;2Hscreen"},
	{"alt-screen-back", "main\x1b[?1049halt\x1b[?1049l!"},
	{"alt-screen-47", "main\x1b[?47halt"},
	{"alt-screen-1049-origin", "\x1b[2;5r\x1b[?6h\x1b[2;3Hab\x1b[?1049hX\x1b[?1049lY\x1b[?6l\x1b[r"},
	{"restore-1049-never-saved", "\x1b[44m\x1b[5C\x1b[?1049l\x1b[4@x\x1b[0m"},
	{"restore-1049-outside-alt", "ab\x1b[?1049h\x1b[?1049l\x1b[3;5Hcd\x1b[?1049lX"},
	{"origin-mode-homes", "hello\r\n\x1b[2;4rworld\x1b[?6hA\x1b[3;3HB\x1b[?6lC"},
	{"origin-mode-cr", "\x1b[2;4r\x1b[?6h\x1bEx\r\ny\ra\x1b[?6l\x1b[r"},
	{"decstbm-origin-home", "\x1b[?6h\x1b[2;4rX\x1b[?6l\x1b[r"},
	{"restore-1049-after-decsc", "0123456789\x1b7\x1b[r\x1b[?1049lX"},
	{"nel", "ab\x1bEcd\x1b[6;1Hlast\x1bEx"},
	{"hts-keeps-pending-wrap", "\x1b[9G0123456789ab\x1bH"},
	{"alt-screen-1047", "main\x1b[?1047halt\x1b[3;5H\x1b[?1047l!"},
	{"alt-screen-1049-twice", "ab\x1b[?1049h\x1b[2;2Hx\x1b[?1049hy\x1b[?1049l!"},
	{"sgr", "\x1b[1;2;3;4;7;9mall\x1b[0m \x1b[38;5;196mi\x1b[48;2;1;2;3mrgb\x1b[0m \x1b[91;102mbr\x1b[m \x1b[38:2::9:8:7mc\x1b[m"},
	{"sgr-reset-parts", "\x1b[1;3;4;7;9mA\x1b[22mB\x1b[23mC\x1b[24mD\x1b[27mE\x1b[29mF"},
	{"dec-graphics", "\x1b(0lqqk\r\nx  x\r\nmqqj\x1b(B ok"},
	{"reverse-index", "a\r\nb\x1b[H\x1bMtop"},
	{"cup-overflow", "\x1b[999;999Hz\x1b[4294967302;2Hw"},
	{"cursor-moves", "\x1b[3;3Hx\x1b[2Ay\x1b[5Bz\x1b[3Dw\x1b[2Cv\x1b[Eu\x1b[Ft\x1b[7Gs\x1b[2ar\x1b[1eq\x1b[4dp\x1b[10`o"},
	{"decsc-decrc", "\x1b[2;2H\x1b[1mA\x1b7\x1b[5;5H\x1b[0mB\x1b8C"},
	{"irm", "abcdef\x1b[1;2H\x1b[4hXY\x1b[4l"},
	{"irm-wide-last-col", "\x1b[3;18H\x1b[4h\u65e5\u672c\x1b[4l"},
	{"alt-screen-margins", "\x1b[2;4r\x1b[?6h\x1b[?1049hA\x1b[9;1HB\x1b[?1049lC\x1b[9;1HD\x1b[?6l\x1b[r"},
	{"irm-wide", "abcdefghijklmnopq\x1b[1;2H\x1b[4h\u4e2dZ\x1b[4l!"},
	{"lnm", "\x1b[20habc\ndef\x1b[20l"},
	{"ed", "aaaa\r\nbbbb\r\ncccc\x1b[2;2H\x1b[1J\x1b[3;3H\x1b[0J"},
	{"ed1-bg-after-restore", "aaaa\r\nbbbb\x1b[44m\x1b7\x1b[41m\x1b8\x1b[2;3H\x1b[1J\x1b[0m"},
	{"ed1-alt-pen", "\x1b[42mxxxx\r\nyyyy\x1b[?1049h\x1b[45m\x1b[?1049l\x1b[1;2H\x1b[1J\x1b[0m"},
	{"c1-in-text", "a\u009bb\u0085c"},
	{"scroll-up-down", "1\r\n2\r\n3\r\n4\x1b[2S\x1b[1T"},
	{"decaln", "\x1b#8"},
	{"decaln-home", "\x1b[41mred\x1b[2;4r\x1b[3;3H\x1b#8x\x1b[B\x1b[B\x1b[B\x1b[By\x1b[0m"},
	{"hidden-cursor-shape", "\x1b[?25l\x1b[4 qx"},
}

func writeFile(tb testing.TB, dir, name, content string) {
	tb.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// TestRecord re-makes the committed recordings; it runs only with
// PTYHOST_RECORD=1:
//
//	PTYHOST_RECORD=1 go test -run TestRecord ./internal/term/termtest
//
// Each program runs in a private tmux pane under script(1), which logs
// exactly the bytes the pane receives (script puts the pane's tty in raw
// mode); the log, minus script's header line, is the recording and tmux's
// capture of the pane at the same moment is its golden screen. Each
// recording is then replayed into a fresh tmux and must reproduce the
// golden screen.
func TestRecord(t *testing.T) {
	if os.Getenv("PTYHOST_RECORD") != "1" {
		t.Skip("set PTYHOST_RECORD=1 to re-make the recordings")
	}
	termtest.NeedTool(t, "script")
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) { record(t, sc) })
	}
	for _, seq := range sequences {
		t.Run("seq-"+seq.name, func(t *testing.T) {
			rec := termtest.Recording{Name: "seq-" + seq.name, Cols: 20, Rows: 6, Data: []byte(seq.data)}
			capture, col, row := termtest.TmuxCapture(t, rec.Cols, rec.Rows, rec.Data)
			save(t, rec, termtest.EncodeGolden(capture, col, row))
		})
	}
}

func save(tb testing.TB, rec termtest.Recording, golden []byte) {
	tb.Helper()
	base := filepath.Join(termtest.Dir(), rec.Name)
	if err := os.WriteFile(base+".rec", termtest.EncodeRecording(rec), 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(base+".golden", golden, 0o644); err != nil {
		tb.Fatal(err)
	}
}

func record(t *testing.T, sc scenario) {
	work := t.TempDir()
	if sc.setup != nil {
		sc.setup(t, work)
	}
	tm := termtest.StartTmux(t, sc.cols, sc.rows, nil, "exec sleep 1000")
	log := filepath.Join(tm.Dir(), "typescript")
	// Restart the pane with the program under script(1), in the work dir.
	tm.Run("respawn-pane", "-k", "-t", "t", "-c", work,
		"exec env TERM=xterm-256color script -q -f -c "+shellQuote(sc.cmd)+" "+log)
	time.Sleep(1500 * time.Millisecond)
	for _, k := range sc.keys {
		tm.Run(append([]string{"send-keys", "-t", "t"}, k...)...)
		time.Sleep(400 * time.Millisecond)
	}
	var data, capture []byte
	var col, row int
	for attempt := 0; ; attempt++ {
		time.Sleep(time.Second)
		before := readLog(t, log)
		capture, col, row = tm.Capture()
		if after := readLog(t, log); bytes.Equal(before, after) {
			data = after
			break
		}
		if attempt == 5 {
			t.Fatal("the program never went quiet")
		}
	}
	if len(data) > 100<<10 {
		t.Fatalf("recording is %d bytes, over 100 KiB", len(data))
	}
	rec := termtest.Recording{Name: sc.name, Cols: sc.cols, Rows: sc.rows, Data: data}
	golden := termtest.EncodeGolden(capture, col, row)
	want, err := termtest.DecodeGolden(sc.cols, sc.rows, golden)
	if err != nil {
		t.Fatal(err)
	}
	if d := termtest.Diff(want, termtest.TmuxScreen(t, sc.cols, sc.rows, data)); len(d) > 0 {
		t.Fatalf("replaying the recording into a fresh tmux does not reproduce the capture:\n%s", strings.Join(d, "\n"))
	}
	save(t, rec, golden)
	t.Logf("%s: %d bytes", sc.name, len(data))
}

// readLog returns script's log without its "Script started" header line.
func readLog(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("Script started")) {
		tb.Fatalf("typescript does not start with script's header: %q", b[:min(len(b), 40)])
	}
	_, rest, _ := bytes.Cut(b, []byte("\n"))
	return rest
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
