package web_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
)

// paintProbe runs in every document before its own scripts: it records,
// in ms since navigation, the first moment the terminal's rows hold the
// session's prompt, whichever page draws them.
const paintProbe = `(() => {
	const obs = new MutationObserver(() => {
		const rows = document.querySelector('.xterm-rows');
		if (window.__ptyhostPaint === undefined && rows && rows.textContent.includes('ready>')) {
			window.__ptyhostPaint = performance.now();
			obs.disconnect();
		}
	});
	obs.observe(document, { subtree: true, childList: true, characterData: true });
})()`

// loadJS reads what a load cost: the paint time, the bytes each request
// moved (Resource Timing's transferSize: 0 from the cache, the headers
// of a 304), and the viewer's start-up marks.
const loadJS = `(() => {
	const nav = performance.getEntriesByType('navigation')[0];
	const res = performance.getEntriesByType('resource').map((e) => ({ name: e.name, transfer: e.transferSize }));
	res.push({ name: 'page', transfer: nav ? nav.transferSize : 0 });
	const v = window.ptyhostViewer;
	return { paint: window.__ptyhostPaint ?? -1, res, marks: v ? v.marks : {} };
})()`

type pageLoad struct {
	Paint float64 `json:"paint"`
	Res   []struct {
		Name     string  `json:"name"`
		Transfer float64 `json:"transfer"`
	} `json:"res"`
	Marks map[string]float64 `json:"marks"`
}

func (l pageLoad) bytes() float64 {
	var n float64
	for _, r := range l.Res {
		n += r.Transfer
	}
	return n
}

// hashPart is the content hash in a bundle file's name.
var hashPart = regexp.MustCompile(`\.[0-9a-f]{16}\.`)

// assetName is a request's file name without its content hash.
func assetName(url string) string {
	if url == "page" {
		return url
	}
	return hashPart.ReplaceAllString(path.Base(url), ".")
}

