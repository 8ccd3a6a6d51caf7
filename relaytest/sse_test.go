package relaytest

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestParseSSE(t *testing.T) {
	in := ": heartbeat\n\nevent: frame\ndata: AAAA\n\nid: 3\r\ndata:a\r\ndata: b\r\rdata: c\n"
	got, err := ParseSSE([]byte(in), 1024)
	if err != nil {
		t.Fatal(err)
	}
	want := []SSEEvent{
		{Comment: "heartbeat", IsComment: true},
		{Event: "frame", Data: "AAAA"},
		{Data: "a\nb"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if _, err := ParseSSE([]byte("data: "+strings.Repeat("x", 2000)+"\n\n"), 1024); !errors.Is(err, ErrSSELine) {
		t.Errorf("long line: %v, want ErrSSELine", err)
	}
	r := NewSSEReader(strings.NewReader("data: x"), 1024)
	if _, err := r.Next(); err != io.ErrUnexpectedEOF {
		t.Errorf("unterminated line: %v", err)
	}
}

// FuzzParseSSE: any stream parses without panic; data never holds a line
// break other than the "\n" joining data lines, and nothing exceeds the
// line limit.
func FuzzParseSSE(f *testing.F) {
	for _, s := range []string{
		": heartbeat\n\nevent: frame\ndata: AwEBAWhp\n\n",
		"data:a\r\ndata:b\r\r",
		"event: x\n\n:\n\ndata\n\n",
		"data: \xff\x00\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		evs, err := ParseSSE(b, 1024)
		if err != nil && !errors.Is(err, ErrSSELine) && err != io.ErrUnexpectedEOF {
			t.Fatalf("unexpected error %v", err)
		}
		for _, e := range evs {
			if strings.ContainsRune(e.Data, '\r') || strings.ContainsRune(e.Comment, '\n') || strings.ContainsRune(e.Event, '\n') {
				t.Fatalf("line break leaked into %+v", e)
			}
			if len(e.Comment) > 1024 || len(e.Event) > 1024 {
				t.Fatalf("over the line limit: %+v", e)
			}
		}
	})
}
