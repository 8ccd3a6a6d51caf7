//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package ptyhost

import "os"

// chunkReader reads the master.
type chunkReader struct{ f *os.File }

func newChunkReader(master *os.File) *chunkReader { return &chunkReader{f: master} }

// read reads what the master has.
func (r *chunkReader) read(buf []byte) (int, error) { return r.f.Read(buf) }

// readMore reads nothing here: plain reads of the master block.
func (r *chunkReader) readMore(buf []byte) int { return 0 }
