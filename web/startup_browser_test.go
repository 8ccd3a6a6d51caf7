package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
)

// TestBrowserStartsAtOnceAndRevisitsFromCache: the WebSocket dial starts
// before the engine's WebAssembly is compiled (the boot script starts
// both), the snapshot is decoded and drawn, and a second visit moves at
// most 10 KB: the page answers 304 to its ETag and every other file comes
// from the cache, named for its content and kept for good.
func TestBrowserStartsAtOnceAndRevisitsFromCache(t *testing.T) {
	bctx := startBrowser(t)
	r := startRelay(t)
	h := startHost(t, r, "boot", "shell")
	testkit.EventuallyDescribe(t, "the child's prompt", func() bool { return strings.Contains(h.screenText(t), "ready>") },
		func() string { return h.screenText(t) })
	ctx, cancel := chromedp.NewContext(bctx, chromedp.WithNewBrowserContext())
	defer cancel()
	if err := chromedp.Do(ctx); err != nil { // the tab, with no deadline of its own
		t.Fatal(err)
	}

	visit := func() pageLoad {
		t.Helper()
		url := r.pageURL("boot", r.token(attachwire.RoleViewer, "boot", "vera"))
		nctx, ncancel := context.WithTimeout(ctx, 30*time.Second)
		defer ncancel()
		if err := chromedp.Do(nctx, chromedp.Navigate("about:blank"), chromedp.Navigate(url)); err != nil {
			t.Fatalf("open %s: %v", url, err)
		}
		var got, want string
		testkit.EventuallyDescribe(t, "the page's screen to equal the host's", func() bool {
			got, want = pageScreen(t, ctx), h.screenText(t)
			return got == want
		}, func() string { return "page:\n" + got + "\nhost:\n" + want })
		var l pageLoad
		testkit.EventuallyDescribe(t, "the start-up marks", func() bool {
			l = eval[pageLoad](t, ctx, loadJS)
			return l.Marks["drawn"] > 0
		}, func() string { return sortedMarks(l.Marks) })
		return l
	}

	cold := visit()
	m := cold.Marks
	t.Logf("cold: %s; %.0f bytes", sortedMarks(m), cold.bytes())
	if !(m["boot"] <= m["dial"] && m["dial"] < m["compiled"] && m["compiled"] <= m["engine"]) {
		t.Errorf("the dial did not start before the engine compiled: %s", sortedMarks(m))
	}
	if !(m["open"] <= m["subscribe"] && m["engine"] <= m["subscribe"] && m["subscribe"] < m["snapshot"] && m["snapshot"] <= m["drawn"]) {
		t.Errorf("start-up out of order: %s", sortedMarks(m))
	}
	if cold.transferOf("engine.wasm") < 100_000 || cold.transferOf("page") == 0 {
		t.Errorf("a cold load that did not fetch the engine and the page: %+v", cold.Res)
	}

	again := visit()
	t.Logf("revisit: %s; %.0f bytes", sortedMarks(again.Marks), again.bytes())
	if n := again.bytes(); n > 10_000 {
		t.Errorf("a revisit moved %.0f bytes, want at most 10 KB: %+v", n, again.Res)
	}
	for _, res := range again.Res {
		if assetName(res.Name) != "page" && res.Transfer != 0 {
			t.Errorf("a revisit fetched %s again (%.0f bytes)", res.Name, res.Transfer)
		}
	}
}
