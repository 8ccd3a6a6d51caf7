package relay_test

import (
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/token"
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

// In a cluster a proposal from the host on A reaches a driver on B, whose
// decision B forwards to A stamped; a proposer on B is no pen holder
// there either, and its propose reaches the host on A stamped.
func TestClusterProposalsAcrossNodes(t *testing.T) {
	ns := natsServer(t)
	nodes := startCluster(t, ns, "a", "b")
	a, b := nodes[0], nodes[1]
	h := hostOn(t, a.Server, a.Server, 1)
	d := relaytest.MustDial(t, b.RoomURL(room), a.DriverToken(t, room, "dan"),
		attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleDriver})
	relaytest.ExpectControl[attachwire.PenGranted](t, d)

	p := attachwire.Proposal{ID: "p1", State: attachwire.ProposalPending, Text: "ls\r", FromUserID: "agent"}
	if err := h.c.SendControl(ctxT(t), p); err != nil {
		t.Fatal(err)
	}
	if got := relaytest.ExpectControl[attachwire.Proposal](t, d); got != p {
		t.Fatalf("driver on B got %+v", got)
	}
	if err := d.SendControl(ctxT(t), attachwire.Decision{ID: "p1", Verdict: attachwire.VerdictApprove}); err != nil {
		t.Fatal(err)
	}
	if got := relaytest.ExpectControl[attachwire.Decision](t, h.c); got.ID != "p1" || got.ByUserID != "dan" {
		t.Fatalf("host on A got %+v", got)
	}

	pt := a.Token(t, token.Claims{RoomID: room, Role: attachwire.RoleDriver, UserID: "guest-1", Name: "Ada", Propose: true})
	pr := relaytest.MustDial(t, b.RoomURL(room), pt, attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleDriver})
	relaytest.ExpectControl[attachwire.PenState](t, pr)
	if err := pr.SendControl(ctxT(t), attachwire.Propose{Text: "make\r"}); err != nil {
		t.Fatal(err)
	}
	if got := relaytest.ExpectControl[attachwire.Propose](t, h.c); got.Text != "make\r" || got.FromUserID != "guest-1" || got.FromName != "Ada" {
		t.Fatalf("host on A got %+v", got)
	}
}
