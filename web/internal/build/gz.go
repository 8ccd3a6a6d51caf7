package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
)

// compress returns b as one gzip member at the best compression, with an
// empty header (no name, no modification time) so that the same bytes
// always give the same stream under the same Go.
func compress(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(b); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeGz stores b compressed as dir/name.gz.
func writeGz(dir, name string, b []byte) error {
	gz, err := compress(b)
	if err != nil {
		return fmt.Errorf("build: gzip %s: %w", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".gz"), gz, 0o644); err != nil {
		return fmt.Errorf("build: %w", err)
	}
	return nil
}

// clean removes what a previous build left in dir, all but its README.
func clean(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("build: %w", err)
	}
	for _, e := range ents {
		if e.Name() == "README.md" {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("build: %w", err)
		}
	}
	return nil
}
