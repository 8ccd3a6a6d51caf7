package web_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/attachclient"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
	"github.com/ptyhost/ptyhost/internal/testkit"
)

// TestBrowserSealedRoom: a host sealing its room (attachclient with a
// key), and the page given the key in its link's fragment: the page
// shows the screen and what a driver types reaches the program, though
// the relay reads none of it; the same page without the key says it
// needs a link with one, and stops.
func TestBrowserSealedRoom(t *testing.T) {
	bctx := startBrowser(t)
	r := startRelay(t)
	const room = "sealed"
	sess, err := ptyhost.Spawn(ptyhost.Spec{
		Command: []string{os.Args[0], "-test.run=^$"},
		Env:     []string{helperEnv + "=shell", "GORACE=atexit_sleep_ms=0"},
		Cols:    80, Rows: 24, Epoch: testEpoch,
	})
	if err != nil {
		t.Fatal(err)
	}
	key, err := seal.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	carried := make(chan error, 1)
	go func() {
		carried <- attachclient.RunHost(ctx, attachclient.HostConfig{
			AttachURL:   "ws://" + r.addr + "/v1/rooms/" + room,
			TokenSource: func(context.Context) (string, error) { return r.token(attachwire.RoleHost, room, ""), nil },
			Session:     sess.Agent(),
			Logger:      slog.New(slog.NewTextHandler(io.Discard, nil)),
			BackoffMin:  10 * time.Millisecond, BackoffMax: 200 * time.Millisecond,
			Key: key,
		})
	}()
	t.Cleanup(func() {
		cancel()
		<-carried
		sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer scancel()
		sess.Stop(sctx)
	})

	pg := page(t, bctx, r.pageURL(room, r.token(attachwire.RoleDriver, room, "dora"))+"&key="+key.Encode())
	waitScreen(t, pg, "ready>")
	waitHolding(t, pg)
	typeKeys(t, pg, "sealed in a browser\r")
	testkit.EventuallyDescribe(t, "the child to get the line", func() bool {
		scr, _, err := sess.Snapshot()
		return err == nil && strings.Contains(testkit.Text(scr), "got: sealed in a browser")
	}, func() string { scr, _, _ := sess.Snapshot(); return testkit.Text(scr) })
	waitScreen(t, pg, "got: sealed in a browser")

	nokey := page(t, bctx, r.pageURL(room, r.token(attachwire.RoleViewer, room, "vera")))
	var got string
	testkit.EventuallyDescribe(t, "the page without the key to say what it needs", func() bool {
		got = eval[string](t, nokey, `document.getElementById('notice').textContent`)
		return strings.Contains(got, "link that carries its key")
	}, func() string { return "notice: " + got })
	if st := pageStatus(t, nokey); st.Room != "stopped" {
		t.Errorf("the page without the key is %q, want stopped", st.Room)
	}
}
