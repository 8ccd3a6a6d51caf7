package viewer

import (
	"errors"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
)

// Presence names, pen holders and error messages are UI strings: control
// characters and bidi overrides never reach the caller, whatever the relay
// sends (the relay's tokens refuse them too; the viewer does not count on
// it).
func TestUIStringsFromTheRelay(t *testing.T) {
	const evil = "ev\x1b]52;c;eA==\x07il\u202ename\x9b6n"
	c := newTestClient(t)
	var got []Event
	c.cfg.OnEvent = func(ev Event) { got = append(got, ev) }
	for _, ctl := range []attachwire.Control{
		attachwire.Presence{Op: attachwire.PresenceList, Members: []attachwire.Member{{UserID: evil, ConnID: "c1", Name: evil, Guest: true}}},
		attachwire.PenState{HolderUserID: evil, HolderConnID: "c1", PenGeneration: 1},
	} {
		f, err := attachwire.ControlFrame(ctl)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.apply(f); err != nil {
			t.Fatal(err)
		}
	}
	f, _ := attachwire.ControlFrame(attachwire.ErrorControl{Code: attachwire.CodeAuth, Message: evil})
	err := c.apply(f)
	var re *RefusedError
	if !errors.As(err, &re) {
		t.Fatalf("non-retryable error control: %v", err)
	}
	if m := c.Presence()[0]; m.Name == "" || !m.Guest {
		t.Errorf("presence member %+v lost its name or guest mark", m)
	}
	for _, s := range []string{c.Presence()[0].UserID, c.Presence()[0].Name, c.Pen().HolderUserID, re.Message, got[0].Members[0].UserID, got[1].Pen.HolderUserID} {
		if strings.ContainsAny(s, "\x1b\x07\u202e\u009b") {
			t.Errorf("UI string %q holds a control character", s)
		}
		if !strings.HasPrefix(s, "ev") {
			t.Errorf("UI string %q lost its text", s)
		}
	}
}
