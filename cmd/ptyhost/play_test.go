package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"
	"github.com/ptyhost/ptyhost/internal/cast"
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

// TestPlayLiveAlwaysRestores: on a terminal, a replay that stops early (a
// malformed event, or a signal before the next event) still writes the
// restore trailer after what it played.
func TestPlayLiveAlwaysRestores(t *testing.T) {
	const castFile = `{"version": 2, "width": 20, "height": 5}` + "\n" +
		`[0, "o", "\u001b[?1049hhi"]` + "\n" + "not an event\n"
	for _, tt := range []struct {
		name      string
		cancelled bool
		wantErr   string
	}{
		{"bad event", false, "line 3"},
		{"signal", true, "interrupted"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			master, slave, err := pty.Open()
			if err != nil {
				t.Fatal(err)
			}
			defer master.Close()
			out := make(chan []byte)
			go func() {
				b, _ := io.ReadAll(master) // until EIO once the slave is closed
				out <- b
			}()
			cr, err := cast.NewReader(strings.NewReader(castFile))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancelCause(context.Background())
			if tt.cancelled {
				cancel(errors.New("interrupted"))
			}
			defer cancel(nil)
			err = playLive(ctx, cr, playOptions{speed: 1, file: "x.cast"}, slave)
			slave.Close()
			got := <-out
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("playLive: %v, want an error mentioning %q", err, tt.wantErr)
			}
			if !bytes.HasSuffix(got, []byte(restoreTrailer)) {
				t.Errorf("output %q does not end with the restore trailer", got)
			}
		})
	}
}
