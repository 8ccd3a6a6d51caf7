package web_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"log/slog"
	"strings"
	"testing"
	"time"

	cdpage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/issuer"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
	"golang.org/x/crypto/ssh"
)

// A short invite link opened in a browser: the relay's /s/ route leads to
// the page, which asks the person's name once (remembered for the next
// tab), redeems the invite, and shows the session, the guest in presence
// under a guest id. Revoking the link closes the page's leg.
func TestBrowserOpensAnInviteLink(t *testing.T) {
	bctx := startBrowser(t)
	_, sk, _ := ed25519.GenerateKey(rand.Reader)
	signer, _ := ssh.NewSignerFromKey(sk)
	users, _ := issuer.ParseAuthorizedKeys([]byte(strings.TrimSpace(string(ssh.MarshalAuthorizedKey(signer.PublicKey())))+" alice\n"), nil)
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	s := relaytest.NewServer(t, relay.Config{Logger: slog.New(slog.DiscardHandler), Issuer: &relay.IssuerConfig{Key: key, Users: users}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, _ := issuer.NewClient(s.HTTPURL, nil)
	if _, err := c.Login(ctx, signer); err != nil {
		t.Fatal(err)
	}
	room, _ := c.CreateRoom(ctx)
	ht, err := c.HostToken(ctx, room, testEpoch)
	if err != nil {
		t.Fatal(err)
	}
	epoch := uint64(testEpoch)
	h := relaytest.MustDial(t, s.RoomURL(room), ht.Token, attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleHost, Epoch: &epoch})
	defer h.WS.CloseNow()
	relaytest.ExpectControl[attachwire.SnapshotRequest](t, h)
	scr := &attachwire.Screen{Epoch: epoch, Cols: 5, Rows: 1, Primary: []attachwire.Cell{{Content: "h"}, {Content: "e"}, {Content: "l"}, {Content: "l"}, {Content: "o"}}}
	sn, _ := attachwire.NewSnapshot(0, scr)
	f, _ := sn.Frame(1, 0)
	h.Send(ctx, f)
	inv, err := c.CreateInvite(ctx, room, issuer.InviteRequest{Role: attachwire.RoleViewer, TTLSeconds: 600})
	if err != nil {
		t.Fatal(err)
	}

	// The first tab is asked for a name.
	tab, tcancel := chromedp.NewContext(bctx)
	defer tcancel()
	asked := make(chan string, 1)
	err = chromedp.Listen(tab, func(ev any) {
		if d, ok := ev.(*cdpage.EventJavascriptDialogOpening); ok {
			asked <- d.Message
			go chromedp.Call(tab, cdpage.HandleJavaScriptDialog, cdpage.HandleJavaScriptDialogParams{Accept: true, PromptText: "Ann"})
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(tab, chromedp.Navigate(c.Link(room, inv.Secret))); err != nil {
		t.Fatal(err)
	}
	select {
	case msg := <-asked:
		if !strings.Contains(msg, "name") {
			t.Errorf("the page asked %q", msg)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the page did not ask for a name")
	}
	testkit.Eventually(t, "the session on the page", func() bool { return strings.HasPrefix(pageScreen(t, tab), "hello") })
	st := pageStatus(t, tab)
	if len(st.Members) != 1 || !strings.HasPrefix(st.Members[0].UserID, "guest-") {
		t.Errorf("presence %+v, want one guest", st.Members)
	}

	// A second tab remembers the name: no question.
	tab2 := page(t, bctx, c.Link(room, inv.Secret))
	testkit.Eventually(t, "the second tab", func() bool { return len(pageStatus(t, tab2).Members) == 2 })

	if err := c.Revoke(ctx, room, inv.ID); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "the page told of the revocation", func() bool {
		return pageStatus(t, tab).Error == "auth" &&
			strings.Contains(eval[string](t, tab, `document.getElementById('notice').textContent`), "revoked")
	})
}
