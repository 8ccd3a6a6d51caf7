package web

import (
	"embed"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

// AssetPrefix is the path under which Handler serves the bundle's files;
// the page refers to them relative to its own path
// (/v1/rooms/<id>/view → ../../viewer/…), so a relay mounted under a path
// prefix still works.
const AssetPrefix = "/v1/viewer/"

// PagePattern is the ServeMux pattern of the page, for a relay to route.
const PagePattern = "GET /v1/rooms/{room}/view"

// AssetPattern is the ServeMux pattern of the bundle's files.
const AssetPattern = "GET " + AssetPrefix

//go:embed all:dist
var dist embed.FS

// Handler returns the handler of the page and its files: PagePattern and
// AssetPattern both route to it. Built without the bundle, the page says
// how to build it and the files answer 404.
func Handler() http.Handler {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic("web: the embedded dist directory is missing: " + err.Error()) // a build fault, not input
	}
	return newHandler(sub)
}

// Built reports whether the bundle was built into this binary.
func Built() bool {
	_, err := fs.Stat(dist, "dist/index.html")
	return err == nil
}

// handler serves the page and the files of one bundle.
type handler struct {
	files fs.FS
	page  []byte // index.html, nil when the bundle is not built
}

func newHandler(files fs.FS) *handler {
	page, err := fs.ReadFile(files, "index.html")
	if err != nil {
		page = nil
	}
	return &handler{files: files, page: page}
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	switch p := r.URL.Path; {
	case strings.HasPrefix(p, AssetPrefix):
		h.asset(w, r, strings.TrimPrefix(p, AssetPrefix))
	case strings.HasPrefix(p, "/v1/rooms/") && strings.HasSuffix(p, "/view"):
		h.servePage(w)
	default:
		http.NotFound(w, r)
	}
}

// pagePolicy confines the page: scripts and the WebAssembly module only
// from the relay, connections only to it (the WebSocket), no framing, no
// referrer (the fragment never leaves the browser, and neither does the
// path). Inline styles are allowed because xterm.js writes its theme into
// a style element.
const pagePolicy = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; " +
	"style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

func (h *handler) servePage(w http.ResponseWriter) {
	hdr := w.Header()
	hdr.Set("Content-Type", "text/html; charset=utf-8")
	hdr.Set("Cache-Control", "no-store")
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Content-Security-Policy", pagePolicy)
	if h.page == nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(notBuiltPage))
		return
	}
	w.Write(h.page)
}

// notBuiltPage is what a relay built without the bundle shows.
const notBuiltPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ptyhost viewer not built</title></head>
<body><h1>The browser viewer is not built into this relay</h1>
<p>This relay binary was built without the browser viewer's bundle. From the
repository root, run</p>
<pre>go generate ./web
go build ./cmd/ptyhost</pre>
<p>(the first step needs Node.js with npm, and the npm registry, for
<code>npm ci</code>), then restart the relay. Terminal viewers can attach
meanwhile with <code>ptyhost attach</code>.</p>
</body></html>
`

// contentTypes are set explicitly: the page's policy needs exact types,
// and a system MIME table may lack application/wasm.
var contentTypes = map[string]string{
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".wasm": "application/wasm",
}

func (h *handler) asset(w http.ResponseWriter, r *http.Request, name string) {
	ct, ok := contentTypes[path.Ext(name)]
	if !ok || !fs.ValidPath(name) || strings.Contains(name, "/") {
		http.NotFound(w, r)
		return
	}
	b, err := fs.ReadFile(h.files, name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	hdr := w.Header()
	hdr.Set("Content-Type", ct)
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("X-Content-Type-Options", "nosniff")
	if gz, err := fs.ReadFile(h.files, name+".gz"); err == nil && acceptsGzip(r) {
		hdr.Set("Content-Encoding", "gzip")
		hdr.Set("Vary", "Accept-Encoding")
		b = gz
	}
	if r.Method == http.MethodHead {
		return
	}
	w.Write(b)
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(enc, "gzip") {
			return true
		}
	}
	return false
}
