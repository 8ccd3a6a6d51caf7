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
	base := filepath.Join(termtest.Dir(), sc.name)
	if err := os.WriteFile(base+".rec", termtest.EncodeRecording(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(base+".golden", golden, 0o644); err != nil {
		t.Fatal(err)
	}
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
