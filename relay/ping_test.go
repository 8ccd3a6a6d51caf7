package relay_test

import (
	"net/http"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/relaytest"
)

// A viewer that cannot send WebSocket pings (a browser page), or rides the
// degraded lane, sends a ping control when it has heard nothing for a
// while; the relay answers pong on the leg it came from, so the viewer's
// own silence rule sees a live path.
func TestPingIsAnsweredPong(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := dialHost(t, s, 1)
	h.snapshot("hi")

	t.Run("websocket", func(t *testing.T) {
		v := dialViewer(t, s, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer, attachwire.Subscribe{})
		if err := v.SendControl(ctxT(t), attachwire.Ping{}); err != nil {
			t.Fatal(err)
		}
		relaytest.ExpectControl[attachwire.Pong](t, v)
	})
	t.Run("lane", func(t *testing.T) {
		tok := s.ViewerToken(t, room, "bo")
		sse := openLaneViewer(t, s, tok, "")
		ping := relaytest.B64Control(t, attachwire.Ping{})
		viewerAnswer(t, postLane(t, s, "/input", tok, attachwire.ViewerBatch{BatchID: "p1", Controls: []string{ping}}), http.StatusOK)
		expectSSE[attachwire.Pong](t, sse)
	})
}
