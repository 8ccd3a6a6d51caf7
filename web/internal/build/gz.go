package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// hashedName is name with the first 64 bits of its content's SHA-256
// before the extension: app.js → app.0123456789abcdef.js.
func hashedName(name string, content []byte) string {
	sum := sha256.Sum256(content)
	ext := filepath.Ext(name)
	return strings.TrimSuffix(name, ext) + "." + hex.EncodeToString(sum[:8]) + ext
}

// refer renames the page's reference to name (src="../../viewer/name"
// or href=…); a page that does not name it is an
// error, as the file would never load.
func refer(page []byte, name, hashed string) ([]byte, error) {
	old, repl := `"../../viewer/`+name+`"`, `"../../viewer/`+hashed+`"`
	if n := bytes.Count(page, []byte(old)); n != 1 {
		return nil, fmt.Errorf("build: src/index.html names %s %d times, want once", name, n)
	}
	return bytes.ReplaceAll(page, []byte(old), []byte(repl)), nil
}
