package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term/xvtgate"
)

const drawText = "RED\n\n    green bg\n\ndone\n"

func TestExecDrawText(t *testing.T) {
	r := cli(t, "draw", "", "exec", "--size", "40x10", "--", self(t))
	if r.code != 0 || r.stdout != drawText {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 0 and %q", r.code, r.stdout, r.stderr, drawText)
	}
}

// TestExecBackends: every backend renders the same screen; an unknown one
// is a usage error, and so is xvt in a build without the ptyhost_xvt tag.
func TestExecBackends(t *testing.T) {
	names := []string{"default", "engine"}
	if xvtgate.Built {
		names = append(names, "xvt")
	} else if r := cli(t, "draw", "", "exec", "--backend", "xvt", "--", self(t)); r.code != 2 || !strings.Contains(r.stderr, xvtgate.Tag) {
		t.Errorf("--backend xvt without the tag: exit %d, stderr %q; want 2 and the tag", r.code, r.stderr)
	}
	for _, b := range names {
		r := cli(t, "draw", "", "exec", "--backend", b, "--size", "40x10", "--", self(t))
		if r.code != 0 || r.stdout != drawText {
			t.Errorf("--backend %s: exit %d, stdout %q, stderr %q; want 0 and %q", b, r.code, r.stdout, r.stderr, drawText)
		}
	}
	if r := cli(t, "draw", "", "exec", "--backend", "vt100", "--", self(t)); r.code != 2 || !strings.Contains(r.stderr, "want default, xvt or engine") {
		t.Errorf("--backend vt100: exit %d, stderr %q; want 2 and the choices", r.code, r.stderr)
	}
}

func TestExecDrawJSON(t *testing.T) {
	r := cli(t, "draw", "", "exec", "--size", "40x10", "--format", "json", "--", self(t))
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	var got struct {
		Cols, Rows int
		Buffer     string
		Cursor     struct {
			Row, Col int
			Visible  bool
		}
		Modes struct{ Mouse string }
		Lines []struct {
			Text  string
			Spans []map[string]any
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, r.stdout)
	}
	if got.Cols != 40 || got.Rows != 10 || got.Buffer != "primary" || len(got.Lines) != 10 {
		t.Fatalf("geometry: %dx%d %s, %d lines", got.Cols, got.Rows, got.Buffer, len(got.Lines))
	}
	if got.Cursor.Row != 4 || got.Cursor.Col != 2 || !got.Cursor.Visible {
		t.Errorf("cursor = %+v, want row 4 col 2 visible", got.Cursor)
	}
	if got.Modes.Mouse != "off" {
		t.Errorf("mouse = %q, want off", got.Modes.Mouse)
	}
	if got.Lines[0].Text != "RED" || got.Lines[2].Text != "    green bg" || got.Lines[4].Text != "done" {
		t.Errorf("lines = %+v", got.Lines)
	}
	red := got.Lines[0].Spans
	if len(red) != 1 || red[0]["col"] != 0.0 || red[0]["width"] != 3.0 || red[0]["fg"] != 1.0 || red[0]["bold"] != true {
		t.Errorf("row 0 spans = %v, want one bold fg 1 span over 3 cells", red)
	}
	green := got.Lines[2].Spans
	if len(green) != 1 || green[0]["col"] != 4.0 || green[0]["width"] != 8.0 || green[0]["bg"] != 2.0 {
		t.Errorf("row 2 spans = %v, want one bg 2 span at col 4 over 8 cells", green)
	}
}

func TestExecANSI(t *testing.T) {
	r := cli(t, "draw", "", "exec", "--size", "40x10", "--format", "ansi", "--", self(t))
	if r.code != 0 || !strings.Contains(r.stdout, "RED") || !strings.Contains(r.stdout, "\x1b[") {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestExecWaitFor(t *testing.T) {
	r := cli(t, "prompt", "", "exec", "--input", `hello\r`, "--wait-for", `got: hello$`, "--timeout", "50s", "--", self(t))
	if r.code != 0 || !strings.Contains(r.stdout, "got: hello") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 0 and the echoed line", r.code, r.stdout, r.stderr)
	}
}

func TestExecQuietFor(t *testing.T) {
	r := cli(t, "prompt", "", "exec", "--quiet-for", "200ms", "--timeout", "50s", "--", self(t))
	if r.code != 0 || r.stdout != "ready>\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 0 and the prompt", r.code, r.stdout, r.stderr)
	}
}

func TestExecTimeout(t *testing.T) {
	r := cli(t, "prompt", "", "exec", "--timeout", "300ms", "--", self(t))
	if r.code != exitTimeout {
		t.Fatalf("exit %d, want %d; stderr %q", r.code, exitTimeout, r.stderr)
	}
	// The screen at the timeout: the prompt, or nothing on a machine too
	// loaded to start the program in time (no timing assumptions).
	if r.stdout != "ready>\n" && r.stdout != "" {
		t.Errorf("stdout %q, want the screen at the timeout", r.stdout)
	}
	if lines := strings.Count(r.stderr, "\n"); lines != 1 || !strings.Contains(r.stderr, "timed out") {
		t.Errorf("stderr %q, want one line saying it timed out", r.stderr)
	}
}

