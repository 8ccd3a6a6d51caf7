package relay

import (
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/ptyhost/ptyhost/attachwire"
)

// A leg whose writer cannot keep up with the relay's own controls
// (presence, pen, acks) is ended once maxQueuedControls are waiting: the
// writer sends what is queued, then error backpressure, then close 1008,
// and the close is counted. Nothing more is queued after that.
func TestControlQueueOverflowEndsLegWithBackpressure(t *testing.T) {
	rl := fuzzRelay(t)
	l := newLeg(rl, nil, attachwire.RoleViewer, "ann", "jti-1", rl.log)
	defer l.cancel()
	b, err := controlWire(attachwire.Presence{Op: attachwire.PresenceJoin})
	if err != nil {
		t.Fatal(err)
	}
	for range maxQueuedControls {
		l.sendWire(b)
	}
	if l.ending {
		t.Fatalf("ended with %d controls queued, the limit is %d", len(l.out), maxQueuedControls)
	}
	l.sendWire(b)
	l.mu.Lock()
	ending, ctl, code, out := l.ending, l.endErr, l.endCode, len(l.out)
	l.mu.Unlock()
	if !ending || ctl == nil || ctl.Code != attachwire.CodeBackpressure || code != 1008 {
		t.Fatalf("after one control too many: ending %v, error %+v, close %d; want backpressure and 1008", ending, ctl, code)
	}
	if out != maxQueuedControls {
		t.Fatalf("%d controls queued, want the %d before the overflow", out, maxQueuedControls)
	}
	l.sendWire(b)
	if len(l.out) != maxQueuedControls {
		t.Fatal("a control was queued on an ending leg")
	}
	var m dto.Metric
	if err := rl.metrics.backpressure.Write(&m); err != nil {
		t.Fatal(err)
	}
	if got := m.GetCounter().GetValue(); got != 1 {
		t.Fatalf("backpressure closes counted %v, want 1", got)
	}
}

func TestJoinLabelNamesGuests(t *testing.T) {
	for _, tc := range []struct {
		l    *leg
		want string
	}{
		{&leg{userID: "alice", role: attachwire.RoleDriver}, "join alice (driver)"},
		{&leg{userID: "guest-3k9x", role: attachwire.RoleViewer, name: "Ann \"A\"", guest: true}, `join guest-3k9x as "Ann \"A\"" (guest, viewer)`},
		{&leg{userID: "bob", role: attachwire.RoleViewer, name: "Bob"}, `join bob as "Bob" (viewer)`},
	} {
		if got := joinLabel(tc.l); got != tc.want {
			t.Errorf("joinLabel = %q, want %q", got, tc.want)
		}
	}
}
