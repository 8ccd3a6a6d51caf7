package viewer_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/viewer"
)

// output returns the Data of every Output event so far.
func (r *recorder) output() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b []byte
	for _, ev := range r.events {
		if ev.Kind == viewer.EventOutput {
			b = append(b, ev.Data...)
		}
	}
	return b
}

// Every Output goes through the Client's own sanitizer: the Viewer
// profile drops the mouse mode the relay's Driver pass lets through, the
// pen holder's Driver profile keeps it, and no query or clipboard write
// reaches either.
func TestOutputSanitizedByRole(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := newHost(t, s, 1, 40, 10)
	v, vrec := dial(t, s.URL, s.ViewerToken(t, room, "vic"), attachwire.RoleViewer)
	d, drec := dial(t, s.URL, s.DriverToken(t, room, "dan"), attachwire.RoleDriver)
	testkit.Eventually(t, "dan holds the pen", func() bool { return d.Pen().Mine })
	testkit.Eventually(t, "vic sees the pen", func() bool { return v.Pen().HolderUserID == "dan" })
	h.output([]byte("a\x1b[?1000hb\x1b]52;c;aGk=\x07c\x1bP$qm\x1b\\d\x1b[6ne\x1b[c"))
	_, at := h.screen()
	waitAt(t, v, at)
	waitAt(t, d, at)
	for who, out := range map[string][]byte{"viewer": vrec.output(), "driver": drec.output()} {
		for _, bad := range []string{"\x1b]52", "\x1bP", "\x1b[6n", "\x1b[c"} {
			if bytes.Contains(out, []byte(bad)) {
				t.Errorf("%s output %q holds %q", who, out, bad)
			}
		}
		if !strings.Contains(strings.ReplaceAll(string(out), "\x1b[?1000h", ""), "abcde") {
			t.Errorf("%s output %q lost the text", who, out)
		}
	}
	if bytes.Contains(vrec.output(), []byte("?1000h")) {
		t.Errorf("viewer output %q turns mouse tracking on", vrec.output())
	}
	if !bytes.Contains(drec.output(), []byte("?1000h")) {
		t.Errorf("driver output %q lost mouse tracking", drec.output())
	}
}
