package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
)

// ErrNotRegular is matched by the *KindError Open returns for a path that
// names something other than a regular file when that is not allowed, and
// for a directory.
var ErrNotRegular = errors.New("outfile: not a regular file")

// KindError reports a path Open refuses for its type. errors.Is(err,
// ErrNotRegular) holds for it.
type KindError struct {
	Path string
	Mode fs.FileMode // the type bits of what the path names

	// Special says FIFOs and character devices were allowed
	// (Options.AllowSpecial), so the message names them too.
	Special bool
}

// Error names the path, what it is, and what would have been accepted.
func (e *KindError) Error() string {
	want := "a regular file"
	if e.Special {
		want = "a regular file, a FIFO or a character device"
	}
	return fmt.Sprintf("outfile: %s is a %s, not %s", e.Path, kind(e.Mode), want)
}

// Is reports whether target is ErrNotRegular.
func (e *KindError) Is(target error) bool { return target == ErrNotRegular }

// Options configures Open. The zero value creates files with mode 0644,
// truncates an existing regular file at Begin, and refuses anything but a
// regular file.
type Options struct {
	// AllowSpecial lets the path name a FIFO or a character device (a
	// terminal, /dev/stdout), which is then written as it is. False
	// refuses them. Other kinds (a block device, a socket, a directory)
	// are always refused.
	AllowSpecial bool

	// Replace writes an existing regular file's new content to a
	// temporary file beside it (with the original's permissions; a
	// symbolic link is followed and kept), which Close renames over the
	// original only if every Write and Sync succeeded. Until then, and
	// whatever fails, the original is untouched. False truncates the
	// original at Begin and writes it in place.
	Replace bool

	// Perm is the mode of a file Open creates, before the umask; 0 means
	// 0644.
	Perm fs.FileMode
}

// File is an output file opened by Open.
type File struct {
	f       *os.File
	path    string
	created bool // Open created it: Abort may remove it
	regular bool

	// A replacement: f is the temporary file tmp, renamed to target
	// (path with its symbolic links resolved) by a clean Close.
	tmp, target string
	failed      atomic.Bool // a Write or Sync failed: Close does not replace
	closeOnce   sync.Once
	closeErr    error
}

// Open opens path for writing under the rules in the package comment.
func Open(path string, opts Options) (*File, error) {
	perm := opts.Perm
	if perm == 0 {
		perm = 0o644
	}
	var err error
	for range 3 { // the name may come and go between the steps
		var f *os.File
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if err == nil {
			return &File{f: f, path: path, created: true, regular: true}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		var fi fs.FileInfo
		if fi, err = os.Stat(path); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed, or a dangling symlink
			}
			return nil, err
		}
		if err = check(path, fi.Mode(), opts); err != nil {
			return nil, err
		}
		if fi.Mode().IsRegular() && opts.Replace {
			return openReplacement(path, fi.Mode().Perm())
		}
		if f, err = os.OpenFile(path, os.O_WRONLY, 0); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, err
		}
		if fi, err = f.Stat(); err == nil {
			err = check(path, fi.Mode(), opts)
		}
		if err != nil {
			f.Close()
			return nil, err
		}
		return &File{f: f, path: path, regular: fi.Mode().IsRegular()}, nil
	}
	return nil, err
}

// openReplacement opens a temporary file beside the regular file path,
// with permissions perm, for Close to rename over it.
func openReplacement(path string, perm fs.FileMode) (*File, error) {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".ptyhost-*")
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &File{f: f, path: path, regular: true, tmp: f.Name(), target: target}, nil
}

// check refuses a mode Open must not write to.
func check(path string, mode fs.FileMode, opts Options) error {
	special := mode&(fs.ModeNamedPipe|fs.ModeCharDevice) != 0
	if mode.IsRegular() || (opts.AllowSpecial && special) {
		return nil
	}
	return &KindError{Path: path, Mode: mode.Type(), Special: opts.AllowSpecial}
}

// kind names the type of a non-regular file for an error message.
func kind(mode fs.FileMode) string {
	switch {
	case mode.IsDir():
		return "directory"
	case mode&fs.ModeNamedPipe != 0:
		return "named pipe"
	case mode&fs.ModeSocket != 0:
		return "socket"
	case mode&fs.ModeCharDevice != 0:
		return "character device"
	case mode&fs.ModeDevice != 0:
		return "block device"
	}
	return "special file (" + mode.Type().String() + ")"
}

// Name returns the path the file was opened by.
func (f *File) Name() string { return f.path }

// Created reports whether Open created the file.
func (f *File) Created() bool { return f.created }

// Regular reports whether the file is a regular file.
func (f *File) Regular() bool { return f.regular }

// Replacing reports whether the file is written beside an existing one
// and replaces it at Close (Options.Replace).
func (f *File) Replacing() bool { return f.tmp != "" }

// Begin marks the start of the output: a regular file that existed is
// truncated now, not at Open (a replacement needs nothing). Call it once,
// before the first Write.
func (f *File) Begin() error {
	if f.regular && !f.created && !f.Replacing() {
		return f.f.Truncate(0)
	}
	return nil
}

// Write writes p to the file.
func (f *File) Write(p []byte) (int, error) {
	n, err := f.f.Write(p)
	if err != nil {
		f.failed.Store(true)
	}
	return n, err
}

// Sync commits a regular file to stable storage; on anything else it does
// nothing (fsync of a FIFO or terminal is an error).
func (f *File) Sync() error {
	if !f.regular {
		return nil
	}
	err := f.f.Sync()
	if err != nil {
		f.failed.Store(true)
	}
	return err
}

// Close closes the file and keeps what was written. A replacement is
// renamed over the original if every Write and Sync and the close
// succeeded, and removed otherwise, leaving the original as it was. A
// Write blocked on a FIFO or terminal returns when another goroutine
// calls Close. Later calls return the first one's result.
func (f *File) Close() error {
	f.closeOnce.Do(func() { f.closeErr = f.close() })
	return f.closeErr
}

func (f *File) close() error {
	err := f.f.Close()
	if !f.Replacing() {
		return err
	}
	if err == nil && f.failed.Load() {
		err = errFailedWrite
	}
	if err == nil {
		err = os.Rename(f.tmp, f.target)
	}
	if err != nil {
		os.Remove(f.tmp)
	}
	return err
}

// errFailedWrite is Close's answer for a replacement not put in place
// because a Write or Sync failed (which reported the cause).
var errFailedWrite = errors.New("outfile: an earlier write failed; the original is kept")

// Abort closes the file and removes what Open created: the file, if the
// path still names it, or a replacement's temporary file. A file Open did
// not create is left as it is.
func (f *File) Abort() error {
	fi, statErr := f.f.Stat()
	err := f.f.Close()
	f.closeOnce.Do(func() { f.closeErr = err })
	name := f.path
	if f.Replacing() {
		name = f.tmp
	} else if !f.created {
		return err
	}
	if statErr != nil {
		return err
	}
	if now, lerr := os.Lstat(name); lerr != nil || !os.SameFile(fi, now) {
		return err // gone or replaced: not ours to remove
	}
	if rmErr := os.Remove(name); err == nil {
		err = rmErr
	}
	return err
}
