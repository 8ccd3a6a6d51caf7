package cast

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// specShapedV3 has every element the asciicast v3 specification shows in
// its example: a header with term (cols, rows, type), timestamp, title
// and env; a comment line after the header and one between events;
// output, an empty marker, a resize and an exit event, with times as
// intervals since the previous event.
const specShapedV3 = `{"version": 3, "term": {"cols": 100, "rows": 30, "type": "xterm-256color"}, "timestamp": 1767225600, "title": "Build", "env": {"SHELL": "/bin/bash"}}
# events follow
[0.125, "o", "\u001b[32mok\u001b[0m\n"]
[1.5, "o", "next\r\n"]
[2.25, "m", ""]
[0.1, "o", "more "]
# the window got larger
[3, "r", "120x40"]
[0.75, "i", "q"]
[0.5, "x", "3"]
`

func TestReadV3AsTheSpecWritesIt(t *testing.T) {
	r, err := NewReader(strings.NewReader(specShapedV3))
	if err != nil {
		t.Fatal(err)
	}
	h := r.Header()
	if h.Version != 3 || h.Width != 100 || h.Height != 30 || h.TermType != "xterm-256color" ||
		h.Timestamp != 1767225600 || h.Title != "Build" || h.Env["SHELL"] != "/bin/bash" {
		t.Fatalf("header %+v", h)
	}
	want := []Event{
		{0.125, "o", "\x1b[32mok\x1b[0m\n"},
		{1.625, "o", "next\r\n"},
		{3.875, "m", ""},
		{3.975, "o", "more "},
		{6.975, "r", "120x40"},
		{7.725, "i", "q"},
		{8.225, "x", "3"},
	}
	for i, w := range want {
		ev, err := r.Next()
		if err != nil || ev != w {
			t.Fatalf("event %d = %+v, %v; want %+v", i, ev, err, w)
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("after the last event: %v", err)
	}
}

func writeV3(tb testing.TB) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Version: 3, Width: 80, Height: 24, TermType: "xterm-256color", Timestamp: 1767225600,
		Env: map[string]string{"SHELL": "/bin/sh"}})
	if err != nil {
		tb.Fatal(err)
	}
	steps := []error{
		w.Output(250_000, []byte("hi\r\n")),
		w.Comment("checkpoint 1"),
		w.Marker(1_000_000, "$ make"),
		w.Input(1_000_001, []byte("y\r")),
		w.Resize(2_500_000, 100, 30),
		w.Output(2_400_000, []byte("late")), // clamped to the previous time
		w.Exit(3_000_000, 2),
		w.Close(3_000_000),
	}
	for i, err := range steps {
		if err != nil {
			tb.Fatalf("step %d: %v", i, err)
		}
	}
	return buf.Bytes()
}

func TestWriteV3(t *testing.T) {
	file := writeV3(t)
	lines := strings.Split(strings.TrimSuffix(string(file), "\n"), "\n")
	var hdr map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &hdr); err != nil {
		t.Fatal(err)
	}
	term, _ := hdr["term"].(map[string]any)
	if hdr["version"] != 3.0 || term["cols"] != 80.0 || term["rows"] != 24.0 || term["type"] != "xterm-256color" ||
		hdr["width"] != nil || hdr["height"] != nil {
		t.Fatalf("header %s", lines[0])
	}
	wantLines := []string{
		`[0.250000, "o", "hi\r\n"]`,
		`# checkpoint 1`,
		`[0.750000, "m", "$ make"]`,
		`[0.000001, "i", "y\r"]`,
		`[1.499999, "r", "100x30"]`,
		`[0.000000, "o", "late"]`,
		`[0.500000, "x", "2"]`,
	}
	if got := lines[1:]; strings.Join(got, "\n") != strings.Join(wantLines, "\n") {
		t.Fatalf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantLines, "\n"))
	}
	evs := readAll(t, file)
	if last := evs[len(evs)-1]; last.Time != 3 || last.Code != CodeExit || last.Data != "2" {
		t.Fatalf("last event %+v", last)
	}
}

func TestV2HasNoCommentsOrExit(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Width: 80, Height: 24})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Comment("x"); err != ErrNotInV2 {
		t.Errorf("Comment on v2: %v", err)
	}
	if err := w.Exit(1, 0); err != nil {
		t.Errorf("Exit on v2: %v", err)
	}
	w.Close(1)
	if strings.Count(buf.String(), "\n") != 1 {
		t.Errorf("v2 cast holds more than its header: %q", buf.String())
	}
	w3, _ := NewWriter(io.Discard, Header{Version: 3, Width: 1, Height: 1})
	if err := w3.Comment("two\nlines"); err == nil {
		t.Error("a comment with a newline was written")
	}
}

func convert(tb testing.TB, file []byte, version int) []byte {
	tb.Helper()
	var out bytes.Buffer
	if err := Convert(&out, bytes.NewReader(file), version); err != nil {
		tb.Fatal(err)
	}
	return out.Bytes()
}

func TestConvertRoundTrips(t *testing.T) {
	// v2 → v3 → v2 gives the same file back: nothing in v2 is lost in v3.
	var v2 bytes.Buffer
	w, err := NewWriter(&v2, Header{Width: 80, Height: 24, Timestamp: 1767225600,
		Env: map[string]string{"TERM": "xterm-256color", "SHELL": "/bin/sh"}})
	if err != nil {
		t.Fatal(err)
	}
	w.Output(1, []byte("é\x1b[1m"))
	w.Marker(123_456, "prompt")
	w.Resize(999_999, 90, 20)
	w.Input(1_000_000, []byte("\x03"))
	w.Output(86_400_000_001, []byte("a day later"))
	if err := w.Close(86_400_000_001); err != nil {
		t.Fatal(err)
	}
	v3 := convert(t, v2.Bytes(), 3)
	if !bytes.Contains(v3, []byte(`"type":"xterm-256color"`)) {
		t.Errorf("v3 header lost the terminal type: %s", v3[:bytes.IndexByte(v3, '\n')])
	}
	if back := convert(t, v3, 2); !bytes.Equal(back, v2.Bytes()) {
		t.Fatalf("v2 → v3 → v2:\n%s\nwant\n%s", back, v2.Bytes())
	}
	// v3 → v2 → v3 keeps every event but the exit (v2 has none) and the
	// comments.
	orig := writeV3(t)
	again := convert(t, convert(t, orig, 2), 3)
	want := readAll(t, orig)
	want = want[:len(want)-1] // the exit event
	if got := readAll(t, again); !equalEvents(got, want) {
		t.Fatalf("v3 → v2 → v3:\n%+v\nwant\n%+v", got, want)
	}
}

func equalEvents(a, b []Event) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
