package ptyhost

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/ptyhost/ptyhost/internal/term"
)

// Defaults applied to the zero values of a Spec.
const (
	DefaultCols       = 80
	DefaultRows       = 24
	DefaultRingBytes  = 8 << 20
	DefaultScrollback = 200
	DefaultTERM       = "xterm-256color"
	DefaultCOLORTERM  = "truecolor"
)

// Bounds on a Spec and on Resize. Larger values are rejected rather than
// clamped: they are almost always a bug in the caller.
const (
	MaxCols       = 1024
	MaxRows       = 512
	MaxPixels     = 65535 // the kernel's winsize holds 16-bit pixel sizes
	MaxScrollback = 100_000
	MaxRingBytes  = 1 << 30
)

// Spec describes the command a Session runs. The zero value of every field
// except Command means the documented default. Spawn copies the Spec; the
// caller may reuse it.
type Spec struct {
	// Command is the program and its arguments; required. A name without
	// a slash is looked up in the PATH of the child's environment (Env
	// applied on top of the parent's).
	Command []string

	// Env holds KEY=VALUE entries applied on top of the parent process's
	// environment, in order, the last one for a key winning. Before they
	// apply, TERM is set to DefaultTERM and COLORTERM to DefaultCOLORTERM
	// (the child talks to the host's emulator, not to the parent's
	// terminal), so Env can still override both. Nil adds nothing.
	Env []string

	// Dir is the child's working directory; empty means the parent's.
	Dir string

	// Cols and Rows are the initial terminal size; 0 means DefaultCols and
	// DefaultRows. Each must be at most MaxCols and MaxRows.
	Cols, Rows int

	// RingBytes bounds the ring buffer of published frames: the sum over
	// buffered frames of the payload length plus a fixed per-frame
	// accounting overhead of 128 bytes (so that a stream of tiny frames
	// stays bounded too). The oldest frames are evicted first; a single
	// frame larger than the bound is kept on its own. 0 means
	// DefaultRingBytes (8 MiB). Output payloads are read into slabs of a
	// quarter of RingBytes (at least 64 KiB, at most 2 MiB), each alive as
	// long as any of its payloads: the ring's memory stays within
	// RingBytes plus two slabs (1.5 times RingBytes from 256 KiB up).
	RingBytes int

	// Scrollback is the number of primary-screen lines the emulator keeps
	// and snapshots carry; 0 means DefaultScrollback (200). Use a negative
	// value for none.
	Scrollback int

	// Epoch is stamped into every serialized snapshot. It is minted by
	// whatever issues attach tokens; 0 is allowed.
	Epoch uint64

	// RecordPath, when set, names an asciicast file (v3 unless
	// RecordVersion says 2) to write in parallel with the frames: output,
	// resize and marker events timed by the frames' rel_time, and the exit
	// status (v3), flushed and synced at Exit. The file is opened
	// before the child starts, so a path that cannot be written fails
	// Spawn. A new file is created; an existing regular file is truncated
	// only once the child has started, so a failed Spawn leaves it as it
	// was; ptyhost never removes a file it did not create. A path naming
	// anything but a regular file fails Spawn (ErrInvalidSpec) unless
	// RecordSpecial is set. Empty means no recording.
	RecordPath string

	// RecordSpecial lets RecordPath name a FIFO or a character device (a
	// terminal; /dev/stdout often is one): it is written as it is, never
	// truncated, synced or removed. False refuses such a path; a block
	// device, a socket or a directory is refused either way.
	RecordSpecial bool

	// RecordVersion is the asciicast version of RecordPath: 3, or 2 for
	// players that predate v3 (asciinema 2.x); 0 means 3.
	RecordVersion int

	// RecordInput adds what WriteInput writes to the recording as input
	// events. Off by default: input is what people typed, passwords
	// included, and a cast is often shared.
	RecordInput bool

	// RecordKey, when set, makes the recording tamper-evident: a hash
	// chain over its lines with checkpoint and closing comment lines
	// signed by this key (internal/castchain; `ptyhost verify` checks it).
	// It needs a v3 recording. Nil: a plain cast.
	RecordKey ed25519.PrivateKey

	// NoCommandMarks turns off command marks. By default the session
	// recognises the marks a shell's integration writes around each
	// command (OSC 133, and VS Code's OSC 633 with the command line; see
	// `ptyhost shell-integration`) and publishes a Marker frame at each,
	// labelled in attachwire's reserved command-mark forms, right after
	// the Output that carried it.
	NoCommandMarks bool

	// Logger receives the session's diagnostics; nil discards them.
	Logger *slog.Logger

	// Backend selects the headless terminal implementation; the zero value
	// is BackendDefault.
	Backend Backend
}

