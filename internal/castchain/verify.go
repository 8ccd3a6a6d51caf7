package castchain

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// MaxFileLine bounds one line of a file Verify reads, as the cast reader
// bounds its lines.
const MaxFileLine = 16 << 20

// FailedPrefix starts the comment a recorder writes when its recording
// stopped early (the queue overflowed, the disk failed); Verify reports it.
const FailedPrefix = "# ptyhost-record failed"

// ProblemKind classifies what Verify found wrong.
type ProblemKind string

// Problem kinds.
const (
	Changed      ProblemKind = "changed"       // a chained line's bytes differ from what was signed
	Removed      ProblemKind = "removed"       // chained lines are missing
	Inserted     ProblemKind = "inserted"      // lines were added that no checkpoint covers
	Reordered    ProblemKind = "reordered"     // two chained lines swapped places
	BadSignature ProblemKind = "bad-signature" // a chain line whose signature does not verify
	WrongKey     ProblemKind = "wrong-key"     // a chain line signed by another key than the trusted one
	Unsigned     ProblemKind = "unsigned"      // a chain line with no signature where one is required
	BadChainLine ProblemKind = "bad-chain-line"
	Truncated    ProblemKind = "truncated" // the file ends with no closing line
	Appended     ProblemKind = "appended"  // lines follow the closing line
	NoChain      ProblemKind = "no-chain"  // the file has no chain lines at all
)

// Problem is one thing Verify found wrong, at a line of the file (1-based).
type Problem struct {
	Line int
	Kind ProblemKind
	Msg  string
}

func (p Problem) String() string { return fmt.Sprintf("line %d: %s: %s", p.Line, p.Kind, p.Msg) }

// VerifyOptions configure Verify.
type VerifyOptions struct {
	// Key is the signer to trust: every chain line must be signed by it.
	// Nil: any consistent signer is reported, unsigned chains are accepted,
	// and the Report says the signer was not checked.
	Key ed25519.PublicKey
}

// Report is what Verify found.
type Report struct {
	Problems []Problem
	Lines    int    // lines in the file
	Events   uint64 // chained lines (header, events and comments)
	// Signer is the key the chain lines were signed with (nil: unsigned);
	// Trusted says it is VerifyOptions.Key.
	Signer  ed25519.PublicKey
	Trusted bool
	// Start is the cast header's timestamp, End the closing line's time
	// (else the last checkpoint's); zero when absent.
	Start, End time.Time
	// Closed says the closing line was found and holds. Unproven counts
	// the chained lines after the last checkpoint that held.
	Closed   bool
	Unproven uint64
	// Failed is the recorder's own note that the recording stopped early.
	Failed string
}

// Intact reports whether nothing was found wrong.
func (r *Report) Intact() bool { return len(r.Problems) == 0 }

// seen is a chained line since the last checkpoint that held.
type seen struct {
	line   int
	digest [DigestSize]byte
}

type verifier struct {
	opts     VerifyOptions
	rep      Report
	state    [sha256.Size]byte
	seq      uint64 // seq at the last chain line that held
	seg      []seen // chained lines since then
	ended    int    // the closing line's line number, once seen
	appended bool   // a line after it was reported
	partly   bool   // the last line had no newline
}

// Verify reads a chained recording and reports whether its chain holds,
// and if not, where it was changed, removed, reordered or cut short. The
// error is for reading only: whatever is wrong with the file is in the
// Report.
func Verify(r io.Reader, opts VerifyOptions) (*Report, error) {
	v := &verifier{opts: opts, state: genesis()}
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br)
		if len(line) > 0 || err == nil {
			v.rep.Lines++
			v.partly = err == io.EOF
			if err == errLongLine {
				v.problem(Changed, "line longer than %d bytes", MaxFileLine)
				return &v.rep, nil
			}
			v.line(line)
		}
		if err == io.EOF {
			break
		}
		if err != nil && err != errLongLine {
			return nil, fmt.Errorf("castchain: verify: %w", err)
		}
	}
	v.finish()
	return &v.rep, nil
}

var errLongLine = fmt.Errorf("castchain: line too long")

// readLine returns the next line without its newline; io.EOF with the
// bytes of a last line that had none.
func readLine(br *bufio.Reader) ([]byte, error) {
	var long []byte
	for {
		b, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long, b...)
			if len(long) > MaxFileLine {
				return long, errLongLine
			}
			continue
		}
		if long != nil {
			b = append(long, b...)
		}
		if err != nil {
			return b, err
		}
		return b[:len(b)-1], nil
	}
}

func (v *verifier) problem(kind ProblemKind, format string, args ...any) {
	v.problemAt(v.rep.Lines, kind, format, args...)
}

