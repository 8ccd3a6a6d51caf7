package attachwire

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// readSSE reads every event and comment of b, one byte per Read when
// bytewise (a line end then falls between reads), and renders them as
// "event=data" or "#comment".
func readSSE(b []byte, limit int, bytewise bool) ([]string, error) {
	var r io.Reader = bytes.NewReader(b)
	if bytewise {
		r = iotest.OneByteReader(r)
	}
	s := NewSSEReader(r, limit)
	var out []string
	for {
		e, err := s.Next()
		if err != nil {
			return out, err
		}
		if e.IsComment {
			out = append(out, "#"+e.Comment)
		} else {
			out = append(out, e.Event+"="+string(e.Data))
		}
	}
}

func TestSSEReaderTable(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     string // the items joined by "|"
		err      error
	}{
		{"LF", "event: frame\ndata: QUJD\n\n", "frame=QUJD", io.EOF},
		{"CRLF", "event: frame\r\ndata: a\r\ndata: b\r\n\r\n", "frame=a\nb", io.EOF},
		{"lone CR", "data: a\rdata: b\r\r", "=a\nb", io.EOF},
		{"mixed ends", "data: a\r\ndata: b\rdata: c\n\r\n", "=a\nb\nc", io.EOF},
		{"CR then LF is one end", "data: a\r\n\r\n", "=a", io.EOF},
		{"CR then CR is two", "data: a\r\r", "=a", io.EOF},
		{"heartbeat", ": heartbeat\n\n", "#heartbeat", io.EOF},
		{"comment without space", ":x\n", "#x", io.EOF},
		{"empty comment", ":\n", "#", io.EOF},
		{"no space after colon", "event:frame\ndata:QUJD\n\n", "frame=QUJD", io.EOF},
		{"only one space dropped", "data:  two\n\n", "= two", io.EOF},
		{"field without colon", "data\n\n", "=", io.EOF},
		{"empty data dispatches", "data:\n\n", "=", io.EOF},
		{"event without data is not dispatched", "event: x\n\ndata: y\n\n", "=y", io.EOF},
		{"id and retry ignored", "id: 3\nretry: 10\ndata: y\n\n", "=y", io.EOF},
		{"unknown field ignored", "foo: bar\ndata: y\n\n", "=y", io.EOF},
		{"colon in value kept", "data: a:b\n\n", "=a:b", io.EOF},
		{"byte order mark skipped", "\xef\xbb\xbfdata: y\n\n", "=y", io.EOF},
		{"a mark later is data", "data: \xef\xbb\xbf\n\n", "=\xef\xbb\xbf", io.EOF},
		{"a mark's prefix alone", "\xef\xbb", "", io.ErrUnexpectedEOF},
		{"unterminated event dropped", "data: y\n", "", io.EOF},
		{"cut inside a line", "data: y\n\ndata: z", "=y", io.ErrUnexpectedEOF},
		{"empty stream", "", "", io.EOF},
		{"line too long", "data: " + strings.Repeat("x", 60) + "\n\n", "", ErrSSETooLong},
		{"line too long without end", "data: " + strings.Repeat("x", 60), "", ErrSSETooLong},
		{"data too long", strings.Repeat("data: xxxxxxxxxx\n", 6) + "\n", "", ErrSSETooLong},
		{"at the limit", "data: " + strings.Repeat("x", 58) + "\n\n", "=" + strings.Repeat("x", 58), io.EOF},
	} {
		for _, bytewise := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/bytewise=%v", tc.name, bytewise), func(t *testing.T) {
				got, err := readSSE([]byte(tc.in), 64, bytewise)
				if strings.Join(got, "|") != tc.want || !errors.Is(err, tc.err) {
					t.Fatalf("read %q, %v; want %q, %v", got, err, tc.want, tc.err)
				}
			})
		}
	}
}

// The relay's writers and the reader agree: a frame and a heartbeat come
// back as they went.
func TestSSEWritersRoundTrip(t *testing.T) {
	f := NewOutputFrame(7, 0, []byte("hello\r\nworld"))
	raw, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	stream := AppendSSEComment(AppendSSEFrame(nil, raw), SSEHeartbeat)
	if want := "event: frame\ndata: AQcAaGVsbG8NCndvcmxk\n\n: heartbeat\n\n"; string(stream) != want {
		t.Fatalf("stream %q, want %q", stream, want)
	}
	r := NewSSEReader(bytes.NewReader(stream), SSEFrameLimit(int64(len(raw))))
	e, err := r.Next()
	if err != nil || e.Event != SSEFrameEvent {
		t.Fatalf("first: %+v, %v", e, err)
	}
	g, err := DecodeLaneFrame(e.Data)
	if err != nil || g.Seq != 7 || string(g.Payload) != "hello\r\nworld" {
		t.Fatalf("frame %+v, %v", g, err)
	}
	if e, err = r.Next(); err != nil || !e.IsComment || e.Comment != SSEHeartbeat {
		t.Fatalf("second: %+v, %v", e, err)
	}
	if _, err := DecodeLaneFrame([]byte("!!")); err == nil {
		t.Fatal("a frame that is not base64 decoded")
	}
}

// FuzzParseSSE: any stream reads without a panic, within the limit, with
// no line break in an event type or a comment; what it yields, written
// back as a stream, reads the same, whether the bytes arrive at once or
// one by one.
func FuzzParseSSE(f *testing.F) {
	for _, s := range []string{
		": heartbeat\n\nevent: frame\ndata: AwEBAWhp\n\n",
		"data:a\r\ndata:b\r\r",
		"event: x\n\n:\n\ndata\n\n",
		"data: \xff\x00\n\n",
		"data: a\r\ndata: b\r\n\r\n:x\n\n\n",
		"event:frame\ndata\n\nid: 1\nretry: 5\ndata:  two spaces\n\n",
		"\xef\xbb\xbfdata: y\r",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		const limit = 256
		got, err := readSSE(b, limit, false)
		if err != io.EOF && err != io.ErrUnexpectedEOF && !errors.Is(err, ErrSSETooLong) {
			t.Fatalf("unexpected error %v", err)
		}
		if slow, err2 := readSSE(b, limit, true); strings.Join(slow, "|") != strings.Join(got, "|") || err2.Error() != err.Error() {
			t.Fatalf("bytewise %q, %v; at once %q, %v", slow, err2, got, err)
		}
		var out []byte
		for _, item := range got {
			if c, ok := strings.CutPrefix(item, "#"); ok {
				if strings.ContainsAny(c, "\r\n") || len(c) > limit {
					t.Fatalf("comment %q", c)
				}
				out = AppendSSEComment(out, c)
				continue
			}
			ev, data, _ := strings.Cut(item, "=")
			if strings.ContainsAny(ev, "\r\n") || strings.Contains(data, "\r") || len(data) > limit {
				t.Fatalf("event %q data %q", ev, data)
			}
			if ev != "" {
				out = append(out, "event: "+ev+"\n"...)
			}
			for ln := range strings.SplitSeq(data, "\n") {
				out = append(out, "data: "+ln+"\n"...)
			}
			out = append(out, '\n')
		}
		again, err := readSSE(out, 2*limit, false)
		if err != io.EOF || strings.Join(again, "|") != strings.Join(got, "|") {
			t.Fatalf("written back %q reads %q, %v; want %q", out, again, err, got)
		}
	})
}