// TestExecTimeoutUnderFlood checks that output that never pauses does not
// hold off the timeout or the pattern check.
func TestExecTimeoutUnderFlood(t *testing.T) {
	r := cli(t, "flood", "", "exec", "--timeout", "300ms", "--", self(t))
	if r.code != exitTimeout || (r.stdout != "" && !strings.Contains(r.stdout, "line ")) {
		t.Fatalf("exit %d, stdout %q, stderr %q; want %d and lines", r.code, r.stdout, r.stderr, exitTimeout)
	}
	r = cli(t, "flood", "", "exec", "--wait-for", `^line \d+$`, "--timeout", "50s", "--", self(t))
	if r.code != 0 || !strings.Contains(r.stdout, "line ") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 0 and lines", r.code, r.stdout, r.stderr)
	}
}

func TestExecWaitForNeverMatches(t *testing.T) {
	r := cli(t, "exit", "", "exec", "--wait-for", "never", "--", self(t), "0")
	if r.code != 1 || !strings.Contains(r.stderr, "before --wait-for matched") {
		t.Fatalf("exit %d, stderr %q; want 1 and an explanation", r.code, r.stderr)
	}
}

func TestExecExitStatus(t *testing.T) {
	tests := []struct {
		name string
		mode string
		args []string
		want int
	}{
		{"zero", "exit", []string{"0"}, 0},
		{"three", "exit", []string{"3"}, 3},
		{"sigkill", "kill", nil, 137},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"exec", "--", self(t)}, tt.args...)
			r := cli(t, tt.mode, "", args...)
			if r.code != tt.want || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q; want %d and nothing on stderr", r.code, r.stderr, tt.want)
			}
		})
	}
}

func TestExecFramesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.frames")
	r := cli(t, "draw", "", "exec", "--frames", path, "--", self(t))
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fr := attachwire.NewFileReader(f)
	var last attachwire.Frame
	var output []byte
	for {
		fr, err := fr.ReadFrame()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("frames file: %v", err)
		}
		if fr.Seq != last.Seq+1 {
			t.Fatalf("frame seq %d after %d", fr.Seq, last.Seq)
		}
		if fr.Type == attachwire.TypeOutput {
			output = append(output, fr.Payload...)
		}
		last = fr
	}
	if last.Type != attachwire.TypeExit || !strings.Contains(string(output), "green bg") {
		t.Fatalf("last frame %v, output %q; want Exit last and the drawing", last.Type, output)
	}
}

// TestExecRecord checks that a cast recorded by exec replays to the screen
// exec printed.
func TestExecRecord(t *testing.T) {
	cast := filepath.Join(t.TempDir(), "draw.cast")
	r := cli(t, "draw", "", "exec", "--size", "40x10", "--record", cast, "--", self(t))
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	p := cli(t, "", "", "play", "--screen", cast)
	if p.code != 0 || p.stdout != r.stdout {
		t.Fatalf("play --screen: exit %d, stdout %q, stderr %q; want %q", p.code, p.stdout, p.stderr, r.stdout)
	}
}

// TestRunFunction drives run in-process, as main does.
func TestRunFunction(t *testing.T) {
	t.Setenv(helperEnv, "draw")
	var stdout, stderr strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	err := run(ctx, []string{"exec", "--size", "40x10", "--", self(t)}, strings.NewReader(""), &stdout, &stderr)
	if err != nil || stdout.String() != drawText {
		t.Fatalf("run exec: %v, stdout %q; want %q", err, stdout.String(), drawText)
	}
	err = run(ctx, []string{"exec", "--size", "1x", "--", "true"}, strings.NewReader(""), &stdout, &stderr)
	var ue *usageError
	if !errors.As(err, &ue) {
		t.Fatalf("run with a malformed --size: %v, want a *usageError", err)
	}
}

// TestExecPrintsScreenBeforeStopping checks that exec prints the screen the
// condition held on, not what the program left after it was stopped.
func TestExecPrintsScreenBeforeStopping(t *testing.T) {
	for _, flags := range [][]string{{"--wait-for", "DRAWN"}, {"--quiet-for", "100ms"}, {"--wait-for", "DRAWN", "--quiet-for", "100ms"}} {
		t.Run(strings.Join(flags, " "), func(t *testing.T) {
			args := append(append([]string{"exec"}, flags...), "--timeout", "50s", "--", self(t))
			r := cli(t, "cleanup", "", args...)
			if r.code != 0 || r.stdout != "DRAWN\n" {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 0 and the drawn screen", r.code, r.stdout, r.stderr)
			}
		})
	}
}
