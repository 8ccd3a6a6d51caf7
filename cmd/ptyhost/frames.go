package main

import (
	"bufio"
	"os"

	"github.com/ptyhost/ptyhost/attachwire"
)

// framesFile writes the session's frames to a --frames file. A nil
// *framesFile is a valid, disabled one: every method does nothing.
type framesFile struct {
	f   *os.File
	bw  *bufio.Writer
	enc *attachwire.FileWriter
	err error
}

// openFramesFile creates path; "" means no frames file.
func openFramesFile(path string) (*framesFile, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	return &framesFile{f: f, bw: bw, enc: attachwire.NewFileWriter(bw)}, nil
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

// close flushes, syncs and closes the file.
func (ff *framesFile) close() error {
	if ff == nil {
		return nil
	}
	err := ff.err
	if ferr := ff.bw.Flush(); err == nil {
		err = ferr
	}
	if serr := ff.f.Sync(); err == nil {
		err = serr
	}
	if cerr := ff.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// abort closes and removes a file that will not be written.
func (ff *framesFile) abort() {
	if ff == nil {
		return
	}
	ff.f.Close()
	os.Remove(ff.f.Name())
}
