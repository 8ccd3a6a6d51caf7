package web_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/faultproxy"
	"github.com/ptyhost/ptyhost/internal/testkit"
)

// TestBrowserNoticesABlackHoledPath: the path between the page and the
// relay goes silent without closing (a black hole: both directions
// stalled). The page, which cannot send WebSocket pings, pings with a
// control after a fifth of its silence timeout (#silence shortens it) and
// drops the leg when nothing came back; once the path is back it is
// connected again and shows what the program wrote meanwhile.
func TestBrowserNoticesABlackHoledPath(t *testing.T) {
	bctx := startBrowser(t)
	r := startRelay(t)
	h := startHost(t, r, "hole", "shell")
	p, err := faultproxy.New(r.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	url := strings.Replace(r.pageURL("hole", r.token(attachwire.RoleViewer, "hole", "vera")), r.addr, p.Addr(), 1) + "&silence=1500"
	ctx := page(t, bctx, url)
	waitScreen(t, ctx, "ready>")
	// Quiet for twice the silence timeout on a live path: the pongs keep
	// the leg up.
	before := pageStatus(t, ctx)
	time.Sleep(3 * time.Second)
	if st := pageStatus(t, ctx); !st.Connected || st.Connects != before.Connects {
		t.Fatalf("a quiet but live path was dropped: %+v (before %+v)", st, before)
	}
	p.Stall(faultproxy.Upstream)
	p.Stall(faultproxy.Downstream)
	var st viewerStatus
	testkit.EventuallyDescribe(t, "the page to drop the silent leg", func() bool {
		st = pageStatus(t, ctx)
		return !st.Connected
	}, func() string { return fmt.Sprintf("status %+v", st) })
	h.sess.WriteInput([]byte("written in the black hole\n"))
	p.Release(faultproxy.Upstream)
	p.Release(faultproxy.Downstream)
	testkit.EventuallyDescribe(t, "the page to reconnect", func() bool {
		st = pageStatus(t, ctx)
		return st.Connected && st.Connects > before.Connects
	}, func() string { return fmt.Sprintf("status %+v", st) })
	waitScreen(t, ctx, "got: written in the black hole")
}
