package termtest

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/internal/testkit"
)

// RequireToolsEnv names the environment variable that turns a missing
// external tool from a skip into a failure (set in CI).
const RequireToolsEnv = testkit.RequireToolsEnv

// NeedTool returns the path of the named program, or skips the test (fails
// it with RequireToolsEnv=1); testkit.RequireTool is the one rule.
func NeedTool(tb testing.TB, name string) string { return testkit.RequireTool(tb, name) }

// Tmux is a private tmux server (its own socket, no configuration file)
// holding one detached session. Use it from one goroutine.
type Tmux struct {
	tb     testing.TB
	bin    string
	socket string
	dir    string
}

// StartTmux starts a private tmux server whose session "t" runs cmd (a
// shell command) in a pane of exactly cols×rows, with env (KEY=VALUE) added
// to the pane's environment. The server is killed at cleanup.
func StartTmux(tb testing.TB, cols, rows int, env []string, cmd string) *Tmux {
	tb.Helper()
	bin := NeedTool(tb, "tmux")
	dir, err := os.MkdirTemp("", "tmx")
	if err != nil {
		tb.Fatal(err)
	}
	t := &Tmux{tb: tb, bin: bin, socket: filepath.Join(dir, "s"), dir: dir}
	tb.Cleanup(func() {
		_ = exec.Command(t.bin, "-S", t.socket, "kill-server").Run()
		_ = os.RemoveAll(dir)
	})
	args := []string{"start-server", ";", "set-option", "-g", "status", "off", ";",
		"set-option", "-g", "history-limit", "5000", ";",
		"new-session", "-d", "-s", "t", "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows)}
	for _, e := range env {
		args = append(args, "-e", e)
	}
	args = append(args, cmd)
	t.Run(args...)
	if got := t.Run("display-message", "-p", "-t", "t", "#{pane_width} #{pane_height}"); got != fmt.Sprintf("%d %d", cols, rows) {
		tb.Fatalf("tmux pane is %s, want %dx%d", got, cols, rows)
	}
	return t
}

// Dir is a private temporary directory that lives as long as the server.
func (t *Tmux) Dir() string { return t.dir }

// Run runs a tmux command against the server and returns its output,
// trimmed; it fails the test on error.
func (t *Tmux) Run(args ...string) string {
	t.tb.Helper()
	cmd := exec.Command(t.bin, append([]string{"-S", t.socket, "-f", "/dev/null"}, args...)...)
	cmd.Env = append(os.Environ(), "TERM=xterm-256color")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.tb.Fatalf("tmux %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimRight(string(out), "\n")
}

// WaitTitle waits until the pane's title is title (set with OSC 2 after
// the bytes of interest, it proves tmux has parsed them all).
func (t *Tmux) WaitTitle(title string, timeout time.Duration) {
	t.tb.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if t.Run("display-message", "-p", "-t", "t", "#{pane_title}") == title {
			return
		}
		if time.Now().After(deadline) {
			t.tb.Fatalf("tmux: pane title never became %q", title)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Capture returns the pane's capture-pane -p -e -N output and its cursor.
func (t *Tmux) Capture() (capture []byte, cursorCol, cursorRow int) {
	t.tb.Helper()
	out := t.Run("capture-pane", "-p", "-e", "-N", "-t", "t")
	cur := t.Run("display-message", "-p", "-t", "t", "#{cursor_x} #{cursor_y}")
	if _, err := fmt.Sscanf(cur, "%d %d", &cursorCol, &cursorRow); err != nil {
		t.tb.Fatalf("tmux cursor %q: %v", cur, err)
	}
	return []byte(out + "\n"), cursorCol, cursorRow
}

// TmuxScreen replays data into a fresh private tmux server at cols×rows,
// through a raw pane so the bytes arrive unmodified, and returns tmux's
// screen: capture-pane -p -e -N parsed by ParseCapture, with the cursor.
// It skips the test when tmux is missing (fails with PTYHOST_REQUIRE_TOOLS=1).
func TmuxScreen(tb testing.TB, cols, rows int, data []byte) Grid {
	tb.Helper()
	capture, col, row := TmuxCapture(tb, cols, rows, data)
	g, err := ParseCapture(cols, rows, capture)
	if err != nil {
		tb.Fatal(err)
	}
	g.SetTmuxCursor(col, row)
	return g
}

// TmuxHistory is TmuxScreen with History: the pane's scrolled-off rows,
// oldest first, trailing blanks trimmed (tmux keeps up to 5000).
func TmuxHistory(tb testing.TB, cols, rows int, data []byte) Grid {
	tb.Helper()
	t := replay(tb, cols, rows, data)
	capture, col, row := t.Capture()
	g, err := ParseCapture(cols, rows, capture)
	if err != nil {
		tb.Fatal(err)
	}
	g.SetTmuxCursor(col, row)
	g.History = [][]Cell{}
	n, err := strconv.Atoi(t.Run("display-message", "-p", "-t", "t", "#{history_size}"))
	if err != nil {
		tb.Fatalf("tmux history_size: %v", err)
	}
	if n == 0 {
		return g
	}
	out := t.Run("capture-pane", "-p", "-e", "-S", strconv.Itoa(-n), "-E", "-1", "-t", "t")
	h, err := ParseCapture(cols, n, []byte(out+"\n"))
	if err != nil {
		tb.Fatal(err)
	}
	for r := range n {
		line := h.Cells[r*cols : r*cols+h.Extent[r]]
		g.History = append(g.History, append([]Cell(nil), line...))
	}
	return g
}

// TmuxCapture is TmuxScreen's first half: it returns the raw capture-pane
// -p -e -N output and the cursor.
func TmuxCapture(tb testing.TB, cols, rows int, data []byte) (capture []byte, cursorCol, cursorRow int) {
	tb.Helper()
	return replay(tb, cols, rows, data).Capture()
}

// replay starts a private tmux server whose raw pane has received data
// and parsed all of it.
func replay(tb testing.TB, cols, rows int, data []byte) *Tmux {
	tb.Helper()
	NeedTool(tb, "tmux")
	var nonce [8]byte
	_, _ = rand.Read(nonce[:])
	marker := "ptyhost-done-" + hex.EncodeToString(nonce[:])
	dir, err := os.MkdirTemp("", "tmxd")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = os.RemoveAll(dir) })
	file := filepath.Join(dir, "data")
	// The title is set after the data: once tmux shows it, tmux has parsed
	// every byte before it. OSC 2 does not touch the grid.
	payload := append(append([]byte{}, data...), "\x1b]2;"+marker+"\x07"...)
	if err := os.WriteFile(file, payload, 0o600); err != nil {
		tb.Fatal(err)
	}
	t := StartTmux(tb, cols, rows, nil, "stty raw -echo; cat "+file+"; exec sleep 1000")
	t.WaitTitle(marker, 20*time.Second)
	return t
}
