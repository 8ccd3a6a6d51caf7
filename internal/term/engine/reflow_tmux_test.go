package engine

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/internal/term/termtest"
)

// tmuxResized replays data into tmux at cols×rows, resizes the window to
// cols2×rows2 and returns tmux's screen.
func tmuxResized(tb testing.TB, cols, rows, cols2, rows2 int, data []byte) termtest.Grid {
	tb.Helper()
	var nonce [8]byte
	_, _ = rand.Read(nonce[:])
	marker := "ptyhost-done-" + hex.EncodeToString(nonce[:])
	dir := tb.TempDir()
	file := filepath.Join(dir, "data")
	if err := os.WriteFile(file, append(append([]byte{}, data...), "\x1b]2;"+marker+"\x07"...), 0o600); err != nil {
		tb.Fatal(err)
	}
	t := termtest.StartTmux(tb, cols, rows, nil, "stty raw -echo; cat "+file+"; exec sleep 1000")
	t.WaitTitle(marker, 20*time.Second)
	t.Run("resize-window", "-t", "t", "-x", strconv.Itoa(cols2), "-y", strconv.Itoa(rows2))
	deadline := time.Now().Add(10 * time.Second)
	for t.Run("display-message", "-p", "-t", "t", "#{pane_width} #{pane_height}") != strconv.Itoa(cols2)+" "+strconv.Itoa(rows2) {
		if time.Now().After(deadline) {
			tb.Fatal("tmux did not resize")
		}
		time.Sleep(10 * time.Millisecond)
	}
	capture, col, row := t.Capture()
	g, err := termtest.ParseCapture(cols2, rows2, capture)
	if err != nil {
		tb.Fatal(err)
	}
	g.SetTmuxCursor(col, row)
	return g
}

// TestReflowAgainstTmux resizes after some output and compares the
// engine's screen with tmux's, which reflows too. Left out: a cursor moved
// past the end of its line's content without writing (CHA), which tmux
// puts right after the content on reflow; the engine cannot tell written
// blanks from never-written ones and keeps the cursor's offset.
func TestReflowAgainstTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("starts tmux servers")
	}
	tests := []struct {
		name                     string
		cols, rows, cols2, rows2 int
		in                       string
	}{
		{"widen", 10, 5, 20, 5, "abcdefghijklmnop\r\nxy\r\n$ "},
		{"narrow", 20, 5, 8, 5, "abcdefghijklmnop\r\nxy\r\n$ "},
		{"narrow scrolls", 20, 4, 6, 4, "one two three four\r\nfive six seven\r\n$ ls"},
		{"wide glyphs", 10, 4, 7, 4, "ab世界cd中文字ef\r\n$ "},
		{"grow and shrink rows", 12, 6, 8, 3, "line one is long\r\nline two\r\nthree\r\n$ x"},
		{"wide not split", 4, 3, 2, 3, "a世"},
		{"narrow wraps", 10, 3, 4, 3, "abcdefgh\r\nxy"},
		{"pending at edge", 4, 3, 8, 3, "abcdefgh"},
		{"pending leaves edge", 4, 3, 8, 3, "abcdef"},
		{"colors", 12, 4, 6, 4, "\x1b[31mred red red\x1b[0m plain\r\n\x1b[44mblue\x1b[K\x1b[0m\r\n$ "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tmuxResized(t, tt.cols, tt.rows, tt.cols2, tt.rows2, []byte(tt.in))
			e, _ := newTest(t, tt.cols, tt.rows, 100)
			e.Write([]byte(tt.in))
			e.Resize(tt.cols2, tt.rows2, 0, 0)
			s := screenOf(e)
			checkInvariants(t, s)
			got := termtest.FromScreen(s)
			if d := termtest.Diff(want, got); len(d) > 0 {
				t.Errorf("engine differs from tmux after the resize:\n%s\nengine:\n%s\ntmux:\n%s", strings.Join(d, "\n"), got.Text(), want.Text())
			}
		})
	}
}
