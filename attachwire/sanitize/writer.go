package sanitize

import "io"

// A Writer sanitizes a stream on its way to an underlying io.Writer. Create
// one with NewWriter. Not safe for concurrent use; use one per stream.
type Writer struct {
	w   io.Writer
	s   *Sanitizer
	out []byte
}

// NewWriter returns a Writer that sanitizes everything written to it with a
// fresh Sanitizer configured by opts, and writes the result to w.
func NewWriter(w io.Writer, opts Options) *Writer {
	return &Writer{w: w, s: New(opts)}
}

// Write sanitizes p and writes the result to the underlying writer in one
// call (none if nothing passed). p is always consumed whole, so n is
// len(p); a non-nil error is the underlying writer's and means that output
// was lost.
func (w *Writer) Write(p []byte) (n int, err error) {
	w.out = w.s.Append(w.out[:0], p)
	if len(w.out) > 0 {
		_, err = w.w.Write(w.out)
	}
	return len(p), err
}

// Flush ends the stream, dropping any unfinished sequence or rune (see
// Sanitizer.Flush). It writes nothing.
func (w *Writer) Flush() { w.s.Flush() }

// Reset discards all state and makes the Writer write to dst, as if it had
// just been created with the same options.
func (w *Writer) Reset(dst io.Writer) {
	w.s.Reset()
	w.w = dst
}

// SetSize sets the viewer's screen size (see Sanitizer.SetSize).
func (w *Writer) SetSize(cols, rows int) { w.s.SetSize(cols, rows) }
