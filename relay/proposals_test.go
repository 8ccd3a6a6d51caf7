package relay_test

import (
	"testing"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/token"
)

func hostSays(t testing.TB, h *host, c attachwire.Control) {
	t.Helper()
	if err := h.c.SendControl(ctxT(t), c); err != nil {
		t.Fatal(err)
	}
}

// A host's proposal reaches every driver and viewer, and late joiners; only
// the pen holder's decision reaches the host, stamped with the holder's
// identity whatever the leg claimed; the outcome clears it for everyone.
func TestProposalsPassAndOnlyTheHolderDecides(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := dialHost(t, s, 1)
	d, _ := driverWithPen(t, s, "ada")
	v := dialViewer(t, s, s.ViewerToken(t, room, "vic"), attachwire.RoleViewer, attachwire.Subscribe{})
	relaytest.ExpectControl[attachwire.PenState](t, v)

	p := attachwire.Proposal{ID: "p1", State: attachwire.ProposalPending, Text: "ls\r", FromUserID: "agent", ExpiresAt: 99}
	hostSays(t, h, p)
	for _, c := range []*relaytest.Conn{d, v} {
		if got := relaytest.ExpectControl[attachwire.Proposal](t, c); got != p {
			t.Fatalf("viewer got %+v, want %+v", got, p)
		}
	}
	late := dialViewer(t, s, s.ViewerToken(t, room, "lee"), attachwire.RoleViewer, attachwire.Subscribe{})
	if got := relaytest.ExpectControl[attachwire.Proposal](t, late); got != p {
		t.Fatalf("late joiner got %+v", got)
	}

	// A viewer without the pen is refused.
	if err := v.SendControl(ctxT(t), attachwire.Decision{ID: "p1", Verdict: attachwire.VerdictApprove}); err != nil {
		t.Fatal(err)
	}
	if e := relaytest.ExpectControl[attachwire.ErrorControl](t, v); e.Code != attachwire.CodePenDenied {
		t.Fatalf("non-holder's decision: %+v", e)
	}
	// The holder's decision is stamped.
	if err := d.SendControl(ctxT(t), attachwire.Decision{ID: "p1", Verdict: attachwire.VerdictEdit, Text: "ls -l\r", ByUserID: "mallory"}); err != nil {
		t.Fatal(err)
	}
	got := relaytest.ExpectControl[attachwire.Decision](t, h.c)
	if got.ID != "p1" || got.Verdict != attachwire.VerdictEdit || got.Text != "ls -l\r" || got.ByUserID != "ada" || got.ByConnID == "" {
		t.Fatalf("host got %+v", got)
	}
	// The outcome goes to everyone and is not sent to later joiners.
	out := attachwire.Proposal{ID: "p1", State: attachwire.ProposalEdited, Text: "ls -l\r", FromUserID: "agent", ByUserID: "ada"}
	hostSays(t, h, out)
	if got := relaytest.ExpectControl[attachwire.Proposal](t, v); got != out {
		t.Fatalf("outcome %+v", got)
	}
	v2 := dialViewer(t, s, s.ViewerToken(t, room, "zed"), attachwire.RoleViewer, attachwire.Subscribe{})
	relaytest.ExpectControl[attachwire.PenState](t, v2)
	hostSays(t, h, attachwire.Proposal{ID: "p2", State: attachwire.ProposalPending, Text: "pwd\r", FromUserID: "agent"})
	if got := relaytest.ExpectControl[attachwire.Proposal](t, v2); got.ID != "p2" {
		t.Fatalf("after the outcome a joiner got %+v first, want p2", got)
	}
	// A decision on what is no longer pending goes nowhere; the next
	// control the host gets is about p2.
	d.SendControl(ctxT(t), attachwire.Decision{ID: "p1", Verdict: attachwire.VerdictApprove})
	d.SendControl(ctxT(t), attachwire.Decision{ID: "p2", Verdict: attachwire.VerdictReject})
	if got := relaytest.ExpectControl[attachwire.Decision](t, h.c); got.ID != "p2" {
		t.Fatalf("host got %+v, want the decision on p2", got)
	}
}

