package castchain

import (
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"time"
)

// Options configure a Writer. The zero value chains without signing and
// takes the defaults below.
type Options struct {
	// Key signs every chain line. Nil: the chain is unsigned.
	Key ed25519.PrivateKey
	// EveryLines, EveryBytes and Every bound the chained lines, their bytes
	// and the time between checkpoints: the first bound a completed line
	// reaches writes one. Zero: 256 lines, 1 MiB, 10 s.
	EveryLines int
	EveryBytes int64
	Every      time.Duration
	// Now stamps chain lines. Nil: time.Now.
	Now func() time.Time
}

// ErrClosed is returned by a Writer after Close.
var ErrClosed = errors.New("castchain: writer closed")

// ErrChainPrefix is returned (and sticks) when a line written through a
// Writer starts with Prefix: a verifier would take it for a chain line.
var ErrChainPrefix = errors.New("castchain: a chained line starts with the chain's prefix")

// Writer chains the lines written through it to an underlying writer. It
// is not safe for concurrent use.
type Writer struct {
	w    io.Writer
	opts Options

	state   [sha256.Size]byte // h(seq)
	seq     uint64
	from    uint64    // seq at the last chain line
	lastCP  time.Time // time of the last chain line
	bytes   int64     // chained bytes since the last chain line
	digests []byte

	chain  hash.Hash // h(seq) || the current line so far
	digest hash.Hash // the current line so far
	inLine bool      // bytes of an unfinished line went through
	head   int       // bytes of the line so far that match Prefix; -1: it does not
	due    bool      // a checkpoint waits for the line to end
	closed bool
	err    error
	buf    []byte
}

// NewWriter returns a Writer that chains what it passes to w.
func NewWriter(w io.Writer, opts Options) *Writer {
	if opts.EveryLines <= 0 {
		opts.EveryLines = 256
	}
	if opts.EveryBytes <= 0 {
		opts.EveryBytes = 1 << 20
	}
	if opts.Every <= 0 {
		opts.Every = 10 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	cw := &Writer{w: w, opts: opts, state: genesis(), chain: sha256.New(), digest: sha256.New()}
	cw.lastCP = opts.Now()
	return cw
}

// Write passes p through, chaining each line it completes, and writes a
// checkpoint after a line that reaches one of the Options' bounds.
func (w *Writer) Write(p []byte) (int, error) {
	if w.closed {
		return 0, ErrClosed
	}
	if w.err != nil {
		return 0, w.err
	}
	done := 0
	for done < len(p) {
		rest := p[done:]
		end := indexNL(rest)
		part := rest
		if end >= 0 {
			part = rest[:end]
		}
		if !w.inLine {
			w.chain.Reset()
			w.chain.Write(w.state[:])
			w.digest.Reset()
			w.inLine, w.head = true, 0
		}
		if err := w.checkPrefix(part); err != nil {
			return done, err
		}
		w.chain.Write(part)
		w.digest.Write(part)
		w.bytes += int64(len(part))
		n := len(part)
		if end >= 0 {
			n++
		}
		if _, err := w.w.Write(rest[:n]); err != nil {
			w.err = fmt.Errorf("castchain: write: %w", err)
			return done, w.err
		}
		done += n
		if end < 0 {
			break
		}
		w.endLine()
		if w.due || w.reached() {
			if err := w.writeChainLine(KindCheckpoint); err != nil {
				return done, err
			}
		}
	}
	return done, nil
}

// checkPrefix refuses the line whose start spells Prefix, before its last
// byte of it goes through.
func (w *Writer) checkPrefix(part []byte) error {
	if w.head < 0 {
		return nil
	}
	n := min(len(part), len(Prefix)-w.head)
	if string(part[:n]) != Prefix[w.head:w.head+n] {
		w.head = -1
		return nil
	}
	w.head += n
	if w.head == len(Prefix) {
		w.err = ErrChainPrefix
		return w.err
	}
	return nil
}

func indexNL(p []byte) int {
	for i, c := range p {
		if c == '\n' {
			return i
		}
	}
	return -1
}

func (w *Writer) endLine() {
	w.chain.Sum(w.state[:0])
	w.digests = w.digest.Sum(w.digests)[:len(w.digests)+DigestSize]
	w.seq++
	w.inLine = false
}

func (w *Writer) reached() bool {
	n := w.seq - w.from
	return n >= uint64(w.opts.EveryLines) || n >= MaxLineDigests || w.bytes >= w.opts.EveryBytes ||
		w.opts.Now().Sub(w.lastCP) >= w.opts.Every
}

// Checkpoint writes a checkpoint now if lines were chained since the last
// one, or as soon as the line being written ends. A caller whose stream
// goes quiet calls it on a timer so the lines so far are covered.
func (w *Writer) Checkpoint() error {
	switch {
	case w.closed:
		return ErrClosed
	case w.err != nil:
		return w.err
	case w.inLine:
		w.due = true
		return nil
	case w.seq == w.from:
		return nil
	}
	return w.writeChainLine(KindCheckpoint)
}

// Close writes the closing line, which covers every chained line. A line
// left unfinished is ended first (a newline is written), so the closing
// line is a line of its own. Close does not close the underlying writer.
func (w *Writer) Close() error {
	if w.closed {
		return nil
	}
	if w.err != nil {
		w.closed = true
		return w.err
	}
	if w.inLine {
		if _, err := w.Write([]byte{'\n'}); err != nil {
			w.closed = true
			return err
		}
	}
	err := w.writeChainLine(KindEnd)
	w.closed = true
	return err
}

// Seq returns how many lines have been chained.
func (w *Writer) Seq() uint64 { return w.seq }

func (w *Writer) writeChainLine(kind string) error {
	now := w.opts.Now()
	l := Line{Kind: kind, Seq: w.seq, From: w.from, Time: now, Hash: w.state, Digests: w.digests}
	w.buf = appendLine(w.buf[:0], &l, w.opts.Key)
	w.buf = append(w.buf, '\n')
	if _, err := w.w.Write(w.buf); err != nil {
		w.err = fmt.Errorf("castchain: write: %w", err)
		return w.err
	}
	w.from, w.lastCP, w.bytes, w.digests, w.due = w.seq, now, 0, w.digests[:0], false
	return nil
}
