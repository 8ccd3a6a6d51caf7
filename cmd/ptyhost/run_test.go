package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// tmuxServer is a private tmux server (its own socket, no config) used as
// the user's terminal.
type tmuxServer struct {
	t    testing.TB
	bin  string
	sock string
}

func newTmux(t testing.TB) *tmuxServer {
	t.Helper()
	bin := requireTool(t, "tmux")
	tm := &tmuxServer{t: t, bin: bin, sock: fmt.Sprintf("ptyhost-cli-%d-%d", os.Getpid(), time.Now().UnixNano())}
	t.Cleanup(func() { tm.try("kill-server") })
	return tm
}

func (tm *tmuxServer) try(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, tm.bin, append([]string{"-L", tm.sock, "-f", "/dev/null"}, args...)...)
	cmd.Env = append(os.Environ(), "TERM=xterm-256color")
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (tm *tmuxServer) run(args ...string) string {
	tm.t.Helper()
	out, err := tm.try(args...)
	if err != nil {
		tm.t.Fatalf("tmux %q: %v\n%s", args, err, out)
	}
	return out
}

// capture returns the visible pane text, normalized like screenText.
func (tm *tmuxServer) capture() string {
	tm.t.Helper()
	return normalizeScreen(tm.run("capture-pane", "-p", "-t", "main"))
}

// waitFor polls the pane until it contains want, or fails after the
// watchdog.
func (tm *tmuxServer) waitFor(want string) string {
	tm.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := tm.capture()
		if strings.Contains(got, want) {
			return got
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("watchdog: pane never showed %q; it shows:\n%s", want, got)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// typeLine types text and Enter into the pane.
func (tm *tmuxServer) typeLine(text string) {
	tm.t.Helper()
	tm.run("send-keys", "-t", "main", "-l", text)
	tm.run("send-keys", "-t", "main", "Enter")
}

// normalizeScreen trims trailing blanks of each line and blank lines at
// the bottom.
func normalizeScreen(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestRunUnderTmux drives "ptyhost run" in a tmux pane as a user would:
// the program's screen appears, typing reaches it, resizing the window
// resizes it, and when it exits without cleaning up, the terminal is left
// with no alternate screen and no mouse mode on. Its --record cast plays
// back to the screen tmux showed: a recording that cannot be written is a
// failure, not a missing tool.
func TestRunUnderTmux(t *testing.T) {
	tm := newTmux(t)
	cast := filepath.Join(t.TempDir(), "run.cast")
	tm.run("new-session", "-d", "-s", "main", "-x", "100", "-y", "30", "/bin/sh")
	tm.typeLine("echo shell-$((40+2))")
	tm.waitFor("shell-42")

	tm.typeLine(helperEnv + "=tui " + shellQuote(ptyhostBin) + " run --record " + shellQuote(cast) + " -- " + shellQuote(self(t)) + "; echo rc=$?")
	tm.waitFor("TUI-READY")
	if got := strings.TrimSpace(tm.run("display", "-p", "-t", "main", "#{alternate_on} #{mouse_any_flag}")); got != "1 1" {
		t.Errorf("while the program runs: alternate_on, mouse_any_flag = %q, want \"1 1\" (its modes reach the terminal)", got)
	}

	tm.typeLine("hello")
	tm.waitFor("got: hello")

	size := strings.TrimSpace(tm.run("display", "-p", "-t", "main", "#{pane_width}x#{pane_height}"))
	tm.typeLine("size")
	tm.waitFor("size=" + size)

	tm.run("resize-window", "-t", "main", "-x", "90", "-y", "20")
	size = strings.TrimSpace(tm.run("display", "-p", "-t", "main", "#{pane_width}x#{pane_height}"))
	if size != "90x20" {
		t.Fatalf("tmux pane is %s after resize-window, want 90x20", size)
	}
	// The resize reaches the program asynchronously (SIGWINCH to ptyhost,
	// then TIOCSWINSZ): ask until it answers with the new size.
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(tm.capture(), "size="+size) {
		if time.Now().After(deadline) {
			t.Fatalf("watchdog: the program never saw the %s size; pane:\n%s", size, tm.capture())
		}
		tm.typeLine("size")
		time.Sleep(100 * time.Millisecond)
	}
	// Answers to earlier "size" lines may still be on their way: a last
	// line, answered in order, settles the screen.
	tm.typeLine("settled")
	final := tm.waitFor("got: settled")

	tm.typeLine("quit")
	tm.waitFor("rc=0")
	if got := strings.TrimSpace(tm.run("display", "-p", "-t", "main", "#{alternate_on} #{mouse_any_flag} #{cursor_flag}")); got != "0 0 1" {
		t.Errorf("after exit: alternate_on, mouse_any_flag, cursor_flag = %q, want \"0 0 1\"", got)
	}

	t.Run("record", func(t *testing.T) {
		r := cli(t, "", "", "play", "--screen", cast)
		if r.code != 0 {
			t.Fatalf("play --screen: exit %d, stderr %q", r.code, r.stderr)
		}
		if got := normalizeScreen(r.stdout); got != final {
			t.Fatalf("play --screen of the recording:\n%s\nwant the screen tmux showed:\n%s", got, final)
		}
	})
}

// TestRunRestoresOnSignal kills "ptyhost run" with SIGTERM while the
// program has the alternate screen and mouse tracking on: the terminal
// gets its modes and its termios settings back, and the exit status is
// 128 + 15.
func TestRunRestoresOnSignal(t *testing.T) {
	tm := newTmux(t)
	before := filepath.Join(t.TempDir(), "stty.before")
	tm.run("new-session", "-d", "-s", "main", "-x", "80", "-y", "24", "/bin/sh")
	tm.typeLine("stty -g > " + shellQuote(before) + "; echo shell-$((40+2))")
	tm.waitFor("shell-42")
	tm.typeLine(helperEnv + "=tui " + shellQuote(ptyhostBin) + " run -- " + shellQuote(self(t)) + "; echo rc=$?")
	tm.waitFor("TUI-READY")
	tm.typeLine("ppid")
	screen := tm.waitFor("ppid=")
	var pid int
	if _, err := fmt.Sscanf(screen[strings.Index(screen, "ppid="):], "ppid=%d", &pid); err != nil || pid <= 1 {
		t.Fatalf("no ppid on screen:\n%s", screen)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	tm.waitFor("rc=143")
	if got := strings.TrimSpace(tm.run("display", "-p", "-t", "main", "#{alternate_on} #{mouse_any_flag} #{cursor_flag}")); got != "0 0 1" {
		t.Errorf("after SIGTERM: alternate_on, mouse_any_flag, cursor_flag = %q, want \"0 0 1\"", got)
	}
	tm.typeLine("stty -g | cmp -s - " + shellQuote(before) + " && echo stty-$((1+1))-same")
	tm.waitFor("stty-2-same")
}
