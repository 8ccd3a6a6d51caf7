package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/internal/cast"
)

// TestShellMarksUnderTmux runs a real shell that loads `ptyhost
// shell-integration`'s snippet under `ptyhost run --record`, in tmux, types
// commands as a person would, and reads the recording: each command's
// line, its exit status and the prompts, as v3 marker events, with the
// sequences themselves gone from the screen.
func TestShellMarksUnderTmux(t *testing.T) {
	for _, shell := range []string{"bash", "zsh"} {
		t.Run(shell, func(t *testing.T) {
			requireTool(t, shell)
			tm := newTmux(t)
			dir := t.TempDir()
			rc := filepath.Join(dir, ".zshrc")
			argv := shell + " -i"
			if shell == "bash" {
				rc = filepath.Join(dir, "bashrc")
				argv = "bash --noprofile --rcfile " + rc + " -i"
			}
			init := "PS1='sh> '\neval \"$(" + shellQuote(ptyhostBin) + " shell-integration " + shell + ")\"\n"
			if err := os.WriteFile(rc, []byte(init), 0o600); err != nil {
				t.Fatal(err)
			}
			castPath := filepath.Join(dir, "s.cast")
			tm.run("new-session", "-d", "-s", "main", "-x", "80", "-y", "24",
				"env HOME="+dir+" ZDOTDIR="+dir+" HISTFILE="+filepath.Join(dir, "hist")+" "+
					shellQuote(ptyhostBin)+" run --record "+castPath+" -- "+argv)
			tm.waitIn("main:0", "sh>")
			for _, line := range []string{"true", "ls /nonexistent-dir", "echo 'a;b'"} {
				tm.run("send-keys", "-t", "main:0", "-l", line)
				tm.run("send-keys", "-t", "main:0", "Enter")
			}
			screen := tm.waitIn("main:0", "a;b")
			if strings.Contains(screen, "133;") || strings.Contains(screen, "633;") {
				t.Errorf("a mark's sequence shows as text:\n%s", screen)
			}
			tm.run("send-keys", "-t", "main:0", "-l", "exit 3")
			tm.run("send-keys", "-t", "main:0", "Enter")
			deadline := time.Now().Add(30 * time.Second)
			var marks []string
			var exit string
			for {
				marks, exit = castMarks(t, castPath)
				if exit != "" || time.Now().After(deadline) {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			want := []string{"prompt", "$ true", "exit 0", "prompt", "$ ls /nonexistent-dir", "exit 2",
				"prompt", "$ echo 'a;b'", "exit 0", "prompt", "$ exit 3"}
			if strings.Join(marks, "|") != strings.Join(want, "|") || exit != "3" {
				t.Fatalf("marks %q, exit %q; want %q and 3", marks, exit, want)
			}
		})
	}
}

// castMarks reads a cast's marker labels and its exit event's status
// ("" before the cast has one).
func castMarks(t *testing.T, path string) (marks []string, exit string) {
	f, err := os.Open(path)
	if err != nil {
		return nil, ""
	}
	defer f.Close()
	r, err := cast.NewReader(f)
	if err != nil {
		return nil, ""
	}
	for {
		ev, err := r.Next()
		if err != nil {
			return marks, exit
		}
		switch ev.Code {
		case cast.CodeMarker:
			marks = append(marks, ev.Data)
		case cast.CodeExit:
			exit = ev.Data
		}
	}
}