func (v *verifier) problemAt(line int, kind ProblemKind, format string, args ...any) {
	v.rep.Problems = append(v.rep.Problems, Problem{Line: line, Kind: kind, Msg: fmt.Sprintf(format, args...)})
}

func (v *verifier) line(b []byte) {
	if v.ended != 0 {
		if !v.appended {
			v.appended = true
			v.problem(Appended, "after the closing line at line %d", v.ended)
		}
		return
	}
	if IsChainLine(b) {
		v.chainLine(b)
		return
	}
	if v.rep.Lines == 1 {
		v.header(b)
	}
	if bytes.HasPrefix(b, []byte(FailedPrefix)) && v.rep.Failed == "" {
		v.rep.Failed = string(bytes.TrimSpace(b[len("# "):]))
	}
	h := sha256.New()
	h.Write(v.state[:])
	h.Write(b)
	h.Sum(v.state[:0])
	d := sha256.Sum256(b)
	var s seen
	s.line = v.rep.Lines
	copy(s.digest[:], d[:])
	v.seg = append(v.seg, s)
	v.rep.Events++
}

func (v *verifier) header(b []byte) {
	var h struct {
		Timestamp int64 `json:"timestamp"`
	}
	if json.Unmarshal(b, &h) == nil && h.Timestamp > 0 {
		v.rep.Start = time.Unix(h.Timestamp, 0).UTC()
	}
}

// chainLine checks one chain line: its form, its signer, then whether the
// lines since the last one that held are the ones it covers. A line that
// is not authentic is reported and skipped; one that is authentic becomes
// the new base, whatever happened before it, so one damaged span does not
// hide the state of the rest.
func (v *verifier) chainLine(b []byte) {
	at := v.rep.Lines
	l, err := ParseLine(b)
	if err != nil {
		v.problem(BadChainLine, "%v", err)
		return
	}
	if !v.authentic(l) {
		return
	}
	if v.rep.Signer == nil && l.Key != nil {
		v.rep.Signer = l.Key
	}
	switch {
	case l.From != v.seq:
		v.problem(Removed, "a chain line covering lines %d to %d of the chain is missing before this one", v.seq+1, l.From)
	case l.Seq == v.seq+uint64(len(v.seg)) && l.Hash == v.state:
		// Holds.
	default:
		v.locate(l, at)
	}
	v.state, v.seq, v.seg = l.Hash, l.Seq, v.seg[:0]
	v.rep.End = l.Time.UTC()
	if l.Kind == KindEnd {
		v.ended = at
		v.rep.Closed = true
	}
}

// authentic checks a chain line's signature against the trusted key, or
// for consistency with the file's first signer when none is trusted.
func (v *verifier) authentic(l *Line) bool {
	switch {
	case l.Key == nil && v.opts.Key != nil:
		v.problem(Unsigned, "chain line is not signed; want a signature by %s", Fingerprint(v.opts.Key))
		return false
	case l.Key == nil && v.rep.Signer != nil:
		v.problem(Unsigned, "chain line is not signed, unlike the ones before it")
		return false
	case l.Key == nil:
		return true
	case v.opts.Key != nil && !l.Key.Equal(v.opts.Key):
		v.problem(WrongKey, "signed by %s, not the trusted key %s", Fingerprint(l.Key), Fingerprint(v.opts.Key))
		return false
	case v.rep.Signer != nil && !l.Key.Equal(v.rep.Signer):
		v.problem(WrongKey, "signed by %s, not by %s like the ones before it", Fingerprint(l.Key), Fingerprint(v.rep.Signer))
		return false
	case !l.Verify():
		v.problem(BadSignature, "the signature does not verify with its key %s", Fingerprint(l.Key))
		return false
	}
	v.rep.Trusted = v.opts.Key != nil
	return true
}

func (v *verifier) finish() {
	if v.rep.Lines == 0 {
		v.problemAt(0, NoChain, "empty file")
		return
	}
	if v.rep.End.IsZero() && v.ended == 0 {
		if len(v.rep.Problems) == 0 {
			v.problemAt(1, NoChain, "no chain lines: not a chained recording, or one cut short before its first checkpoint")
		}
		v.rep.Unproven = uint64(len(v.seg))
		return
	}
	if v.ended != 0 {
		return
	}
	v.rep.Unproven = uint64(len(v.seg))
	msg := fmt.Sprintf("the file ends with no closing line; %d chained lines after the last checkpoint are unproven", len(v.seg))
	if v.partly {
		msg += " (the last line is cut off)"
	}
	v.problem(Truncated, "%s", msg)
}
