package web_test

import (
	"crypto/ed25519"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/token"
)

// TestBrowserRefusedLinkSaysWhy: a link the relay will not admit ends on
// a sentence that says why (expired, damaged, a host's token, another
// room, a token the relay refuses) and stays on it, the page stopped,
// never dialling on to the degraded lane; so does a page whose origin the
// relay refuses; a link already open in another tab says so while the
// page keeps trying.
func TestBrowserRefusedLinkSaysWhy(t *testing.T) {
	bctx := startBrowser(t)
	r := startRelay(t)
	startHost(t, r, "refuse", "shell")
	_, otherKey, err := token.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	expiredTok := r.tokenWith(attachwire.RoleViewer, "refuse", "vera", func(c *token.Claims) ed25519.PrivateKey {
		c.IssuedAt -= 3600
		c.ExpiresAt = c.IssuedAt + 60
		return nil
	})
	for _, tc := range []struct {
		name, tok, want string
	}{
		{"expired", expiredTok, "This link has expired (at "},
		{"damaged", "not.a-token", "This link is damaged"},
		{"host token", r.token(attachwire.RoleHost, "refuse", ""), "holds a host's token"},
		{"another room", r.token(attachwire.RoleViewer, "elsewhere", "vera"), `is for another session ("elsewhere"), not this page's ("refuse")`},
		{"forged", r.tokenWith(attachwire.RoleViewer, "refuse", "vera", func(*token.Claims) ed25519.PrivateKey { return otherKey }),
			"This link is not valid on this relay"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := page(t, bctx, r.pageURL("refuse", tc.tok))
			notice := func() string { return eval[string](t, ctx, `document.getElementById('notice').textContent`) }
			var got string
			testkit.EventuallyDescribe(t, "the page to say why", func() bool {
				got = notice()
				return strings.Contains(got, tc.want)
			}, func() string { return "notice: " + got })
			// It stays: no redial, no lane, the same sentence.
			time.Sleep(3 * time.Second)
			st := pageStatus(t, ctx)
			if got2 := notice(); got2 != got || st.Room != "stopped" || st.Connected || st.LaneConnects != 0 {
				t.Errorf("after 3 s: notice %q (was %q), room %q, connected %v, lane legs %d", got2, got, st.Room, st.Connected, st.LaneConnects)
			}
			saveScreenshot(t, ctx, "ptyhost-refused-"+strings.ReplaceAll(tc.name, " ", "-")+".png")
			if bar := eval[string](t, ctx, `document.getElementById('bar').innerText`); strings.Contains(bar, "SSE") {
				t.Errorf("the bar shows the lane: %q", bar)
			}
		})
	}

	// A proxy that sends the relay its own Host but the page's Origin, as a
	// proxy set up without the relay's AllowedOrigins does.
	t.Run("origin refused", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		target := &url.URL{Scheme: "http", Host: r.addr}
		tr := &http.Transport{}
		srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: &httputil.ReverseProxy{
			Transport: tr, Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(target) },
		}}
		done := make(chan struct{})
		go func() {
			defer close(done)
			srv.Serve(ln)
		}()
		defer func() {
			srv.Close()
			<-done
			tr.CloseIdleConnections()
		}()
		tok := r.token(attachwire.RoleViewer, "refuse", "vera")
		ctx := page(t, bctx, "http://"+ln.Addr().String()+"/v1/rooms/refuse/view#token="+tok)
		var got string
		testkit.EventuallyDescribe(t, "the page to say its origin is refused", func() bool {
			got = eval[string](t, ctx, `document.getElementById('notice').textContent`)
			return strings.Contains(got, "does not take viewers from this page's address")
		}, func() string { return "notice: " + got })
		if st := pageStatus(t, ctx); st.Room != "stopped" {
			t.Errorf("room %q, want stopped", st.Room)
		}
	})

	t.Run("open in another tab", func(t *testing.T) {
		tok := r.token(attachwire.RoleViewer, "refuse", "vera")
		first := page(t, bctx, r.pageURL("refuse", tok))
		testkit.EventuallyDescribe(t, "the first tab to connect", func() bool { return pageStatus(t, first).Connected },
			func() string { return "" })
		second := page(t, bctx, r.pageURL("refuse", tok))
		var got string
		testkit.EventuallyDescribe(t, "the second tab to say the link is open elsewhere", func() bool {
			got = eval[string](t, second, `document.getElementById('notice').textContent`)
			return strings.Contains(got, "already open in another window or tab")
		}, func() string { return "notice: " + got })
		if st := pageStatus(t, second); st.Room == "stopped" {
			t.Errorf("the second tab stopped; it should keep trying until the first lets go")
		}
	})
}
