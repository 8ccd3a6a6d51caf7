package web_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
)

// TestRelayRoutesViewer: the relay sends the page and the asset paths to
// its Viewer handler and keeps the room path itself for the attach
// endpoint; with no Viewer it serves this package's page.
func TestRelayRoutesViewer(t *testing.T) {
	mark := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "viewer:"+r.URL.Path) })
	s := relaytest.NewServer(t, relay.Config{Viewer: mark})
	for _, p := range []string{"/v1/rooms/r1/view", "/v1/viewer/app.js"} {
		if code, b := s.Get(t, p); code != 200 || b != "viewer:"+p {
			t.Errorf("GET %s: %d %q, want the viewer handler", p, code, b)
		}
	}
	if code, b := s.Get(t, "/v1/rooms/r1"); strings.HasPrefix(b, "viewer:") || code == 200 {
		t.Errorf("GET the attach path without an upgrade: %d %q, want the attach endpoint's refusal", code, b)
	}
	def := relaytest.NewServer(t, relay.Config{})
	code, b := def.Get(t, "/v1/rooms/r1/view")
	if code != 200 && !(code == 503 && strings.Contains(b, "go generate ./web")) {
		t.Errorf("default page: %d %q", code, b)
	}
}
