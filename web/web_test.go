package web

import (
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

// TestHandlerServesBundle: the page with its confining headers, the files
// with exact types, the gzip copy when accepted, and 404 for anything
// else.
func TestHandlerServesBundle(t *testing.T) {
	h := newHandler(fstest.MapFS{
		"index.html":     {Data: []byte("<!doctype html>page")},
		"app.js":         {Data: []byte("js")},
		"app.css":        {Data: []byte("css")},
		"engine.wasm":    {Data: []byte("\x00asm")},
		"engine.wasm.gz": {Data: []byte("gzipped")},
		"README.md":      {Data: []byte("readme")},
	})
	resp := get(t, h, "GET", "/v1/rooms/some%20room/view", nil)
	if resp.StatusCode != 200 || body(t, resp) != "<!doctype html>page" {
		t.Fatalf("page: %d", resp.StatusCode)
	}
	for k, want := range map[string]string{
		"Content-Security-Policy": "connect-src 'self'",
		"Referrer-Policy":         "no-referrer",
		"Cache-Control":           "no-store",
		"X-Content-Type-Options":  "nosniff",
	} {
		if got := resp.Header.Get(k); !strings.Contains(got, want) {
			t.Errorf("page header %s = %q, want %q in it", k, got, want)
		}
	}
	for _, tc := range []struct {
		path, accept, wantType, wantBody, wantEnc string
	}{
		{"/v1/viewer/app.js", "", "text/javascript; charset=utf-8", "js", ""},
		{"/v1/viewer/app.css", "", "text/css; charset=utf-8", "css", ""},
		{"/v1/viewer/engine.wasm", "", "application/wasm", "\x00asm", ""},
		{"/v1/viewer/engine.wasm", "br, gzip", "application/wasm", "gzipped", "gzip"},
	} {
		resp := get(t, h, "GET", tc.path, map[string]string{"Accept-Encoding": tc.accept})
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != tc.wantType ||
			resp.Header.Get("Content-Encoding") != tc.wantEnc || body(t, resp) != tc.wantBody {
			t.Errorf("%s (accept %q): %d %q %q", tc.path, tc.accept, resp.StatusCode,
				resp.Header.Get("Content-Type"), resp.Header.Get("Content-Encoding"))
		}
	}
	for _, p := range []string{"/v1/viewer/README.md", "/v1/viewer/index.html", "/v1/viewer/../web.go",
		"/v1/viewer/x/app.js", "/v1/viewer/missing.js", "/v1/rooms/r1", "/elsewhere"} {
		if resp := get(t, h, "GET", p, nil); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", p, resp.StatusCode)
		}
	}
	if resp := get(t, h, "POST", "/v1/rooms/r1/view", nil); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST page: %d, want 405", resp.StatusCode)
	}
}
