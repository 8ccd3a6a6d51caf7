package attachwire

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"
)

func TestFramesFileGolden(t *testing.T) {
	var buf bytes.Buffer
	w := NewFileWriter(&buf)
	for _, f := range []Frame{
		NewOutputFrame(1, 2, []byte("hi")),
		Exit{Code: 0}.Frame(2, 300),
	} {
		if err := w.WriteFrame(f); err != nil {
			t.Fatal(err)
		}
	}
	want := unhex(t, "50 54 59 48 46 52 4d 01"+ // "PTYHFRM", version 1
		" 05 01 01 02 68 69"+ // len 5: Output seq 1 rel 2 "hi"
		" 06 05 02 ac 02 00 00") // len 6: Exit seq 2 rel 300, code 0, no signal
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("file = % x\nwant % x", buf.Bytes(), want)
	}
}

// writeFile encodes frames as a frames file.
func writeFile(tb testing.TB, frames []Frame) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w := NewFileWriter(&buf)
	for _, f := range frames {
		if err := w.WriteFrame(f); err != nil {
			tb.Fatal(err)
		}
	}
	return buf.Bytes()
}

// readAll reads frames until an error, returning both.
func readAll(r io.Reader) ([]Frame, error) {
	fr := NewFileReader(r)
	var out []Frame
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			if _, again := fr.ReadFrame(); again != err {
				return out, errors.New("error is not sticky")
			}
			return out, err
		}
		out = append(out, f)
	}
}

func randFrames(r *rand.Rand, n int) []Frame {
	frames := make([]Frame, n)
	for i := range frames {
		frames[i] = Frame{Type: FrameType(1 + r.IntN(7)), Seq: uint64(i + 1), RelTime: r.Uint64N(1 << 40), Payload: randBytes(r, r.IntN(300))}
	}
	return frames
}

func TestFramesFileRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	frames := randFrames(r, 40)
	file := writeFile(t, frames)
	readers := []struct {
		name string
		r    func() io.Reader
	}{
		{"whole", func() io.Reader { return bytes.NewReader(file) }},
		{"one byte", func() io.Reader { return iotest.OneByteReader(bytes.NewReader(file)) }},
		{"half", func() io.Reader { return iotest.HalfReader(bytes.NewReader(file)) }},
		{"data with EOF", func() io.Reader { return iotest.DataErrReader(bytes.NewReader(file)) }},
		{"bufio", func() io.Reader { return bufio.NewReaderSize(bytes.NewReader(file), 16) }},
		{"random chunks", func() io.Reader { return &chunkReader{p: file, r: rand.New(rand.NewPCG(15, 16))} }},
	}
	for _, rd := range readers {
		t.Run(rd.name, func(t *testing.T) {
			got, err := readAll(rd.r())
			if err != io.EOF {
				t.Fatalf("final error = %v, want io.EOF", err)
			}
			if len(got) != len(frames) {
				t.Fatalf("read %d frames, want %d", len(got), len(frames))
			}
			for i := range got {
				assertFrameEqual(t, got[i], frames[i])
			}
		})
	}
}

func TestFramesFileTruncation(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	frames := randFrames(r, 5)
	file := writeFile(t, frames)
	boundaries := map[int]int{0: 0} // offset -> frames complete
	off := len(FileMagic) + 1
	boundaries[off] = 0
	for i, f := range frames {
		off += uvarintLen(uint64(f.EncodedLen())) + f.EncodedLen()
		boundaries[off] = i + 1
	}
	for n := range len(file) + 1 {
		got, err := readAll(bytes.NewReader(file[:n]))
		if complete, ok := boundaries[n]; ok {
			if err != io.EOF || len(got) != complete {
				t.Fatalf("prefix %d: %d frames, %v; want %d frames, io.EOF", n, len(got), err, complete)
			}
			continue
		}
		var fe *FramingError
		if !errors.Is(err, io.ErrUnexpectedEOF) && !errors.As(err, &fe) {
			t.Fatalf("prefix %d: error %v, want io.ErrUnexpectedEOF or a framing error", n, err)
		}
	}
}

func TestFramesFileErrors(t *testing.T) {
	tests := []struct {
		name       string
		hex        string
		unexpected bool // io.ErrUnexpectedEOF rather than a framing error
	}{
		{"bad magic", "50 54 59 48 46 52 4e 01", false},
		{"bad version", "50 54 59 48 46 52 4d 02", false},
		{"short header", "50 54 59", true},
		{"length over limit", "50 54 59 48 46 52 4d 01 81 80 80 20", false},
		{"length overflow", "50 54 59 48 46 52 4d 01 ff ff ff ff ff ff ff ff ff 7f", false},
		{"truncated length", "50 54 59 48 46 52 4d 01 80", true},
		{"short record", "50 54 59 48 46 52 4d 01 05 01 01", true},
		{"huge short record", "50 54 59 48 46 52 4d 01 80 80 80 20 01 01 00", true},
		{"empty record", "50 54 59 48 46 52 4d 01 00", false},
		{"reserved frame type", "50 54 59 48 46 52 4d 01 03 09 00 00", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readAll(bytes.NewReader(unhex(t, tt.hex)))
			if tt.unexpected {
				if err != io.ErrUnexpectedEOF {
					t.Fatalf("err = %v, want io.ErrUnexpectedEOF", err)
				}
				return
			}
			wantFraming(t, err, tt.name)
		})
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n == 0 {
		return 0, errors.New("disk full")
	}
	w.n--
	return len(p), nil
}

func TestFileWriterErrors(t *testing.T) {
	w := NewFileWriter(&failWriter{n: 1})
	if err := w.WriteFrame(NewOutputFrame(1, 0, nil)); err != nil {
		t.Fatal(err)
	}
	err := w.WriteFrame(NewOutputFrame(2, 0, nil))
	if err == nil || w.WriteFrame(NewOutputFrame(3, 0, nil)) != err {
		t.Fatalf("write error %v is not sticky", err)
	}
	var buf bytes.Buffer
	w = NewFileWriter(&buf)
	wantFraming(t, w.WriteFrame(Frame{Type: 0}), "reserved type")
	wantFraming(t, w.WriteFrame(NewOutputFrame(1, 0, make([]byte, MaxRecordLen))), "over limit")
	if buf.Len() != 0 {
		t.Fatalf("rejected frames wrote %d bytes", buf.Len())
	}
}

// chunkReader returns its bytes in seeded random chunk sizes (0 to 40).
type chunkReader struct {
	p []byte
	r *rand.Rand
}

func (c *chunkReader) Read(b []byte) (int, error) {
	if len(c.p) == 0 {
		return 0, io.EOF
	}
	n := copy(b[:min(len(b), c.r.IntN(41))], c.p)
	c.p = c.p[n:]
	return n, nil
}
