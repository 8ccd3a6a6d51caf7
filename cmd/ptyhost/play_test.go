package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

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

// TestPlayScreenV3 plays the same session written as asciicast v3:
// intervals, a comment line and an exit event.
func TestPlayScreenV3(t *testing.T) {
	p := writeCast(t, `{"version": 3, "term": {"cols": 10, "rows": 3, "type": "xterm-256color"}}
# a comment players skip
[0.1, "o", "one\r\n"]
[0.1, "r", "20x4"]
[0.1, "o", "a line longer than ten\r\n"]
[0.1, "m", "marker"]
[0.1, "i", "ignored input"]
[0.1, "o", "\u001b[31mred\u001b[0m"]
[0.1, "x", "0"]
`)
	r := cli(t, "", "", "play", "--screen", p)
	if want := "one\na line longer than t\nen\nred\n"; r.code != 0 || r.stdout != want {
		t.Fatalf("exit %d, stdout %q, stderr %q; want %q", r.code, r.stdout, r.stderr, want)
	}
}

// TestRunRecordsV3WithCommandMarks records a shell command through run
// and finds its command marks and exit status in the v3 cast.
func TestRunRecordsV3WithCommandMarks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.cast")
	script := `printf '\033]133;A\007$ \033]633;E;make\007\033]133;C\007done\r\n\033]133;D;0\007'; exit 3`
	r := cli(t, "", "", "exec", "--record", path, "--", "sh", "-c", script)
	if r.code != 3 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	cast, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"version":3`, `"m", "prompt"]`, `"m", "$ make"]`, `"m", "exit 0"]`, `"x", "3"]`} {
		if !strings.Contains(string(cast), want) {
			t.Errorf("cast lacks %s:\n%s", want, cast)
		}
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

// denseCast returns a cast of n output events spread evenly over span
// seconds, and the text they print.
func denseCast(n int, span float64) (string, string) {
	var b, text strings.Builder
	b.WriteString(`{"version": 2, "width": 80, "height": 24}` + "\n")
	for i := range n {
		fmt.Fprintf(&b, "[%.6f, \"o\", \"%d \"]\n", span*float64(i+1)/float64(n), i%10)
		fmt.Fprintf(&text, "%d ", i%10)
	}
	return b.String(), text.String()
}

// TestPlayKeepsPace: a cast of 100,000 events recorded in one second
// plays in about a second (asserted generously: under 10 s), with or
// without an idle limit, and every event's text arrives in order. Before
// replays were paced against the clock, it took over a minute.
func TestPlayKeepsPace(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPING in -short mode: replays a one-second cast")
	}
	body, text := denseCast(100_000, 1)
	for _, idle := range []time.Duration{0, time.Millisecond} {
		t.Run(fmt.Sprint("idle limit ", idle), func(t *testing.T) {
			cr, err := cast.NewReader(strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			start := time.Now()
			if err := playLive(context.Background(), cr, playOptions{speed: 1, idleLimit: idle, file: "dense.cast"}, &out); err != nil {
				t.Fatal(err)
			}
			took := time.Since(start)
			t.Logf("100,000 events recorded in 1 s played in %v", took)
			if took > 10*time.Second {
				t.Errorf("replay took %v, want about 1 s", took)
			}
			if out.String() != text {
				t.Errorf("replayed %d bytes, want the %d bytes of text in order", out.Len(), len(text))
			}
		})
	}
}

// BenchmarkPlayPace replays a cast of 100,000 events recorded in 0.1 s
// and reports how long the replay took against the recording.
func BenchmarkPlayPace(b *testing.B) {
	body, _ := denseCast(100_000, 0.1)
	var total time.Duration
	for b.Loop() {
		cr, err := cast.NewReader(strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if err := playLive(context.Background(), cr, playOptions{speed: 1, file: "dense.cast"}, io.Discard); err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
	}
	b.ReportMetric(total.Seconds()/float64(b.N)/0.1, "replay/recording")
}

// TestPlayREPBoundedByTerminal: on a terminal, REP repeats at most as many
// characters as that terminal holds, whatever size the cast claims.
func TestPlayREPBoundedByTerminal(t *testing.T) {
	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("SKIPPING: no PTY available: %v", err)
	}
	defer master.Close()
	if err := pty.Setsize(slave, &pty.Winsize{Cols: 20, Rows: 5}); err != nil {
		t.Fatal(err)
	}
	out := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(master) // until EIO once the slave is closed
		out <- b
	}()
	cr, err := cast.NewReader(strings.NewReader(`{"version": 2, "width": 1000, "height": 500}` + "\n" + `[0, "o", "x\u001b[99999b"]` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = playLive(context.Background(), cr, playOptions{speed: 1, file: "rep.cast"}, slave)
	slave.Close()
	got := string(<-out)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`\x1b\[(\d+)b`).FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("no REP in %q", got)
	}
	if n, _ := strconv.Atoi(m[1]); n > 20*5 {
		t.Fatalf("REP count %d reached the terminal, want at most 20*5", n)
	}
}
