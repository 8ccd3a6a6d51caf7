package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relaytest"
)

// TestBrowserLateJoinerSeesTheExitStatus: a viewer page that opens after
// the session ended, once the relay holds the post-Exit snapshot (so no
// ring replay through Exit can tell it), shows the final screen and the
// exit banner with the session's status, over WebSocket and over the
// lane.
func TestBrowserLateJoinerSeesTheExitStatus(t *testing.T) {
	bctx := startBrowser(t)
	r := startRelay(t)
	const room = "late"
	h := startHost(t, r, room, "shell")
	probe := func() attachwire.Frame {
		c := relaytest.MustDial(t, "ws://"+r.addr+"/v1/rooms/"+room, r.token(attachwire.RoleViewer, room, "probe"),
			attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer})
		defer c.Close()
		return relaytest.NextFrame(t, c)
	}
	testkit.EventuallyDescribe(t, "the program's prompt", func() bool { return strings.Contains(h.screenText(t), "ready>") }, func() string { return h.screenText(t) })
	h.sess.WriteInput([]byte("exit 3\r"))
	select {
	case <-h.sess.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the program did not exit")
	}
	if ex, ok := h.sess.Exit(); !ok || ex.Code != 3 {
		t.Fatalf("the program's exit %+v %v, want 3", ex, ok)
	}
	// A joiner served from the cached final snapshot starts with a seq-0
	// snapshot; before the cache, with an in-ring one at a seq of its own
	// (whose tail carries the Exit).
	var first attachwire.Frame
	testkit.EventuallyDescribe(t, "the relay to cache the final snapshot", func() bool {
		first = probe()
		return first.Type == attachwire.TypeSnapshot && first.Seq == 0
	}, func() string { return "first frame " + first.Type.String() })

	for _, tc := range []struct{ name, frag, carrier string }{
		{"websocket", "", "websocket"},
		{"lane", "&nows=1", "lane"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := page(t, bctx, r.pageURL(room, r.token(attachwire.RoleViewer, room, "late-"+tc.name))+tc.frag)
			waitScreen(t, ctx, "color 3")
			var st viewerStatus
			testkit.EventuallyDescribe(t, "the exit banner", func() bool {
				st = pageStatus(t, ctx)
				return st.Exit != "" && st.Room == "ended"
			}, func() string { return "status: room " + st.Room + ", exit " + st.Exit + ", carrier " + st.Carrier })
			if banner := eval[string](t, ctx, `document.getElementById('exit').innerText`); !strings.Contains(banner, "exited with status 3") {
				t.Errorf("exit banner %q, want the status 3", banner)
			}
			if st.Carrier != tc.carrier {
				t.Errorf("carrier %q, want %q", st.Carrier, tc.carrier)
			}
		})
	}
}
