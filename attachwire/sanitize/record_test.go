package sanitize_test

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// The files in testdata/streams are raw PTY output of real programs,
// recorded once by TestRecordStreams and committed. CI never re-records; run
//
//	SANITIZE_RECORD=1 go test -run TestRecordStreams ./attachwire/sanitize
//
// to regenerate them (needs bash, ls, vim and htop).

// session is a program to record and the keys to type into it.
type session struct {
	name string
	argv []string
	keys []step
	quit bool // the program exits by itself after the last step
}

// step waits, then types keys.
type step struct {
	wait time.Duration
	keys string
}

func TestRecordStreams(t *testing.T) {
	if os.Getenv("SANITIZE_RECORD") != "1" {
		t.Skip("set SANITIZE_RECORD=1 to re-record testdata/streams")
	}
	dir := t.TempDir()
	src := "package main\n\nimport \"fmt\"\n\n// main greets.\nfunc main() {\n\tfmt.Println(\"héllo, 世界\")\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"notes.txt", "photo.png", "backup.tar.gz", "run.sh"} {
		os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644)
	}
	os.Chmod(filepath.Join(dir, "run.sh"), 0o755)
	os.Mkdir(filepath.Join(dir, "src"), 0o755)
	os.Symlink("notes.txt", filepath.Join(dir, "link"))
	ps1 := `\[\e]0;\u@demo: \w\a\]\[\e[1;32m\]\u@demo\[\e[0m\]:\[\e[1;34m\]\w\[\e[0m\]\$ `
	sessions := []session{
		{name: "ls", quit: true, argv: []string{"bash", "--norc", "--noprofile", "-c",
			`eval "$(dircolors -b)"; ls --color=always -la --time-style=+ . /usr/bin | head -60`}},
		{name: "vim", argv: []string{"vim", "-u", "DEFAULTS", "-i", "NONE", "-N", "main.go"}, keys: []step{
			{1500 * time.Millisecond, ":syntax on\r:set number cursorline\r"},
			{500 * time.Millisecond, "Go// añadido 😀\x1b"},
			{500 * time.Millisecond, ":split\r"},
			{800 * time.Millisecond, ""},
		}},
		{name: "htop", argv: []string{"htop", "-d", "10"}, keys: []step{
			{2000 * time.Millisecond, "t"},
			{1200 * time.Millisecond, ""},
		}},
		{name: "bash", quit: true, argv: []string{"bash", "--norc", "--noprofile", "-i"}, keys: []step{
			{700 * time.Millisecond, "echo héllo wörld 日本語\r"},
			{400 * time.Millisecond, "printf '\\e[1;35mmagenta\\e[0m \\e[4mline\\e[24m\\n'\r"},
			{400 * time.Millisecond, "\x1b[200~echo pasted\x1b[201~\r"},
			{400 * time.Millisecond, "ls --color=always\r"},
			{400 * time.Millisecond, "exit\r"},
		}},
	}
	for _, s := range sessions {
		out := record(t, dir, ps1, s)
		if len(out) > 64<<10 {
			t.Errorf("%s: %d bytes recorded, want < 64 KiB", s.name, len(out))
		}
		path := filepath.Join("testdata", "streams", s.name+".raw")
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes", path, len(out))
	}
}

// record runs s under an 80×24 PTY in dir, types its keys and returns
// everything the program wrote.
func record(t *testing.T, dir, ps1 string, s session) []byte {
	t.Helper()
	cmd := exec.Command(s.argv[0], s.argv[1:]...)
	cmd.Dir = dir
	cmd.Env = []string{"TERM=xterm-256color", "LANG=C.UTF-8", "HOME=" + dir, "PATH=/usr/bin:/bin", "PS1=" + ps1, "USER=demo"}
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 80, Rows: 24})
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu  sync.Mutex
		buf bytes.Buffer
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		b := make([]byte, 4096)
		for {
			n, err := ptmx.Read(b)
			mu.Lock()
			buf.Write(b[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	for _, k := range s.keys {
		time.Sleep(k.wait)
		io.WriteString(ptmx, k.keys)
	}
	if !s.quit {
		cmd.Process.Kill()
	}
	cmd.Wait()
	// The reader stops with EIO once it has drained what the program wrote.
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: reader did not stop", s.name)
	}
	ptmx.Close()
	mu.Lock()
	defer mu.Unlock()
	return bytes.Clone(buf.Bytes())
}
