package main

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ptyhost/ptyhost/attachwire"
)

// framesFile writes the session's frames to a --frames file. A nil
// *framesFile is a valid, disabled one: every method does nothing.
//
// ptyhost never removes or truncates what it did not create: a new file is
// created exclusively (and removed if exec fails before the program
// starts); an existing regular file is replaced only at the end, by
// renaming a temporary file written beside it, so a failed exec leaves it
// as it was; a FIFO or a character device (a pipe to another program,
// /dev/stdout) is written in place and never removed. Other kinds of files
// are refused.
type framesFile struct {
	f       *os.File
	bw      *bufio.Writer
	enc     *attachwire.FileWriter
	err     error
	target  string // the file to rename f to at close, or ""
	created bool   // f is a new file ptyhost created: abort removes it
}

// framesTargetError refuses a --frames target ptyhost will not write.
type framesTargetError struct {
	path string
	kind string
}

func (e *framesTargetError) Error() string {
	return fmt.Sprintf("%s is %s, not a file, a FIFO or a character device", e.path, e.kind)
}

// openFramesFile opens path for the frames; "" means no frames file.
func openFramesFile(path string) (*framesFile, error) {
	if path == "" {
		return nil, nil
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if err != nil {
			return nil, err
		}
		return newFramesFile(f, "", true), nil
	case err != nil:
		return nil, err
	case fi.Mode().IsRegular():
		return replaceFile(path, fi.Mode().Perm())
	case fi.Mode()&(fs.ModeNamedPipe|fs.ModeCharDevice) != 0:
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		return newFramesFile(f, "", false), nil
	case fi.IsDir():
		return nil, &framesTargetError{path: path, kind: "a directory"}
	}
	return nil, &framesTargetError{path: path, kind: "a " + fileKind(fi.Mode())}
}

// replaceFile opens a temporary file beside the regular file path (a
// symbolic link is followed), with path's permissions, to be renamed over
// it at close.
func replaceFile(path string, perm fs.FileMode) (*framesFile, error) {
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
	return newFramesFile(f, target, true), nil
}

func newFramesFile(f *os.File, target string, created bool) *framesFile {
	bw := bufio.NewWriterSize(f, 64<<10)
	return &framesFile{f: f, bw: bw, enc: attachwire.NewFileWriter(bw), target: target, created: created}
}

// fileKind names a kind of file that is not regular, a directory, a FIFO
// or a character device.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "block device"
	}
	return "special file"
}

// write appends one frame; the first error sticks.
func (ff *framesFile) write(f attachwire.Frame) error {
	if ff == nil || ff.err != nil {
		return ff.stickyErr()
	}
	ff.err = ff.enc.WriteFrame(f)
	return ff.err
}

func (ff *framesFile) stickyErr() error {
	if ff == nil {
		return nil
	}
	return ff.err
}

// close flushes, syncs and closes the file, and puts a replacement in
// place; a replacement that could not be written completely is removed
// and the original kept.
func (ff *framesFile) close() error {
	if ff == nil {
		return nil
	}
	err := ff.err
	if ferr := ff.bw.Flush(); err == nil {
		err = ferr
	}
	if ff.target != "" || isRegular(ff.f) {
		// Pipes and terminals cannot be synced (EINVAL); nor need to be.
		if serr := ff.f.Sync(); err == nil {
			err = serr
		}
	}
	if cerr := ff.f.Close(); err == nil {
		err = cerr
	}
	if ff.target == "" {
		return err
	}
	if err == nil {
		err = os.Rename(ff.f.Name(), ff.target)
	}
	if err != nil {
		os.Remove(ff.f.Name())
	}
	return err
}

func isRegular(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode().IsRegular()
}

// abort closes a file that will not be written, removing it only if
// ptyhost created it.
func (ff *framesFile) abort() {
	if ff == nil {
		return
	}
	ff.f.Close()
	if ff.created {
		os.Remove(ff.f.Name())
	}
}
