package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rowOf returns the index of the first line of screen that starts with
// prefix, or -1.
func rowOf(screen, prefix string) int {
	for i, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, prefix) {
			return i
		}
	}
	return -1
}

// TestTrailerKeepsCursor: after run and play end, the shell's next output
// comes on the line below the program's last output, not over the first
// line of the screen.
func TestTrailerKeepsCursor(t *testing.T) {
	castFile := filepath.Join(t.TempDir(), "lines.cast")
	body := `{"version": 2, "width": 60, "height": 10}` + "\n" +
		`[0.01, "o", "\u001b[2;8rfirst\r\n"]` + "\n" + // a scroll region, left set
		`[0.02, "o", "second\r\n"]` + "\n"
	if err := os.WriteFile(castFile, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		line string
	}{
		{"run", helperEnv + "=lines " + shellQuote(ptyhostBin) + " run -- " + shellQuote(self(t)) + " first second"},
		{"play", shellQuote(ptyhostBin) + " play " + shellQuote(castFile)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tm := newTmux(t)
			tm.run("new-session", "-d", "-s", "main", "-x", "60", "-y", "10", "/bin/sh")
			tm.typeLine(tt.line + "; echo rc=$((40+$?))")
			screen := tm.waitFor("rc=40")
			first, second, rc := rowOf(screen, "first"), rowOf(screen, "second"), rowOf(screen, "rc=40")
			if first < 0 || second != first+1 || rc != second+1 {
				t.Fatalf("pane, want first, second, then rc=40 on the lines below:\n%s", screen)
			}
		})
	}
}
