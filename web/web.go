package web

import (
	"embed"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"sync"
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
// AssetPattern both route to it. Built without the bundle (its files
// deleted from dist), the page says how to build it and the files answer
// 404. The bundle is checked (each file inflated once) at the first
// request any of them serves, not by every relay a process starts: a
// process pays for it once, and one that never serves the page never.
func Handler() http.Handler { return lazyHandler{} }

// lazyHandler serves with the embedded handler, made at its first use.
type lazyHandler struct{}

func (lazyHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	embedded().ServeHTTP(w, r)
}

// embedded is the handler of the bundle in this binary, which never
// changes and which the handler only reads.
var embedded = sync.OnceValue(func() *handler {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic("web: the embedded dist directory is missing: " + err.Error()) // a build fault, not input
	}
	return newHandler(sub)
})

// Built reports whether the bundle is in this binary. It is committed,
// so only a tree whose dist was emptied builds without it.
func Built() bool {
	_, err := fs.Stat(dist, "dist/"+pageFile+".gz")
	return err == nil
}

// pageFile is the page's name in the bundle.
const pageFile = "index.html"

// handler serves the page and the files of one bundle.
type handler struct {
	assets map[string]*asset // by the name under AssetPrefix
	page   *asset            // nil when the bundle is not built
}

func newHandler(files fs.FS) *handler {
	h := &handler{assets: map[string]*asset{}}
	ents, _ := fs.ReadDir(files, ".")
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".gz")
		if !ok || e.IsDir() {
			continue
		}
		a, err := loadAsset(files, name)
		if err != nil {
			continue // not a file of the bundle: never served
		}
		if name == pageFile {
			h.page = a
		} else if a.ctype != "" && path.Ext(name) != ".html" {
			h.assets[name] = a
		}
	}
	return h
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	switch p := r.URL.Path; {
	case strings.HasPrefix(p, AssetPrefix):
		a := h.assets[strings.TrimPrefix(p, AssetPrefix)]
		if a == nil {
			http.NotFound(w, r)
			return
		}
		hdr := w.Header()
		hdr.Set("Cache-Control", assetCaching)
		hdr.Set("X-Content-Type-Options", "nosniff")
		a.serve(w, r)
	case strings.HasPrefix(p, "/v1/rooms/") && strings.HasSuffix(p, "/view"):
		h.servePage(w, r)
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

// assetCaching lets a browser keep a file of the bundle for good: its
// name is its content's hash, so new content comes under a new name.
const assetCaching = "public, max-age=31536000, immutable"

// The page is kept but revalidated on every visit (its ETag answers 304
// while the bundle is the same), so a new bundle's names reach a
// returning browser at once. It holds no secret: the token stays in the
// fragment.
const pageCaching = "no-cache"

func (h *handler) servePage(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("Content-Type", "text/html; charset=utf-8")
	hdr.Set("Cache-Control", pageCaching)
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Content-Security-Policy", pagePolicy)
	if h.page == nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(notBuiltPage))
		return
	}
	h.page.serve(w, r)
}

// notBuiltPage is what a relay built from a tree without the bundle shows.
const notBuiltPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ptyhost viewer not built</title></head>
<body><h1>The browser viewer is not built into this relay</h1>
<p>This relay binary was built from a tree whose browser viewer bundle
(web/dist) is missing. Restore it from the repository, or rebuild it from
the repository root with</p>
<pre>go generate ./web
go build ./cmd/ptyhost</pre>
<p>(the first step needs Node.js with npm, and the npm registry, for
<code>npm ci</code>), then restart the relay. Terminal viewers can attach
meanwhile with <code>ptyhost attach</code>.</p>
</body></html>
`