// A host binding again withdraws what the relay kept (the host announces
// anew what is still pending); a malformed proposal is the host's framing
// error, a malformed decision the driver's, and a viewer may not propose
// as a host does.
func TestProposalsWithdrawnOnRebindAndMalformedRefused(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := dialHost(t, s, 1)
	v := dialViewer(t, s, s.ViewerToken(t, room, "vic"), attachwire.RoleViewer, attachwire.Subscribe{})
	relaytest.ExpectControl[attachwire.PenState](t, v)
	hostSays(t, h, attachwire.Proposal{ID: "p1", State: attachwire.ProposalPending, Text: "x", FromUserID: "agent"})
	relaytest.ExpectControl[attachwire.Proposal](t, v)
	h.c.Close()
	waitHostGone(t, s)
	h2 := dialHost(t, s, 1)
	if got := relaytest.ExpectControl[attachwire.Proposal](t, v); got.ID != "p1" || got.State != attachwire.ProposalWithdrawn {
		t.Fatalf("on the host's rebind: %+v", got)
	}
	hostSays(t, h2, attachwire.Proposal{ID: "bad id", State: attachwire.ProposalPending, Text: "x"})
	expectClosed(t, h2.c, websocket.StatusProtocolError, attachwire.CodeFraming)

	d, _ := driverWithPen(t, s, "ada")
	d.SendControl(ctxT(t), attachwire.Decision{ID: "p1", Verdict: "maybe"})
	expectClosed(t, d, websocket.StatusProtocolError, attachwire.CodeFraming)
	v.SendControl(ctxT(t), attachwire.Proposal{ID: "p9", State: attachwire.ProposalPending, Text: "x"})
	expectClosed(t, v, websocket.StatusProtocolError, attachwire.CodeFraming)
}

// A driver whose token has prop never holds the pen (not a free one on
// joining, not by grab), and its propose controls reach the host stamped
// with its identity; a plain driver's are refused.
func TestProposerProposesAndNeverHoldsThePen(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := dialHost(t, s, 1)
	tok := s.Token(t, token.Claims{RoomID: room, Role: attachwire.RoleDriver, UserID: "guest-1", Name: "Ada", Propose: true})
	p := dialViewer(t, s, tok, attachwire.RoleDriver, attachwire.Subscribe{})
	if ps := relaytest.ExpectControl[attachwire.PenState](t, p); ps.HolderConnID != "" {
		t.Fatalf("a proposer took the free pen: %+v", ps)
	}
	p.SendControl(ctxT(t), attachwire.Grab{})
	if e := relaytest.ExpectControl[attachwire.ErrorControl](t, p); e.Code != attachwire.CodePenDenied || !e.Retryable {
		t.Fatalf("a proposer's grab: %+v", e)
	}
	p.SendControl(ctxT(t), attachwire.Propose{Text: "make test\r", FromUserID: "root"})
	got := relaytest.ExpectControl[attachwire.Propose](t, h.c)
	if got.Text != "make test\r" || got.FromUserID != "guest-1" || got.FromName != "Ada" || got.FromConnID == "" {
		t.Fatalf("host got %+v", got)
	}
	d, _ := driverWithPen(t, s, "dan")
	d.SendControl(ctxT(t), attachwire.Propose{Text: "x"})
	if e := relaytest.ExpectControl[attachwire.ErrorControl](t, d); e.Code != attachwire.CodePenDenied {
		t.Fatalf("a plain driver's propose: %+v", e)
	}
	p.SendControl(ctxT(t), attachwire.Propose{Text: ""})
	expectClosed(t, p, websocket.StatusProtocolError, attachwire.CodeFraming)
}
