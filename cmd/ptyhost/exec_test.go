package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
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

// TestExecANSICatIsSafe: the ansi screenshot of a program on the
// alternate screen with its cursor hidden, cat'ed into a terminal (tmux),
// shows the picture and leaves that terminal on its primary screen with a
// visible cursor below the picture.
func TestExecANSICatIsSafe(t *testing.T) {
	tm := newTmux(t)
	shot := filepath.Join(t.TempDir(), "shot.ans")
	r := cli(t, "hidden", "", "exec", "--size", "40x10", "--wait-for", "HIDDEN", "--format", "ansi", "--timeout", "50s", "--", self(t))
	if r.code != 0 || !strings.Contains(r.stdout, "HIDDEN") {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if err := os.WriteFile(shot, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	tm.run("new-session", "-d", "-s", "main", "-x", "80", "-y", "24", "/bin/sh")
	tm.typeLine("cat " + shellQuote(shot) + "; echo rc=$((40+2))")
	screen := tm.waitFor("rc=42")
	if got := strings.TrimSpace(tm.run("display", "-p", "-t", "main", "#{alternate_on} #{cursor_flag}")); got != "0 1" {
		t.Errorf("after cat: alternate_on, cursor_flag = %q, want \"0 1\" (primary screen, cursor visible)", got)
	}
	lines := strings.Split(screen, "\n")
	// Contains, not a prefix: under load the command can be typed before
	// sh prints its prompt, and the prompt then shares HIDDEN's line.
	at := func(s string) int {
		for i, l := range lines {
			if strings.Contains(l, s) && !strings.Contains(l, "echo rc=") {
				return i
			}
		}
		return -1
	}
	if h, rc := at("HIDDEN"), at("rc=42"); h < 1 || rc != h+1 {
		t.Errorf("pane after cat, want the command line, then HIDDEN, then rc=42:\n%s", screen)
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

// TestExecInterruptPrintsScreen: SIGINT ends exec as --timeout does: the
// screen (as it was before the program was stopped) is printed, and the
// status is 128 + 2.
func TestExecInterruptPrintsScreen(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "drawn")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, ptyhostBin, "exec", "--size", "30x4", "--format", "json", "--", self(t), marker)
	cmd.Env = append(os.Environ(), helperEnv+"=cleanup")
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("watchdog: the program never drew; stderr %q", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // lets the host read the drawing (not asserted on)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exec: %v, want exit status 130; stderr %q", err, stderr.String())
	}
	var scr struct {
		Rows  int
		Lines []struct{ Text string }
	}
	if err := json.Unmarshal([]byte(stdout.String()), &scr); err != nil || scr.Rows != 4 || len(scr.Lines) != 4 {
		t.Fatalf("stdout is not the 30x4 screen (%v):\n%s", err, stdout.String())
	}
	// DRAWN unless the host was too slow to read it in time; never what
	// the program printed once it was stopped.
	if got := scr.Lines[0].Text; got != "DRAWN" && got != "" {
		t.Errorf("screen line 0 = %q, want DRAWN", got)
	}
	if !strings.Contains(stderr.String(), "interrupted by SIGINT") {
		t.Errorf("stderr %q, want it to say it was interrupted", stderr.String())
	}
}

// TestMouseNames: the JSON names of the mouse modes are xterm's.
func TestMouseNames(t *testing.T) {
	tests := []struct {
		m                  attachwire.MouseProto
		tracking, encoding string
	}{
		{attachwire.MouseX10, "normal", "x10"},
		{attachwire.MouseHighlight | attachwire.MouseEncUTF8, "highlight", "utf8"},
		{attachwire.MouseButton | attachwire.MouseEncSGR, "button", "sgr"},
		{attachwire.MouseAny, "any", "x10"},
	}
	for _, tt := range tests {
		if tr, enc := mouseNames(tt.m); tr != tt.tracking || enc != tt.encoding {
			t.Errorf("mouseNames(%#x) = %q, %q; want %q, %q", tt.m, tr, enc, tt.tracking, tt.encoding)
		}
	}
	// End to end: ?1000h with ?1006h is "normal" tracking, SGR encoding.
	r := cli(t, "tui", "", "exec", "--wait-for", "TUI-READY", "--format", "json", "--timeout", "50s", "--", self(t))
	var got struct {
		Modes struct{ Mouse, MouseEncoding string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != 0 {
		t.Fatalf("exit %d, stderr %q, stdout %q (%v)", r.code, r.stderr, r.stdout, err)
	}
	if got.Modes.Mouse != "normal" || got.Modes.MouseEncoding != "sgr" {
		t.Errorf("modes = %+v, want mouse normal, encoding sgr", got.Modes)
	}
}
