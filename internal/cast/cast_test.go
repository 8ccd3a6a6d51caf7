package cast

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// record writes p to a new cast in the given chunks and returns the events.
func record(tb testing.TB, chunks [][]byte) []Event {
	tb.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Width: 80, Height: 24})
	if err != nil {
		tb.Fatal(err)
	}
	for i, c := range chunks {
		if err := w.Output(uint64(i), c); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(uint64(len(chunks))); err != nil {
		tb.Fatal(err)
	}
	return readAll(tb, buf.Bytes())
}

func readAll(tb testing.TB, file []byte) []Event {
	tb.Helper()
	r, err := NewReader(bytes.NewReader(file))
	if err != nil {
		tb.Fatal(err)
	}
	var evs []Event
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return evs
		}
		if err != nil {
			tb.Fatal(err)
		}
		evs = append(evs, ev)
	}
}

// outputText concatenates the data of the output events.
func outputText(evs []Event) string {
	var sb strings.Builder
	for _, ev := range evs {
		if ev.Code == CodeOutput {
			sb.WriteString(ev.Data)
		}
	}
	return sb.String()
}

var streams = []struct {
	name, in, want string
}{
	{"ascii", "hello\r\n", "hello\r\n"},
	{"escapes", "\x1b[31mred\x1b[0m\x07\x00", "\x1b[31mred\x1b[0m\x07\x00"},
	{"two-byte", "Grüße", "Grüße"},
	{"three-byte", "日本語", "日本語"},
	{"four-byte", "a😀b", "a😀b"},
	{"c1-continuations", "Ü\xc2\x9c", "Ü\u009c"},
	{"invalid", "a\xffb\xc0\xafc", "a\uFFFDb\uFFFD\uFFFDc"},
	{"truncated-then-lead", "\xe2\xe2\x82\x82", "\uFFFD\u2082"},
	{"truncated-at-end", "ok\xf0\x9f\x98", "ok\uFFFD\uFFFD\uFFFD"},
	{"surrogate", "\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"},
}

func TestOutputSplitEverywhere(t *testing.T) {
	for _, tc := range streams {
		t.Run(tc.name, func(t *testing.T) {
			if got := outputText(record(t, [][]byte{[]byte(tc.in)})); got != tc.want {
				t.Fatalf("whole: got %q, want %q", got, tc.want)
			}
			for i := 1; i < len(tc.in); i++ {
				got := outputText(record(t, [][]byte{[]byte(tc.in[:i]), []byte(tc.in[i:])}))
				if got != tc.want {
					t.Fatalf("split at %d: got %q, want %q", i, got, tc.want)
				}
			}
			var bytewise [][]byte
			for i := range len(tc.in) {
				bytewise = append(bytewise, []byte{tc.in[i]})
			}
			if got := outputText(record(t, bytewise)); got != tc.want {
				t.Fatalf("byte by byte: got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRuneSplitStaysWhole(t *testing.T) {
	// "€" is E2 82 AC: split 1+2, the first event must not hold a partial
	// rune and the rune must appear whole in the second.
	evs := record(t, [][]byte{[]byte("a\xe2"), []byte("\x82\xacb")})
	if len(evs) != 2 || evs[0].Data != "a" || evs[1].Data != "€b" {
		t.Fatalf("events = %+v", evs)
	}
}

func TestEventsAndTimes(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Width: 100, Height: 30, Timestamp: 1700000000, Command: "sh", Env: map[string]string{"TERM": "xterm-256color"}})
	if err != nil {
		t.Fatal(err)
	}
	w.Output(1_500_000, []byte("x"))
	w.Resize(2_000_001, 120, 40)
	w.Marker(3_000_000, "step \"one\"")
	w.Output(2_500_000, []byte("y")) // earlier than the last: clamped
	if err := w.Close(4_000_000); err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if r.Header().Version != 2 || r.Header().Width != 100 || r.Header().Height != 30 || r.Header().Env["TERM"] != "xterm-256color" {
		t.Fatalf("header = %+v", r.Header())
	}
	want := []Event{
		{1.5, "o", "x"}, {2.000001, "r", "120x40"}, {3, "m", "step \"one\""}, {3, "o", "y"},
	}
	got := readAll(t, buf.Bytes())
	if len(got) != len(want) {
		t.Fatalf("events = %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if !strings.Contains(buf.String(), "[2.000001, \"r\", \"120x40\"]\n") {
		t.Errorf("resize line not in the asciinema layout:\n%s", buf.String())
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errors.New("disk full")
	}
	f.n--
	return len(p), nil
}

func TestWriteErrorIsSticky(t *testing.T) {
	w, err := NewWriter(&failWriter{n: 1}, Header{Width: 80, Height: 24})
	if err != nil {
		t.Fatal(err)
	}
	w.Output(1, bytes.Repeat([]byte("x"), 64<<10)) // larger than the buffer
	if err := w.Flush(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Flush = %v, want the write error", err)
	}
	if err := w.Marker(2, "m"); err == nil {
		t.Fatal("write after an error succeeded")
	}
}

func TestBadHeaderSize(t *testing.T) {
	if _, err := NewWriter(io.Discard, Header{Width: 0, Height: 24}); err == nil {
		t.Fatal("NewWriter accepted width 0")
	}
}

// FuzzOutputChunking: however output is split, the recorded text is the
// same, valid UTF-8, and equals the whole stream with invalid bytes
// replaced.
func FuzzOutputChunking(f *testing.F) {
	for _, tc := range streams {
		f.Add([]byte(tc.in), uint64(1))
	}
	f.Fuzz(func(t *testing.T, p []byte, seed uint64) {
		whole := outputText(record(t, [][]byte{p}))
		if !utf8.ValidString(whole) {
			t.Fatalf("recorded text is not valid UTF-8: %q", whole)
		}
		if want := strings.ToValidUTF8(string(p), "\uFFFD"); utf8.Valid(p) && whole != want {
			t.Fatalf("valid input changed: %q -> %q", p, whole)
		}
		r := rand.New(rand.NewPCG(seed, 0))
		var chunks [][]byte
		for rest := p; len(rest) > 0; {
			n := 1 + r.IntN(len(rest))
			chunks, rest = append(chunks, rest[:n]), rest[n:]
		}
		if got := outputText(record(t, chunks)); got != whole {
			t.Fatalf("chunked %q, whole %q", got, whole)
		}
	})
}

func BenchmarkOutput(b *testing.B) {
	p := bytes.Repeat([]byte("\x1b[32mlog\x1b[0m line with 日本語 text\r\n"), 100)
	w, _ := NewWriter(io.Discard, Header{Width: 80, Height: 24})
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	for i := range b.N {
		w.Output(uint64(i), p)
	}
}
