package web

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
)

func get(t *testing.T, h http.Handler, method, path string, hdr map[string]string) *http.Response {
	t.Helper()
	r := httptest.NewRequest(method, path, nil)
	for k, v := range hdr {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Result()
}

func body(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// gz is s as one gzip member.
func gz(t testing.TB, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(s))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gunzip(t *testing.T, s string) string {
	t.Helper()
	zr, err := gzip.NewReader(strings.NewReader(s))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestHandlerNotBuilt: without the bundle, the page says how to build it
// and no file is served.
func TestHandlerNotBuilt(t *testing.T) {
	h := newHandler(fstest.MapFS{"README.md": {Data: []byte("placeholder")}})
	resp := get(t, h, "GET", "/v1/rooms/r1/view", nil)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body(t, resp), "go generate ./web") {
		t.Errorf("page without the bundle: %d, want 503 naming go generate ./web", resp.StatusCode)
	}
	for _, p := range []string{"/v1/viewer/app.js", "/v1/viewer/README.md"} {
		if resp := get(t, h, "GET", p, nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s without the bundle: %d, want 404", p, resp.StatusCode)
		}
	}
}

// testBundle is a bundle as the build stores it (every file gzipped) with
// a few files that must never be served.
func testBundle(t testing.TB) fstest.MapFS {
	concat := append(gz(t, "first"), gz(t, "second")...)
	return fstest.MapFS{
		"index.html.gz":  {Data: gz(t, "<!doctype html>page")},
		"app.js.gz":      {Data: gz(t, "js")},
		"app.css.gz":     {Data: gz(t, "css")},
		"engine.wasm.gz": {Data: gz(t, "\x00asm")},
		"README.md":      {Data: []byte("readme")},
		"notes.txt.gz":   {Data: gz(t, "no type")},
		"other.html.gz":  {Data: gz(t, "not the page")},
		"broken.js.gz":   {Data: []byte("\x1f\x8b not gzip")},
		"cut.js.gz":      {Data: gz(t, "cut short")[:20]},
		"two.js.gz":      {Data: concat},
		"dir.js.gz/x":    {Data: gz(t, "in a directory")},
	}
}

// TestHandlerServesBundle: the page with its confining headers, the files
// with exact types, gzipped as stored when the client takes gzip and
// inflated when it does not, and 404 for anything else, a file stored
// broken included.
func TestHandlerServesBundle(t *testing.T) {
	h := newHandler(testBundle(t))
	resp := get(t, h, "GET", "/v1/rooms/some%20room/view", nil)
	if resp.StatusCode != 200 || body(t, resp) != "<!doctype html>page" {
		t.Fatalf("page: %d", resp.StatusCode)
	}
	for k, want := range map[string]string{
		"Content-Type":            "text/html; charset=utf-8",
		"Content-Security-Policy": "connect-src 'self'",
		"Referrer-Policy":         "no-referrer",
		"X-Content-Type-Options":  "nosniff",
	} {
		if got := resp.Header.Get(k); !strings.Contains(got, want) {
			t.Errorf("page header %s = %q, want %q in it", k, got, want)
		}
	}
	resp = get(t, h, "GET", "/v1/rooms/r1/view", map[string]string{"Accept-Encoding": "gzip"})
	if b := body(t, resp); resp.Header.Get("Content-Encoding") != "gzip" || gunzip(t, b) != "<!doctype html>page" {
		t.Errorf("page to a gzip client: %q %q", resp.Header.Get("Content-Encoding"), b)
	}
	for _, tc := range []struct {
		path, accept, wantType, wantBody, wantEnc string
	}{
		{"/v1/viewer/app.js", "", "text/javascript; charset=utf-8", "js", ""},
		{"/v1/viewer/app.css", "identity", "text/css; charset=utf-8", "css", ""},
		{"/v1/viewer/engine.wasm", "", "application/wasm", "\x00asm", ""},
		{"/v1/viewer/engine.wasm", "br, gzip", "application/wasm", "\x00asm", "gzip"},
		{"/v1/viewer/app.js", "gzip;q=0.5", "text/javascript; charset=utf-8", "js", "gzip"},
		{"/v1/viewer/app.js", "gzip;q=0, br", "text/javascript; charset=utf-8", "js", ""},
		{"/v1/viewer/app.js", "GZIP ; q=1", "text/javascript; charset=utf-8", "js", "gzip"},
	} {
		resp := get(t, h, "GET", tc.path, map[string]string{"Accept-Encoding": tc.accept})
		b := body(t, resp)
		enc := resp.Header.Get("Content-Encoding")
		if enc == "gzip" {
			b = gunzip(t, b)
		}
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != tc.wantType || enc != tc.wantEnc || b != tc.wantBody {
			t.Errorf("%s (accept %q): %d %q %q %q", tc.path, tc.accept, resp.StatusCode,
				resp.Header.Get("Content-Type"), enc, b)
		}
		if resp.Header.Get("Vary") != "Accept-Encoding" || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: Vary %q, nosniff %q", tc.path, resp.Header.Get("Vary"), resp.Header.Get("X-Content-Type-Options"))
		}
	}
	head := get(t, h, "HEAD", "/v1/viewer/engine.wasm", nil)
	if head.Header.Get("Content-Length") != "4" || body(t, head) != "" {
		t.Errorf("HEAD: length %q", head.Header.Get("Content-Length"))
	}
	for _, p := range []string{"/v1/viewer/README.md", "/v1/viewer/index.html", "/v1/viewer/index.html.gz",
		"/v1/viewer/app.js.gz", "/v1/viewer/../web.go", "/v1/viewer/x/app.js", "/v1/viewer/missing.js",
		"/v1/viewer/notes.txt", "/v1/viewer/other.html", "/v1/viewer/broken.js", "/v1/viewer/cut.js",
		"/v1/viewer/two.js", "/v1/viewer/dir.js", "/v1/viewer/dir.js.gz/x", "/v1/viewer/", "/v1/rooms/r1", "/elsewhere"} {
		if resp := get(t, h, "GET", p, nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", p, resp.StatusCode)
		}
	}
	if resp := get(t, h, "POST", "/v1/rooms/r1/view", nil); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST page: %d, want 405", resp.StatusCode)
	}
}
