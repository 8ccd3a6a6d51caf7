package ptyhost

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/shellmark"
	"github.com/ptyhost/ptyhost/internal/testkit"
)

// labels returns the Marker labels among frames, in order.
func labels(tb testing.TB, frames []attachwire.Frame) []string {
	tb.Helper()
	var out []string
	for _, f := range frames {
		if f.Type != attachwire.TypeMarker {
			continue
		}
		m, err := attachwire.DecodeMarker(f.Payload)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, m.Label)
	}
	return out
}

func TestCommandMarksFollowTheirSequence(t *testing.T) {
	script := `printf '\033]133;A\007$ '; printf '\033]633;E;make \\x3b ok\007\033]133;C\007'; printf 'built\n\033]133;D;2\033\\'`
	s := start(t, Spec{Command: []string{"sh", "-c", script}}, realBackend(t))
	sub, err := s.Subscribe(0)
	if err != nil {
		t.Fatal(err)
	}
	frames := collect(t, sub)
	if got, want := labels(t, frames), []string{"prompt", "$ make ; ok", "exit 2"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("labels %q, want %q", got, want)
	}
	// Every Output before a mark ends with the sequence that made it, and
	// nothing of the output is lost or repeated.
	for i, f := range frames {
		if f.Type == attachwire.TypeMarker && (i == 0 || frames[i-1].Type != attachwire.TypeOutput ||
			!bytes.HasSuffix(frames[i-1].Payload, []byte("\a")) && !bytes.HasSuffix(frames[i-1].Payload, []byte("\x1b\\"))) {
			t.Errorf("marker %d not right after its sequence: %+v", i, frames[i-1])
		}
	}
	want := "\x1b]133;A\a$ \x1b]633;E;make \\x3b ok\a\x1b]133;C\abuilt\r\n\x1b]133;D;2\x1b\\"
	if got := string(output(frames)); got != want {
		t.Errorf("output %q, want %q", got, want)
	}
	checkContiguous(t, frames, 1)
}

func TestNoCommandMarks(t *testing.T) {
	s := start(t, Spec{Command: []string{"printf", `\033]133;A\007x`}, NoCommandMarks: true}, realBackend(t))
	sub, err := s.Subscribe(0)
	if err != nil {
		t.Fatal(err)
	}
	if got := labels(t, collect(t, sub)); got != nil {
		t.Errorf("labels %q with NoCommandMarks", got)
	}
}

// shellCase runs one shell with this package's snippet loaded.
type shellCase struct {
	name string
	// argv starts the shell interactively with the snippet at rc.
	argv func(dir, rc string) []string
	env  func(dir string) []string
	ext  string
	// prompt sets a plain prompt in the shell's own language.
	prompt string
}

var shellCases = []shellCase{
	{"bash", func(dir, rc string) []string { return []string{"bash", "--noprofile", "--rcfile", rc, "-i"} }, nil, ".sh",
		"PS1='sh> '\n"},
	{"zsh", func(dir, rc string) []string { return []string{"zsh", "-i"} },
		func(dir string) []string { return []string{"ZDOTDIR=" + dir} }, ".zshrc", "PS1='sh> '\n"},
	{"fish", func(dir, rc string) []string { return []string{"fish", "--no-config", "-i", "-C", "source " + rc} }, nil, ".fish",
		"function fish_prompt; echo -n 'sh> '; end\n"},
}

// TestShellSnippetsMarkCommands types commands into real shells that load
// the shell-integration snippets and reads the marks they make: each
// command's line, its exit status, and a prompt before each.
func TestShellSnippetsMarkCommands(t *testing.T) {
	commands := []struct{ line, label, exit string }{
		{"true", "$ true", "exit 0"},
		{"false", "$ false", "exit 1"},
		{`echo 'semi;colon\back'`, `$ echo 'semi;colon\back'`, "exit 0"},
		{"sh -c 'exit 7'", "$ sh -c 'exit 7'", "exit 7"},
	}
	for _, sc := range shellCases {
		t.Run(sc.name, func(t *testing.T) {
			testkit.RequireTool(t, sc.name)
			dir := t.TempDir()
			snippet, err := shellmark.Snippet(sc.name)
			if err != nil {
				t.Fatal(err)
			}
			rc := filepath.Join(dir, "rc"+sc.ext)
			if sc.name == "zsh" {
				rc = filepath.Join(dir, ".zshrc")
			}
			// Loaded twice: the snippet must not mark anything twice.
			if err := os.WriteFile(rc, []byte(sc.prompt+snippet+snippet), 0o600); err != nil {
				t.Fatal(err)
			}
			env := []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + dir, "XDG_DATA_HOME=" + dir, "HISTFILE=" + filepath.Join(dir, "hist")}
			if sc.env != nil {
				env = append(env, sc.env(dir)...)
			}
			s := start(t, Spec{Command: sc.argv(dir, rc), Env: env}, realBackend(t))
			sub, err := s.Subscribe(0)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), testkit.Deadline)
			defer cancel()
			var got []string
			var out []byte
			next := 0
			for {
				f, err := sub.Next(ctx)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("after marks %q and output %q: %v", got, out, err)
				}
				if f.Type == attachwire.TypeOutput {
					out = append(out, f.Payload...)
				}
				if f.Type != attachwire.TypeMarker {
					continue
				}
				m, _ := attachwire.DecodeMarker(f.Payload)
				got = append(got, m.Label)
				if m.Label != "prompt" {
					continue
				}
				// Type the next command only at a prompt, as a person does.
				line := "exit"
				if next < len(commands) {
					line = commands[next].line
				}
				next++
				if _, err := s.WriteInput([]byte(line + "\r")); err != nil {
					t.Fatal(err)
				}
			}
			want := []string{"prompt"}
			for _, c := range commands {
				want = append(want, c.label, c.exit, "prompt")
			}
			want = append(want, "$ exit")
			// fish reports the end of its own exit too.
			if n := len(got); n == len(want)+1 && strings.HasPrefix(got[n-1], "exit") {
				got = got[:n-1]
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("marks:\n got %q\nwant %q", got, want)
			}
		})
	}
}
