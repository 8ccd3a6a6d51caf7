package web

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// FuzzServe sends the handler any path, Accept-Encoding and
// If-None-Match: it answers 200, 304, 404 or 405 and never panics, and a
// 200 body is the file, gzipped exactly when the answer says so.
func FuzzServe(f *testing.F) {
	f.Add("GET", "/v1/viewer/app.js", "gzip", "")
	f.Add("GET", "/v1/rooms/r1/view", "gzip;q=0, identity", `"x"`)
	f.Add("HEAD", "/v1/viewer/engine.wasm", "br;q=1.0, gzip;q=0.5", "*")
	f.Add("GET", "/v1/viewer/../index.html", ",,;;q=", `W/"a", "b"`)
	h := newHandler(testBundle(f))
	f.Fuzz(func(t *testing.T, method, target, accept, inm string) {
		r, err := http.NewRequest(method, "http://relay.test/", nil)
		if err != nil {
			return
		}
		r.URL.Path = target
		r.Header.Set("Accept-Encoding", accept)
		r.Header.Set("If-None-Match", inm)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		switch w.Code {
		case 200, 304, 404, 405:
		default:
			t.Fatalf("%s %q: status %d", method, target, w.Code)
		}
		if w.Code != 200 || method == http.MethodHead {
			return
		}
		b := w.Body.Bytes()
		if w.Header().Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("%q: gzip answer that is not gzip: %v", target, err)
			}
			if b, err = io.ReadAll(zr); err != nil {
				t.Fatalf("%q: %v", target, err)
			}
		}
		if len(b) == 0 {
			t.Fatalf("%q: empty body", target)
		}
	})
}
