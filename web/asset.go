package web

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
)

// contentTypes are set explicitly: the page's policy needs exact types,
// and a system MIME table may lack application/wasm. A name with another
// extension is never served.
var contentTypes = map[string]string{
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".wasm": "application/wasm",
	".html": "text/html; charset=utf-8",
}

// asset is one file of the bundle as stored: a gzip stream, sent as it is
// to a client that takes gzip and inflated on the way to one that does
// not.
type asset struct {
	gz    []byte
	size  int64 // inflated
	ctype string
}

// loadAsset reads name.gz from files and checks that it is one whole
// gzip member.
func loadAsset(files fs.FS, name string) (*asset, error) {
	gz, err := fs.ReadFile(files, name+".gz")
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	zr.Multistream(false)
	n, err := io.Copy(io.Discard, zr)
	if err != nil {
		return nil, err
	}
	if len(gz) < 4 || uint32(n) != binary.LittleEndian.Uint32(gz[len(gz)-4:]) {
		return nil, errors.New("web: " + name + ".gz is not one gzip member")
	}
	return &asset{gz: gz, size: n, ctype: contentTypes[path.Ext(name)]}, nil
}

// serve writes the asset's body (none for HEAD) with its type and
// encoding; other headers are the caller's.
func (a *asset) serve(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("Content-Type", a.ctype)
	hdr.Set("Vary", "Accept-Encoding")
	if acceptsGzip(r) {
		hdr.Set("Content-Encoding", "gzip")
		hdr.Set("Content-Length", strconv.Itoa(len(a.gz)))
		if r.Method != http.MethodHead {
			w.Write(a.gz)
		}
		return
	}
	hdr.Set("Content-Length", strconv.FormatInt(a.size, 10))
	if r.Method == http.MethodHead {
		return
	}
	zr, err := gzip.NewReader(bytes.NewReader(a.gz))
	if err != nil {
		return // checked by loadAsset
	}
	io.Copy(w, zr)
}

// acceptsGzip reports whether the request's Accept-Encoding takes gzip
// (with a q-value above zero).
func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(enc), "gzip") {
			continue
		}
		q, ok := strings.CutPrefix(strings.TrimSpace(params), "q=")
		if !ok {
			return true
		}
		v, err := strconv.ParseFloat(q, 64)
		return err == nil && v > 0
	}
	return false
}
