//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package ptyhost

import "os"

// readChunk reads what the master has.
func readChunk(master *os.File, buf []byte) (int, error) { return master.Read(buf) }
