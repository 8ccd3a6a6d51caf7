package attachwire

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// The counts form and its request encode as docs/protocol.md §6 says and
// decode back; members absent read as nil (the list shown stands).
func TestPresenceCountControls(t *testing.T) {
	for _, c := range []struct {
		ctl  Control
		json string
	}{
		{PresenceCount{Total: 1200}, `{"type":"presence_count","total":1200}`},
		{PresenceCount{Total: 2, Members: []Member{{UserID: "u", ConnID: "c", Role: RoleViewer}}, Complete: true},
			`{"type":"presence_count","total":2,"members":[{"userId":"u","connId":"c","role":"viewer","driving":false}],"complete":true}`},
		{PresenceRequest{}, `{"type":"presence_request"}`},
		{Subscribe{SessionID: "s", AsRole: RoleViewer, Presence: PresenceCounts},
			`{"type":"subscribe","sessionId":"s","asRole":"viewer","resumeFrom":null,"presence":"counts"}`},
	} {
		b, err := MarshalControl(c.ctl)
		if err != nil || string(b) != c.json {
			t.Errorf("%T encodes as %s (%v), want %s", c.ctl, b, err, c.json)
		}
		back, err := ParseControl(b)
		if err != nil || !reflect.DeepEqual(back, c.ctl) {
			t.Errorf("%s decodes as %+v (%v)", b, back, err)
		}
	}
}

// A malformed presence_count is a framing error, and a list past
// MaxPresenceMembers is refused both ways before it is allocated.
func TestPresenceCountMalformed(t *testing.T) {
	for _, doc := range []string{
		`{"type":"presence_count","total":-1}`,
		`{"type":"presence_count","total":"many"}`,
		`{"type":"presence_count","total":1,"members":{}}`,
		`{"type":"presence_count","total":1,"complete":1}`,
		`{"type":"presence_count","total":4294967296}`,
	} {
		_, err := ParseControl([]byte(doc))
		var fe *FramingError
		if !errors.As(err, &fe) {
			t.Errorf("%s: err %v, want a framing error", doc, err)
		}
	}
	if _, err := MarshalControl(PresenceCount{Members: make([]Member, MaxPresenceMembers+1)}); err == nil {
		t.Error("a presence_count past MaxPresenceMembers encoded")
	}
	long := `{"type":"presence_count","total":1,"members":[` + strings.Repeat(`{},`, MaxPresenceMembers) + `{}]}`
	if _, err := ParseControl([]byte(long)); err == nil {
		t.Error("a presence_count past MaxPresenceMembers decoded")
	}
}
