package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeCast(t testing.TB, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "t.cast")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPlayScreen(t *testing.T) {
	p := writeCast(t, `{"version": 2, "width": 10, "height": 3}
[0.1, "o", "one\r\n"]
[0.2, "r", "20x4"]
[0.3, "o", "a line longer than ten\r\n"]
[0.4, "m", "marker"]
[0.5, "i", "ignored input"]
[0.6, "o", "\u001b[31mred\u001b[0m"]
`)
	r := cli(t, "", "", "play", "--screen", p)
	want := "one\na line longer than t\nen\nred\n"
	if r.code != 0 || r.stdout != want {
		t.Fatalf("exit %d, stdout %q, stderr %q; want %q", r.code, r.stdout, r.stderr, want)
	}
	r = cli(t, "", "", "play", "--screen", "--format", "json", p)
	if r.code != 0 || !strings.Contains(r.stdout, `"cols": 20`) || !strings.Contains(r.stdout, `"rows": 4`) {
		t.Fatalf("exit %d, stdout %q, stderr %q; want a 20x4 screen", r.code, r.stdout, r.stderr)
	}
}

// TestPlaySanitizes replays a hostile cast to a pipe: text arrives, queries
// and clipboard writes do not.
func TestPlaySanitizes(t *testing.T) {
	p := writeCast(t, `{"version": 2, "width": 80, "height": 24}
[0.001, "o", "hello \u001b[6n\u001b]52;c;aGk=\u0007\u001b[c"]
[0.002, "o", "\u001b[1mworld\u001b[0m\r\n"]
`)
	r := cli(t, "", "", "play", "--speed", "1000", p)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	for _, bad := range []string{"\x1b[6n", "\x1b]52", "\x1b[c"} {
		if strings.Contains(r.stdout, bad) {
			t.Errorf("replay passed %q: %q", bad, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, "hello ") || !strings.Contains(r.stdout, "world") {
		t.Errorf("replay lost text: %q", r.stdout)
	}
}

func TestPlayStdin(t *testing.T) {
	r := cli(t, "", "{\"version\": 2, \"width\": 8, \"height\": 2}\n[0, \"o\", \"hi\"]\n", "play", "--screen", "-")
	if r.code != 0 || r.stdout != "hi\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}
