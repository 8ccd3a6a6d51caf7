//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package ptyhost

import (
	"os"
	"time"
)

// chunkReader reads the master.
type chunkReader struct{ f *os.File }

func newChunkReader(master *os.File) (*chunkReader, error) { return &chunkReader{f: master}, nil }

// read reads what the master has.
func (r *chunkReader) read(buf []byte) (int, error) { return r.f.Read(buf) }

// setDeadline sets the master's read deadline.
func (r *chunkReader) setDeadline(t time.Time) error { return r.f.SetReadDeadline(t) }

// interrupt does nothing here: closing the master ends a read.
func (r *chunkReader) interrupt() {}

// close does nothing here: the reader holds no fd of its own.
func (r *chunkReader) close() {}
