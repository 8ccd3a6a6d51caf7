package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
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
}

// Error names the path and what it is.
func (e *KindError) Error() string {
	return fmt.Sprintf("outfile: %s is a %s, not a regular file", e.Path, kind(e.Mode))
}

// Is reports whether target is ErrNotRegular.
func (e *KindError) Is(target error) bool { return target == ErrNotRegular }

// Options configures Open. The zero value creates files with mode 0644 and
// refuses anything but a regular file.
type Options struct {
	// AllowSpecial lets the path name a FIFO, a terminal or another
	// device, which is then written as it is. False refuses them.
	AllowSpecial bool

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

// check refuses a mode Open must not write to.
func check(path string, mode fs.FileMode, opts Options) error {
	if mode.IsRegular() || (opts.AllowSpecial && !mode.IsDir()) {
		return nil
	}
	return &KindError{Path: path, Mode: mode.Type()}
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

// Begin marks the start of the output: a regular file that existed is
// truncated now, not at Open. Call it once, before the first Write.
func (f *File) Begin() error {
	if f.regular && !f.created {
		return f.f.Truncate(0)
	}
	return nil
}

// Write writes p to the file.
func (f *File) Write(p []byte) (int, error) { return f.f.Write(p) }

// Sync commits a regular file to stable storage; on anything else it does
// nothing (fsync of a FIFO or terminal is an error).
func (f *File) Sync() error {
	if !f.regular {
		return nil
	}
	return f.f.Sync()
}

// Close closes the file and keeps it. A Write blocked on a FIFO or
// terminal returns when another goroutine calls Close.
func (f *File) Close() error { return f.f.Close() }

// Abort closes the file and removes it if Open created it and the path
// still names that file; a file Open did not create is left as it is.
func (f *File) Abort() error {
	fi, statErr := f.f.Stat()
	err := f.f.Close()
	if !f.created || statErr != nil {
		return err
	}
	if now, lerr := os.Lstat(f.path); lerr != nil || !os.SameFile(fi, now) {
		return err // gone or replaced: not ours to remove
	}
	if rmErr := os.Remove(f.path); err == nil {
		err = rmErr
	}
	return err
}
