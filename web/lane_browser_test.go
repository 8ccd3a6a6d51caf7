package web_test

import (
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
)

// TestBrowserOverTheLane: a driver page whose WebSocket is blocked (the
// page's own test switch, #nows=1) falls back to the degraded lane after
// three failed dials: it fetches a ticket, views the host's screen over
// EventSource and drives it with POSTs. With WebSocket allowed again it
// upgrades back within the probe period and goes on driving, each line
// typed reaching the program once. It saves a screenshot of the page on
// the lane under $TMPDIR.
func TestBrowserOverTheLane(t *testing.T) {
	bctx := startBrowser(t)
	r := startRelay(t)
	h := startHost(t, r, "lane", "shell")
	ctx := page(t, bctx, r.pageURL("lane", r.token(attachwire.RoleDriver, "lane", "lena"))+"&nows=1&probe=200")
	waitScreen(t, ctx, "ready>")
	if st := pageStatus(t, ctx); st.Carrier != "lane" || st.LaneConnects == 0 {
		t.Fatalf("carrier %q after %d lane legs, want the lane", st.Carrier, st.LaneConnects)
	}
	waitHolding(t, ctx)
	typeKeys(t, ctx, "typed over sse\r")
	testkit.EventuallyDescribe(t, "the child to get the line typed over the lane", func() bool {
		return strings.Contains(h.screenText(t), "got: typed over sse")
	}, func() string { return h.screenText(t) })
	waitScreen(t, ctx, "got: typed over sse")
	if hidden := eval[bool](t, ctx, `document.getElementById('carrier').hidden`); hidden {
		t.Fatal("the page on the lane does not show it")
	}
	saveScreenshot(t, ctx, "ptyhost-browser-lane.png")

	eval[any](t, ctx, `window.ptyhostViewer.blockWebSocket(false)`)
	var st viewerStatus
	testkit.EventuallyDescribe(t, "the upgrade back to WebSocket", func() bool {
		st = pageStatus(t, ctx)
		return st.Carrier == "websocket" && st.Connected
	}, func() string { return "carrier " + st.Carrier })
	if hidden := eval[bool](t, ctx, `document.getElementById('carrier').hidden`); !hidden {
		t.Fatal("the page back on WebSocket still shows the SSE fallback")
	}
	waitHolding(t, ctx)
	typeKeys(t, ctx, "back on websocket\r")
	testkit.EventuallyDescribe(t, "the child to get the line typed over WebSocket", func() bool {
		return strings.Contains(h.screenText(t), "got: back on websocket")
	}, func() string { return h.screenText(t) })
	waitScreen(t, ctx, "got: back on websocket")
	if n := strings.Count(h.screenText(t), "got: typed over sse"); n != 1 {
		t.Fatalf("the line typed over the lane reached the program %d times:\n%s", n, h.screenText(t))
	}
}
