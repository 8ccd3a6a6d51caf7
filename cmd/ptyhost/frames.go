package main

import (
	"bufio"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/outfile"
)

// framesFile writes the session's frames to a --frames file. A nil
// *framesFile is a valid, disabled one: every method does nothing.
//
// ptyhost never removes or truncates what it did not create
// (internal/outfile): a new file is created exclusively (and removed if
// exec fails before the program starts); an existing regular file is
// replaced only at the end, by renaming a temporary file written beside
// it, so a failed exec leaves it as it was; a FIFO or a character device
// (a pipe to another program, /dev/stdout) is written in place and never
// removed. Other kinds of files are refused.
type framesFile struct {
	out *outfile.File
	bw  *bufio.Writer
	enc *attachwire.FileWriter
	err error
}

// openFramesFile opens path for the frames; "" means no frames file.
func openFramesFile(path string) (*framesFile, error) {
	if path == "" {
		return nil, nil
	}
	out, err := outfile.Open(path, outfile.Options{AllowSpecial: true, Replace: true, Perm: 0o666})
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriterSize(out, 64<<10)
	return &framesFile{out: out, bw: bw, enc: attachwire.NewFileWriter(bw)}, nil
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
	if serr := ff.out.Sync(); err == nil {
		err = serr
	}
	if err != nil && ff.out.Replacing() {
		ff.out.Abort() // a frame that could not be encoded: keep the original
		return err
	}
	if cerr := ff.out.Close(); err == nil {
		err = cerr
	}
	return err
}

// abort closes a file that will not be written, removing it only if
// ptyhost created it.
func (ff *framesFile) abort() {
	if ff != nil {
		ff.out.Abort()
	}
}