// baselinePage serves the xterm.js-only page under /bench/xterm/: its
// files from testdata/xtermonly, gzipped and kept for good as the
// viewer's are, and the page writing text, revalidated by ETag as the
// viewer's is.
func baselinePage(tb testing.TB, text string) http.Handler {
	tb.Helper()
	files := map[string][]byte{}
	for _, name := range []string{"xtermonly.js", "xtermonly.css"} {
		b, err := os.ReadFile(filepath.Join("testdata", "xtermonly", name+".gz"))
		if err != nil {
			tb.Fatalf("the baseline page's files (go generate ./web builds them): %v", err)
		}
		files[name] = b
	}
	js, err := json.Marshal(text) // escapes <, > and &: safe in a script element
	if err != nil {
		tb.Fatal(err)
	}
	doc := []byte(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>xterm.js only</title>
<link rel="icon" href="data:,"><link rel="stylesheet" href="xtermonly.css">
<style>html, body { height: 100%; margin: 0; background: #000; } #term { height: 100%; padding: 4px; }</style>
</head><body><main id="term"></main><script type="application/json" id="text">` + string(js) + `</script>
<script src="xtermonly.js"></script></body></html>`)
	sum := sha256.Sum256(doc)
	etag := `"` + hex.EncodeToString(sum[:12]) + `"`
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/bench/xterm/")
		if name == "page" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-cache")
			w.Header().Set("ETag", etag)
			if r.Header.Get("If-None-Match") == etag {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			w.Write(doc)
			return
		}
		gz, ok := files[name]
		if !ok {
			http.NotFound(w, r)
			return
		}
		ct := "text/javascript; charset=utf-8"
		if path.Ext(name) == ".css" {
			ct = "text/css; charset=utf-8"
		}
		w.Header().Set("Content-Type", ct)
		w.Header().Set("Content-Encoding", "gzip") // Chromium takes gzip
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		w.Write(gz)
	})
}

// BenchmarkFirstPaint measures, in headless Chromium on loopback, the time
// from navigation to the session's text drawn, for the viewer page and
// for a page that loads only xterm.js from the same server and writes the
// same text; each cold (a new browser context: empty HTTP and code
// caches) and on a revisit (the same context, a new navigation). Each
// iteration measures the four, the two pages' order alternating. It
// reports the medians (viewer-cold-ms, xterm-cold-ms, their ratio
// cold-ratio, and the same for revisits), the bytes each load moved, the
// bytes of each file of a cold viewer load (<file>-B), and the viewer's
// start-up timeline (cold-<mark>-ms and revisit-<mark>-ms: boot, dial,
// open, app, compiled, engine, subscribe, snapshot, drawn; see Boot in
// src/link.ts: page-engine, the page's own engine's start, comes after
// the paint and is not read).
func BenchmarkFirstPaint(b *testing.B) {
	bctx := startBrowser(b)
	r := startRelay(b)
	h := startHost(b, r, "paint", "shell")
	testkit.EventuallyDescribe(b, "the child's prompt", func() bool { return strings.Contains(h.screenText(b), "ready>") },
		func() string { return h.screenText(b) })
	r.mu.Lock()
	r.extra = baselinePage(b, shellBanner())
	r.mu.Unlock()
	baseline := "http://" + r.addr + "/bench/xterm/page"

	// load opens url in a tab of ctx and waits for the text drawn.
	load := func(ctx context.Context, url string) pageLoad {
		lctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		if err := chromedp.Do(lctx, chromedp.Navigate("about:blank")); err != nil {
			b.Fatal(err)
		}
		if err := chromedp.Do(lctx, chromedp.Navigate(url)); err != nil {
			b.Fatalf("open %s: %v", url, err)
		}
		for {
			l := eval[pageLoad](b, lctx, loadJS)
			if l.Paint >= 0 {
				return l
			}
			if lctx.Err() != nil {
				b.Fatalf("%s: the text was never drawn", url)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	// visit measures url cold then on a revisit, in a new browser context.
	visit := func(url func() string) (cold, again pageLoad) {
		ctx, cancel := chromedp.NewContext(bctx, chromedp.WithNewBrowserContext())
		defer cancel()
		if _, err := chromedp.Call(ctx, cdppage.AddScriptToEvaluateOnNewDocument,
			cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: paintProbe}); err != nil {
			b.Fatal(err)
		}
		return load(ctx, url()), load(ctx, url())
	}
	viewer := func() string { return r.pageURL("paint", r.token(attachwire.RoleViewer, "paint", "vera")) }
	xterm := func() string { return baseline }

	var vc, va, xc, xa []pageLoad
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%2 == 0 {
			c, a := visit(viewer)
			vc, va = append(vc, c), append(va, a)
			c, a = visit(xterm)
			xc, xa = append(xc, c), append(xa, a)
		} else {
			c, a := visit(xterm)
			xc, xa = append(xc, c), append(xa, a)
			c, a = visit(viewer)
			vc, va = append(vc, c), append(va, a)
		}
	}
	b.StopTimer()

	paint := func(ls []pageLoad) float64 { return median(ls, func(l pageLoad) float64 { return l.Paint }) }
	moved := func(ls []pageLoad) float64 { return median(ls, pageLoad.bytes) }
	b.ReportMetric(paint(vc), "viewer-cold-ms")
	b.ReportMetric(paint(xc), "xterm-cold-ms")
	b.ReportMetric(paint(vc)/paint(xc), "cold-ratio")
	b.ReportMetric(paint(va), "viewer-revisit-ms")
	b.ReportMetric(paint(xa), "xterm-revisit-ms")
	b.ReportMetric(paint(va)/paint(xa), "revisit-ratio")
	b.ReportMetric(moved(vc), "viewer-cold-B")
	b.ReportMetric(moved(va), "viewer-revisit-B")
	b.ReportMetric(moved(xc), "xterm-cold-B")
	b.ReportMetric(moved(xa), "xterm-revisit-B")
	for _, name := range assetNames(vc) {
		b.ReportMetric(median(vc, func(l pageLoad) float64 { return l.transferOf(name) }), name+"-B")
	}
	for _, m := range []string{"boot", "dial", "open", "app", "compiled", "engine", "subscribe", "snapshot", "drawn"} {
		b.ReportMetric(median(vc, func(l pageLoad) float64 { return l.Marks[m] }), "cold-"+m+"-ms")
		b.ReportMetric(median(va, func(l pageLoad) float64 { return l.Marks[m] }), "revisit-"+m+"-ms")
	}
	b.ReportMetric(0, "ns/op")
	if testing.Verbose() {
		var tl bytes.Buffer
		for _, l := range vc {
			fmt.Fprintf(&tl, "cold viewer: paint %.1f ms, %v\n", l.Paint, sortedMarks(l.Marks))
		}
		b.Log("\n" + tl.String())
	}
}

func (l pageLoad) transferOf(name string) float64 {
	var n float64
	for _, r := range l.Res {
		if assetName(r.Name) == name {
			n += r.Transfer
		}
	}
	return n
}

// assetNames lists the files the loads requested, without their hashes.
func assetNames(ls []pageLoad) []string {
	var names []string
	for _, l := range ls {
		for _, r := range l.Res {
			if n := assetName(r.Name); !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	sort.Strings(names)
	return names
}

func median[T any](xs []T, f func(T) float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	v := make([]float64, len(xs))
	for i, x := range xs {
		v[i] = f(x)
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func sortedMarks(m map[string]float64) string {
	type kv struct {
		k string
		v float64
	}
	var s []kv
	for k, v := range m {
		s = append(s, kv{k, v})
	}
	sort.Slice(s, func(i, j int) bool { return s[i].v < s[j].v })
	var out []string
	for _, e := range s {
		out = append(out, fmt.Sprintf("%s %.1f", e.k, e.v))
	}
	return strings.Join(out, ", ")
}
