package relay_test

import (
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/relaytest"
)

// In a cluster the host on A takes the pen back from a driver on B and
// makes the session read-only: B's driver hears both, and its grab, which
// B forwards to A, is refused.
func TestClusterPenTakeAndReadOnlyAcrossNodes(t *testing.T) {
	ns := natsServer(t)
	nodes := startCluster(t, ns, "a", "b")
	a, b := nodes[0], nodes[1]
	h := hostOn(t, a.Server, a.Server, 1)
	d := relaytest.MustDial(t, b.RoomURL(room), a.DriverToken(t, room, "dan"),
		attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleDriver})
	relaytest.ExpectControl[attachwire.PenGranted](t, d)
	relaytest.ExpectControl[attachwire.PenGranted](t, h.c)

	if err := h.c.SendControl(ctxT(t), attachwire.PenTake{}); err != nil {
		t.Fatal(err)
	}
	if r := relaytest.ExpectControl[attachwire.PenRevoked](t, d); r.UserID != "dan" {
		t.Fatalf("driver on B got %+v", r)
	}
	if err := h.c.SendControl(ctxT(t), attachwire.ReadOnly{On: true}); err != nil {
		t.Fatal(err)
	}
	if ps := relaytest.ExpectControl[attachwire.PenState](t, d); !ps.ReadOnly {
		t.Fatalf("driver on B got %+v, want read-only", ps)
	}
	if err := d.SendControl(ctxT(t), attachwire.Grab{}); err != nil {
		t.Fatal(err)
	}
	if e := relaytest.ExpectControl[attachwire.ErrorControl](t, d); e.Code != attachwire.CodePenDenied || e.Retryable {
		t.Fatalf("grab on B while read-only: %+v, want pen-denied", e)
	}
}
