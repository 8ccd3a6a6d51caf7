package ptyhost

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term/termtest"
	"github.com/ptyhost/ptyhost/internal/testkit"
)

// TestScreensMatchTmux drives real programs under ptyhost and compares the
// session's snapshot with tmux's screen for the very bytes the session
// published (text and attributes, via termtest's oracle).
func TestScreensMatchTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIP: -short")
	}
	newTerm := realBackend(t)
	home := t.TempDir()
	colored := filepath.Join(home, "colored.txt")
	var b strings.Builder
	for i := range 60 {
		fmt.Fprintf(&b, "\x1b[%dmline %02d\x1b[0m plain \x1b[1;4mbold under\x1b[0m \x1b[38;5;%dmidx\x1b[0m \x1b[48;2;10;20;%dmrgb\x1b[0m\n", 31+i%7, i, i*4, i)
	}
	if err := os.WriteFile(colored, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "LANG=C.UTF-8", "LC_ALL=C.UTF-8"}
	tests := []struct {
		name string
		tool string
		cmd  []string
		env  []string
		keys []string
		show string // text the screen must show, so that the test compares something
	}{
		{"vim", "vim", []string{"vim", "-u", "NONE", "-i", "NONE", "-N", "-n"}, nil,
			[]string{"ihello, world\rsecond line\x1b", ":split\r", "Go\x1b[1mnot bold\x1b"}, "second line"},
		{"less", "less", []string{"less", "-R", colored}, []string{"LESS=", "LESSHISTFILE=-"}, []string{" ", "k"}, "bold under"},
		{"bash", "bash", []string{"bash", "--norc", "--noprofile", "-i"},
			[]string{`PS1=\[\e[1;32m\]me@host\[\e[0m\]:\[\e[34m\]~/src\[\e[0m\]$ `},
			[]string{"printf '\\033[7m rev \\033[0m\\n'\r", "ls /nonexistent-dir\r"}, "me@host:~/src$ ls"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			termtest.NeedTool(t, tt.tool)
			spec := Spec{Command: tt.cmd, Env: append(append([]string{}, env...), tt.env...), Cols: 80, Rows: 24, Dir: home}
			s := start(t, spec, newTerm)
			sub, err := s.Subscribe(0)
			if err != nil {
				t.Fatal(err)
			}
			var frames []attachwire.Frame
			quiet := func() {
				for {
					ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
					f, err := sub.Next(ctx)
					cancel()
					if err != nil {
						return
					}
					frames = append(frames, f)
				}
			}
			quiet()
			for _, k := range tt.keys {
				if _, err := s.WriteInput([]byte(k)); err != nil {
					t.Fatal(err)
				}
				quiet()
			}
			scr, at, err := s.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			// Output published between the last quiet read and the
			// snapshot is still in the ring: read up to atSeq.
			for len(frames) == 0 || frames[len(frames)-1].Seq < at {
				ctx, cancel := context.WithTimeout(context.Background(), watchdog)
				f, err := sub.Next(ctx)
				cancel()
				if err != nil {
					t.Fatalf("reading up to the snapshot's seq %d: %v", at, err)
				}
				frames = append(frames, f)
			}
			var data []byte
			for _, f := range frames {
				if f.Seq <= at && f.Type == attachwire.TypeOutput {
					data = append(data, f.Payload...)
				}
			}
			if !strings.Contains(testkit.Text(scr), tt.show) {
				t.Fatalf("screen does not show %q:\n%s", tt.show, testkit.Text(scr))
			}
			want := termtest.TmuxScreen(t, spec.Cols, spec.Rows, data)
			if diffs := termtest.Diff(want, termtest.FromScreen(&scr)); diffs != nil {
				t.Fatalf("%s: ptyhost's screen differs from tmux's for the same %d bytes:\n%s\nptyhost text:\n%s",
					tt.name, len(data), strings.Join(diffs, "\n"), testkit.Text(scr))
			}
		})
	}
}