// normalize validates s and returns a copy with defaults applied.
func (s Spec) normalize() (Spec, error) {
	if len(s.Command) == 0 || s.Command[0] == "" {
		return s, specError("empty command")
	}
	s.Command = append([]string(nil), s.Command...)
	s.Env = append([]string(nil), s.Env...)
	if s.Cols == 0 {
		s.Cols = DefaultCols
	}
	if s.Rows == 0 {
		s.Rows = DefaultRows
	}
	if err := checkGeometry(s.Cols, s.Rows, 0, 0); err != nil {
		return s, fmt.Errorf("%w: %w", ErrInvalidSpec, err)
	}
	switch {
	case s.RingBytes == 0:
		s.RingBytes = DefaultRingBytes
	case s.RingBytes < 0 || s.RingBytes > MaxRingBytes:
		return s, specError("ring size %d out of 1..%d", s.RingBytes, MaxRingBytes)
	}
	switch {
	case s.Scrollback == 0:
		s.Scrollback = DefaultScrollback
	case s.Scrollback < 0:
		s.Scrollback = 0
	case s.Scrollback > MaxScrollback:
		return s, specError("scrollback %d above %d", s.Scrollback, MaxScrollback)
	}
	switch s.RecordVersion {
	case 0:
		s.RecordVersion = 3
	case 2, 3:
	default:
		return s, specError("record version %d is not 2 or 3", s.RecordVersion)
	}
	switch {
	case s.RecordKey != nil && len(s.RecordKey) != ed25519.PrivateKeySize:
		return s, specError("record key is %d bytes, not an Ed25519 private key", len(s.RecordKey))
	case s.RecordKey != nil && s.RecordVersion != 3:
		return s, specError("a signed recording needs asciicast v3 (v2 has no comment lines)")
	}
	for _, kv := range s.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" || strings.ContainsRune(kv, 0) {
			return s, specError("env entry %q is not KEY=VALUE", kv)
		}
	}
	if s.Logger == nil {
		s.Logger = slog.New(slog.DiscardHandler)
	}
	return s, nil
}

// checkGeometry returns a *GeometryError for a size ptyhost does not accept.
func checkGeometry(cols, rows, pxWidth, pxHeight int) error {
	if cols < 1 || cols > MaxCols || rows < 1 || rows > MaxRows ||
		pxWidth < 0 || pxWidth > MaxPixels || pxHeight < 0 || pxHeight > MaxPixels {
		return &GeometryError{Cols: cols, Rows: rows, PxWidth: pxWidth, PxHeight: pxHeight}
	}
	return nil
}

// childEnv builds the child's environment: the parent's, then the TERM and
// COLORTERM defaults, then the Spec's overrides; the last entry for a key
// wins and each key appears once, in first-seen order.
func childEnv(parent, overrides []string) []string {
	all := make([]string, 0, len(parent)+2+len(overrides))
	all = append(all, parent...)
	all = append(all, "TERM="+DefaultTERM, "COLORTERM="+DefaultCOLORTERM)
	all = append(all, overrides...)
	index := make(map[string]int, len(all))
	out := all[:0:0]
	for _, kv := range all {
		k, _, _ := strings.Cut(kv, "=")
		if i, ok := index[k]; ok {
			out[i] = kv
			continue
		}
		index[k] = len(out)
		out = append(out, kv)
	}
	return out
}

// envValue returns the value of key in env, the last entry winning.
func envValue(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v
		}
	}
	return ""
}

// lookPath resolves name the way a shell started in dir would with the
// given PATH, and tells "not found" (exec.ErrNotFound) from "not
// executable" (fs.ErrPermission). A relative result is relative to dir,
// which is how exec.Cmd runs it.
func lookPath(name, path, dir string) (string, error) {
	if strings.Contains(name, "/") {
		return name, checkExecutable(name, dir)
	}
	var firstErr error
	for _, entry := range filepath.SplitList(path) {
		if entry == "" {
			entry = "."
		}
		p := filepath.Join(entry, name)
		err := checkExecutable(p, dir)
		if err == nil {
			return p, nil
		}
		if firstErr == nil && !errors.Is(err, exec.ErrNotFound) {
			firstErr = err
		}
	}
	if firstErr != nil {
		return "", firstErr
	}
	return "", fmt.Errorf("%q not in PATH: %w", name, exec.ErrNotFound)
}

