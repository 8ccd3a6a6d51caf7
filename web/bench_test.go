package web_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
)

// BenchmarkBrowserEcho measures a keystroke at the browser to its echo
// painted in xterm.js, on loopback: the page timestamps the trusted
// keydown, and again at the first render after xterm has parsed the
// output holding the echoed character (the page's own input path, the
// relay both ways, the PTY's echo, the engine's decode and sanitizer,
// xterm's parse and paint). Run with -benchtime=200x for the figure in the
// docs; it reports the median and the 99th percentile.
func BenchmarkBrowserEcho(b *testing.B) {
	bctx := startBrowser(b)
	r := startRelay(b)
	startHost(b, r, "bench", "shell")
	ctx := page(b, bctx, r.pageURL("bench", r.token(attachwire.RoleDriver, "bench", "dora")))
	testkit.EventuallyDescribe(b, "the pen", func() bool { st := pageStatus(b, ctx); return st.Holding && st.Connected },
		func() string { return "" })
	if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(".xterm-helper-textarea"))); err != nil {
		b.Fatal(err)
	}
	key := func(k, code string, vk int64, text string) {
		for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeKeyDown, input.DispatchKeyEventTypeKeyUp} {
			ev := input.DispatchKeyEventParams{Type: typ, Key: k, Code: code, WindowsVirtualKeyCode: vk}
			if typ == input.DispatchKeyEventTypeKeyDown {
				ev.Text = text
			}
			if _, err := chromedp.Call(ctx, input.DispatchKeyEvent, ev); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i > 0 && i%50 == 0 {
			key("Enter", "Enter", 13, "\r")
		}
		c := 'a' + rune(i%26)
		key(string(c), fmt.Sprintf("Key%c", c-32), int64(c-32), string(c))
		deadline := time.Now().Add(10 * time.Second)
		for len(pageStatus(b, ctx).Latencies) < i+1 {
			if time.Now().After(deadline) {
				b.Fatalf("keystroke %d: no echo painted", i)
			}
			time.Sleep(time.Millisecond)
		}
	}
	b.StopTimer()
	lat := pageStatus(b, ctx).Latencies
	slices.Sort(lat)
	pct := func(p float64) float64 { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(0, "ns/op")
}
