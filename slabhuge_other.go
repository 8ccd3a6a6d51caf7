//go:build !linux

package ptyhost

// newSlab returns a slab of size bytes; huge pages are advised on Linux
// only.
func newSlab(size int) []byte { return make([]byte, size) }

// hugeAdvised reports whether huge slabs are advised as huge pages: on
// Linux only.
func hugeAdvised() bool { return false }