// checkExecutable checks the program at p, taken relative to dir when it
// is relative.
func checkExecutable(p, dir string) error {
	if !filepath.IsAbs(p) && dir != "" {
		p = filepath.Join(dir, p)
	}
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: %w", p, exec.ErrNotFound)
	case err != nil:
		return err
	case fi.IsDir():
		return fmt.Errorf("%s is a directory: %w", p, fs.ErrPermission)
	case fi.Mode().Perm()&0o111 == 0:
		return fmt.Errorf("%s is not executable: %w", p, fs.ErrPermission)
	}
	return nil
}

// Spawn validates spec, starts its command under a new PTY and returns the
// running Session. The child is a session and process-group leader with
// the PTY as its controlling terminal, and every signal starts at its
// default disposition, even those the host ignores (under nohup, or as a
// background job): a session's SIGHUP must reach it. A rejected spec (ErrInvalidSpec,
// *GeometryError), a command that is not found (exec.ErrNotFound) or not
// executable (fs.ErrPermission) fails before anything is started; any later
// failure releases everything Spawn acquired.
func Spawn(spec Spec) (*Session, error) {
	return spawn(spec, nil)
}

// spawn is Spawn with an optional terminal constructor replacing the
// backend (tests use a fake terminal).
func spawn(spec Spec, newTerm func(term.Options) (term.Terminal, error)) (*Session, error) {
	spec, err := spec.normalize()
	if err != nil {
		return nil, fmt.Errorf("ptyhost: spawn: %w", err)
	}
	env := childEnv(os.Environ(), spec.Env)
	path, err := lookPath(spec.Command[0], envValue(env, "PATH"), spec.Dir)
	if err != nil {
		return nil, fmt.Errorf("ptyhost: spawn: %w", err)
	}
	if newTerm == nil {
		if newTerm, err = spec.Backend.constructor(); err != nil {
			return nil, fmt.Errorf("ptyhost: spawn: %w", err)
		}
	}
	s := newSession(spec)
	if spec.RecordPath != "" {
		if s.rec, err = openRecorder(spec, env, time.Now()); err != nil {
			return nil, fmt.Errorf("ptyhost: spawn: %w", err)
		}
	}
	if err := s.start(path, env, newTerm); err != nil {
		if s.rec != nil {
			s.rec.abandon()
		}
		return nil, fmt.Errorf("ptyhost: spawn %s: %w", spec.Command[0], err)
	}
	return s, nil
}

// start opens the PTY and the terminal, starts the child and the session's
// goroutines. On error everything opened is released.
func (s *Session) start(path string, env []string, newTerm func(term.Options) (term.Terminal, error)) (err error) {
	master, tty, err := openPTY(s.cols, s.rows)
	if err != nil {
		return err
	}
	defer func() {
		tty.Close()
		if err != nil {
			if s.reader != nil {
				s.reader.close()
			}
			master.Close()
		}
	}()
	s.master = master
	if s.reader, err = newChunkReader(master); err != nil {
		return err
	}
	s.answers = newAnswerer(master, answerQueueLen)
	s.term, err = newTerm(term.Options{
		Cols:       s.cols,
		Rows:       s.rows,
		Scrollback: s.spec.Scrollback,
		Answer:     s.answers.push,
	})
	if err != nil {
		return err
	}
	s.cmd = &exec.Cmd{
		Path:        path,
		Args:        s.spec.Command,
		Env:         env,
		Dir:         s.spec.Dir,
		Stdin:       tty,
		Stdout:      tty,
		Stderr:      tty,
		SysProcAttr: childAttrs(),
	}
	if err := startChild(s.cmd, s.log); err != nil {
		s.term.Close()
		return err
	}
	s.anchor = time.Now()
	s.pid = s.cmd.Process.Pid
	s.log = s.spec.Logger.With("pid", s.pid)
	if s.rec != nil {
		s.wg.Add(1)
		go s.rec.run(&s.wg)
	}
	s.wg.Add(3)
	go s.answers.run(&s.wg)
	go s.readLoop()
	go s.lifecycle()
	return nil
}
