package engine

import (
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
)

// With PresenceCounts the subscribe asks for counts; a presence_count
// gives the total and the members to show, one without members keeps
// them, and a list afterwards is the whole room again.
func TestPresenceCounts(t *testing.T) {
	e := New(Options{SessionID: "s", PresenceCounts: true})
	fs, err := e.Subscribe(80, 24)
	if err != nil {
		t.Fatal(err)
	}
	c, err := attachwire.DecodeControl(fs[0].Payload)
	if sub, ok := c.(attachwire.Subscribe); err != nil || !ok || sub.Presence != attachwire.PresenceCounts {
		t.Fatalf("subscribe %+v (%v), want presence counts", c, err)
	}
	shown := []attachwire.Member{{UserID: "ann", ConnID: "1", Driving: true}, {UserID: "b\x1b[2Job", ConnID: "2"}}
	evs := apply(t, e, controlMsg(t, attachwire.PresenceCount{Total: 900, Members: shown}))
	if len(evs) != 1 || evs[0].Kind != Presence || evs[0].Total != 900 || len(evs[0].Members) != 2 {
		t.Fatalf("presence_count = %+v, want 900 with two shown", evs)
	}
	if strings.Contains(evs[0].Members[1].UserID, "\x1b") {
		t.Errorf("a shown name keeps its escape: %q", evs[0].Members[1].UserID)
	}
	evs = apply(t, e, controlMsg(t, attachwire.PresenceCount{Total: 901}))
	if evs[0].Total != 901 || len(evs[0].Members) != 2 {
		t.Fatalf("counts alone = %+v, want 901 with the two still shown", evs)
	}
	evs = apply(t, e, controlMsg(t, attachwire.Presence{Op: attachwire.PresenceList, Members: shown[:1]}))
	if evs[0].Total != 1 || len(evs[0].Members) != 1 {
		t.Fatalf("a list after counts = %+v, want ann alone", evs)
	}
	if f := e.RequestMembers(); f.Type != attachwire.TypeControl {
		t.Fatalf("RequestMembers = %s, want a control", f.Type)
	} else if c, err := attachwire.DecodeControl(f.Payload); err != nil || c != (attachwire.PresenceRequest{}) {
		t.Fatalf("RequestMembers decodes as %+v (%v)", c, err)
	}
	if fs, _ := New(Options{SessionID: "s"}).Subscribe(0, 0); strings.Contains(string(fs[0].Payload), "presence") {
		t.Errorf("a subscribe without PresenceCounts asks for them: %s", fs[0].Payload)
	}
}
