package attachwire

import (
	"bufio"
	"errors"
	"io"
	"slices"
)

// FileMagic starts every frames file: the seven ASCII bytes "PTYHFRM"
// followed by the format version byte FileVersion (50 54 59 48 46 52 4d 01).
// After it come records, each uvarint(len) | frame, until the end of the
// stream. A stream of zero bytes is an empty frames file.
const FileMagic = "PTYHFRM"

// FileVersion is the frames file format version this package writes and
// reads.
const FileVersion byte = 0x01

// MaxRecordLen is the largest frame a frames file record may hold (64 MiB).
// FileReader rejects a longer declared length before reading it, and
// FileWriter refuses to write one.
const MaxRecordLen = 64 << 20

// FileWriter writes frames to a frames file. The header goes out with the
// first frame, so a writer that writes nothing leaves an empty (valid)
// stream. Each record is handed to the underlying writer in one Write
// call; wrap a file in a bufio.Writer for fewer system calls and flush it
// yourself. After a write error every later call returns that error. A
// FileWriter is not safe for concurrent use.
type FileWriter struct {
	w       io.Writer
	buf     []byte
	started bool
	err     error
}

// NewFileWriter returns a FileWriter writing to w.
func NewFileWriter(w io.Writer) *FileWriter {
	return &FileWriter{w: w}
}

// WriteFrame appends one record holding f. A frame of a reserved type or
// longer than MaxRecordLen is rejected with a *FramingError and nothing is
// written.
func (w *FileWriter) WriteFrame(f Frame) error {
	if w.err != nil {
		return w.err
	}
	n := f.EncodedLen()
	if n > MaxRecordLen {
		return framingf("frame of %d bytes exceeds the %d-byte record limit", n, MaxRecordLen)
	}
	buf := w.buf[:0]
	if !w.started {
		buf = append(append(buf, FileMagic...), FileVersion)
	}
	buf = appendUvarint(buf, uint64(n))
	buf, err := f.AppendBinary(buf)
	if err != nil {
		return err
	}
	w.buf = buf
	if _, err := w.w.Write(buf); err != nil {
		w.err = err
		return err
	}
	w.started = true
	return nil
}

// FileReader reads frames from a frames file. It may read ahead of the
// record it returns. After an error every later call returns that error.
// A FileReader is not safe for concurrent use.
type FileReader struct {
	r       *bufio.Reader
	started bool
	err     error
}

// NewFileReader returns a FileReader reading from r. The header is checked
// by the first ReadFrame.
func NewFileReader(r io.Reader) *FileReader {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	return &FileReader{r: br}
}

// ReadFrame returns the next frame. Its payload is freshly allocated and
// belongs to the caller. ReadFrame returns io.EOF only at a clean record
// boundary (or on an empty stream); a stream that ends inside the header
// or a record gives io.ErrUnexpectedEOF; a wrong magic, an unknown
// version, an overflowing or over-limit length, or a record that does not
// decode as a frame gives a *FramingError; errors of the underlying reader
// are returned as they are.
func (r *FileReader) ReadFrame() (Frame, error) {
	if r.err != nil {
		return Frame{}, r.err
	}
	f, err := r.readFrame()
	if err != nil {
		r.err = err
	}
	return f, err
}

func (r *FileReader) readFrame() (Frame, error) {
	if !r.started {
		if err := r.readHeader(); err != nil {
			return Frame{}, err
		}
		r.started = true
	}
	n, err := r.readLen()
	if err != nil {
		return Frame{}, err
	}
	rec, err := readN(r.r, n)
	if err != nil {
		return Frame{}, err
	}
	return DecodeFrame(rec)
}

// readHeader checks the magic and version.
func (r *FileReader) readHeader() error {
	var h [len(FileMagic) + 1]byte
	switch _, err := io.ReadFull(r.r, h[:]); {
	case err == io.EOF:
		return io.EOF
	case err != nil:
		return err
	}
	if string(h[:len(FileMagic)]) != FileMagic {
		return framingf("not a frames file: header % x", h[:])
	}
	if v := h[len(FileMagic)]; v != FileVersion {
		return framingf("frames file version %d is unsupported", v)
	}
	return nil
}

// readLen reads a record's uvarint length: io.EOF before its first byte,
// io.ErrUnexpectedEOF inside it.
func (r *FileReader) readLen() (int, error) {
	var v uint64
	var s uint
	for i := 0; ; i++ {
		b, err := r.r.ReadByte()
		if err != nil {
			if err == io.EOF && i > 0 {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		if i == maxVarintLen-1 && b > 0x01 {
			return 0, framingf("frames file record length overflows 64 bits")
		}
		v |= uint64(b&0x7F) << s
		s += 7
		if b < 0x80 {
			break
		}
	}
	if v > MaxRecordLen {
		return 0, framingf("frames file record of %d bytes exceeds the %d-byte limit", v, MaxRecordLen)
	}
	return int(v), nil
}

// readN reads exactly n bytes, growing the buffer as data arrives so that
// a short stream claiming a long record costs little memory.
func readN(r io.Reader, n int) ([]byte, error) {
	const step = 64 << 10
	buf := make([]byte, 0, min(n, step))
	for len(buf) < n {
		chunk := min(n-len(buf), max(len(buf), step))
		buf = slices.Grow(buf, chunk)
		m, err := io.ReadFull(r, buf[len(buf):len(buf)+chunk])
		buf = buf[:len(buf)+m]
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
	return buf, nil
}
