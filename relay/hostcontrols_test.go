package relay_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/token"
)

// guestToken mints a viewer or driver token as an invite's redemption
// does: a guest userId, a display name and the invite's id.
func guestToken(t testing.TB, s *relaytest.Server, role attachwire.Role, user, name string) string {
	t.Helper()
	return s.Token(t, token.Claims{RoomID: room, Role: role, UserID: user, Name: name, Invite: "inv1"})
}

// hostPresence returns the next presence control of op the host gets.
func hostPresence(t testing.TB, h *host, op attachwire.PresenceOp) attachwire.Presence {
	t.Helper()
	for {
		p := relaytest.ExpectControl[attachwire.Presence](t, h.c)
		if p.Op == op {
			return p
		}
	}
}

// The host leg is told who is here (the list on binding, then joins and
// leaves) with each member's name and guest mark, and the pen's changes.
func TestHostReceivesPresenceAndPen(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	early := dialViewer(t, s, s.ViewerToken(t, room, "vic"), attachwire.RoleViewer, attachwire.Subscribe{})
	relaytest.ExpectControl[attachwire.Presence](t, early)
	h := dialHostNoWait(t, s, 1) // the list comes before the bind's snapshot_request
	list := hostPresence(t, h, attachwire.PresenceList)
	if len(list.Members) != 1 || list.Members[0].UserID != "vic" || list.Members[0].Name != "" || list.Members[0].Guest {
		t.Fatalf("host's presence list %+v, want vic alone, no name, not a guest", list.Members)
	}
	if ps := relaytest.ExpectControl[attachwire.PenState](t, h.c); ps.HolderConnID != "" || ps.ReadOnly {
		t.Fatalf("host's pen_state %+v, want a free pen", ps)
	}

	g := dialViewer(t, s, guestToken(t, s, attachwire.RoleViewer, "guest-a1", "Ada"), attachwire.RoleViewer, attachwire.Subscribe{})
	own := relaytest.ExpectControl[attachwire.Presence](t, g)
	named := false
	for _, m := range own.Members {
		named = named || m.Name == "Ada" && m.Guest && m.UserID == "guest-a1"
	}
	if !named {
		t.Fatalf("the guest's own presence list %+v lacks its name", own.Members)
	}
	j := hostPresence(t, h, attachwire.PresenceJoin)
	if m := j.Members[0]; m.Name != "Ada" || !m.Guest || m.UserID != "guest-a1" || m.ConnID == "" {
		t.Fatalf("host got join %+v, want Ada as a guest", m)
	}
	if p := relaytest.ExpectControl[attachwire.Presence](t, early); p.Members[0].Name != "Ada" || !p.Members[0].Guest {
		t.Fatalf("a viewer got join %+v, want Ada as a guest", p.Members[0])
	}

	d, gen := driverWithPen(t, s, "dan")
	if pg := relaytest.ExpectControl[attachwire.PenGranted](t, h.c); pg.UserID != "dan" || pg.PenGeneration != gen {
		t.Fatalf("host got pen_granted %+v, want dan's", pg)
	}
	d.Close()
	if l := hostPresence(t, h, attachwire.PresenceLeave); l.Members[0].UserID != "dan" {
		t.Fatalf("host got leave %+v, want dan's", l.Members)
	}
}

// kick closes the participant with error auth, refuses its token from
// then on, revokes its pen at once and tells everyone it left.
func TestKickClosesAndRefusesTheJTI(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := dialHost(t, s, 1)
	tok := guestToken(t, s, attachwire.RoleDriver, "guest-m1", "Mal")
	d := dialViewer(t, s, tok, attachwire.RoleDriver, attachwire.Subscribe{})
	relaytest.ExpectControl[attachwire.PenGranted](t, d)
	v := dialViewer(t, s, s.ViewerToken(t, room, "vic"), attachwire.RoleViewer, attachwire.Subscribe{})
	relaytest.ExpectControl[attachwire.Presence](t, v)
	j := hostPresence(t, h, attachwire.PresenceJoin)
	conn := j.Members[0].ConnID
	relaytest.ExpectControl[attachwire.PenGranted](t, h.c)

	if err := h.c.SendControl(ctxT(t), attachwire.Kick{ConnID: conn, Reason: "spam"}); err != nil {
		t.Fatal(err)
	}
	cl := expectClosed(t, d, websocket.StatusPolicyViolation, attachwire.CodeAuth)
	if cl.Err == nil || cl.Err.Message != "removed by the host" || cl.Err.Retryable {
		t.Fatalf("kicked leg's error %+v, want auth \"removed by the host\", not retryable", cl.Err)
	}
	if r := relaytest.ExpectControl[attachwire.PenRevoked](t, h.c); r.ConnID != conn {
		t.Fatalf("host got pen_revoked %+v, want the kicked leg's", r)
	}
	if l := relaytest.ExpectControl[attachwire.Presence](t, v); l.Op != attachwire.PresenceLeave || l.Members[0].ConnID != conn {
		t.Fatalf("viewer got %+v, want the kicked leg's leave", l)
	}

	// The same token again: refused before it is admitted.
	again, _, err := relaytest.Dial(ctxT(t), s.RoomURL(room), tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := again.SendControl(ctxT(t), attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleDriver}); err != nil {
		t.Fatal(err)
	}
	cl = expectClosed(t, again, websocket.StatusPolicyViolation, attachwire.CodeAuth)
	if cl.Err == nil || cl.Err.Message != "removed by the host" {
		t.Fatalf("redial's error %+v, want auth \"removed by the host\"", cl.Err)
	}
	// Another token of the same user is a new connection, not the kicked one.
	dialViewer(t, s, guestToken(t, s, attachwire.RoleViewer, "guest-m1", "Mal"), attachwire.RoleViewer, attachwire.Subscribe{})
	if j := hostPresence(t, h, attachwire.PresenceJoin); j.Members[0].ConnID == conn {
		t.Fatal("a fresh token joined with the kicked connId")
	}
}

// A kick of a token no leg holds refuses it when it comes, however late
// (within a token's life): a host revokes a link it minted that way.
func TestKickOfAnAbsentTokenRefusesIt(t *testing.T) {
	cfg := quiet()
	clock := newFakeClock()
	cfg.Now = clock.Now
	s := relaytest.NewServer(t, cfg)
	h := dialHost(t, s, 1)
	tok := s.Token(t, token.Claims{RoomID: room, Role: attachwire.RoleViewer, UserID: "viewer", JTI: "link-1",
		ExpiresAt: time.Now().Add(24 * time.Hour).Unix()})
	if err := h.c.SendControl(ctxT(t), attachwire.Kick{ConnID: "link-1"}); err != nil {
		t.Fatal(err)
	}
	// The kick and the dial race: the host's answer to a read_only it
	// sends after the kick orders them.
	if err := h.c.SendControl(ctxT(t), attachwire.ReadOnly{}); err != nil {
		t.Fatal(err)
	}
	relaytest.ExpectControl[attachwire.PenState](t, h.c)
	clock.Advance(time.Hour)
	c, _, err := relaytest.Dial(ctxT(t), s.RoomURL(room), tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SendControl(ctxT(t), attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer}); err != nil {
		t.Fatal(err)
	}
	expectClosed(t, c, websocket.StatusPolicyViolation, attachwire.CodeAuth)
}

// read_only revokes the holder's pen, refuses grab (pen-denied, not
// retryable) and keeps a joining driver from the free pen; off, a grab
// works again. Everyone, the host too, gets pen_state with readOnly.
func TestReadOnlyRefusesGrab(t *testing.T) {
	cfg := quiet()
	cfg.PenCooldown = time.Nanosecond
	s := relaytest.NewServer(t, cfg)
	h := dialHost(t, s, 1)
	d, _ := driverWithPen(t, s, "dan")
	relaytest.ExpectControl[attachwire.PenGranted](t, h.c)

	if err := h.c.SendControl(ctxT(t), attachwire.ReadOnly{On: true}); err != nil {
		t.Fatal(err)
	}
	relaytest.ExpectControl[attachwire.PenRevoked](t, d)
	if ps := relaytest.ExpectControl[attachwire.PenState](t, d); !ps.ReadOnly || ps.HolderConnID != "" {
		t.Fatalf("driver got pen_state %+v, want read-only and free", ps)
	}
	relaytest.ExpectControl[attachwire.PenRevoked](t, h.c)
	if ps := relaytest.ExpectControl[attachwire.PenState](t, h.c); !ps.ReadOnly {
		t.Fatalf("host got pen_state %+v, want read-only", ps)
	}
	if err := d.SendControl(ctxT(t), attachwire.Grab{}); err != nil {
		t.Fatal(err)
	}
	if e := relaytest.ExpectControl[attachwire.ErrorControl](t, d); e.Code != attachwire.CodePenDenied || e.Retryable {
		t.Fatalf("grab while read-only: %+v, want pen-denied, not retryable", e)
	}
	late := dialViewer(t, s, s.DriverToken(t, room, "lee"), attachwire.RoleDriver, attachwire.Subscribe{})
	if ps := relaytest.ExpectControl[attachwire.PenState](t, late); !ps.ReadOnly || ps.HolderConnID != "" {
		t.Fatalf("a driver joining a read-only room got %+v, want a free read-only pen", ps)
	}

	if err := h.c.SendControl(ctxT(t), attachwire.ReadOnly{On: false}); err != nil {
		t.Fatal(err)
	}
	if ps := relaytest.ExpectControl[attachwire.PenState](t, d); ps.ReadOnly {
		t.Fatalf("driver got pen_state %+v, want read-only off", ps)
	}
	if err := d.SendControl(ctxT(t), attachwire.Grab{}); err != nil {
		t.Fatal(err)
	}
	if g := relaytest.ExpectControl[attachwire.PenGranted](t, d); g.UserID != "dan" {
		t.Fatalf("grab after read-only off: %+v", g)
	}
}

// pen_take revokes the holder's pen; the host hears of it like everyone.
func TestPenTake(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := dialHost(t, s, 1)
	d, gen := driverWithPen(t, s, "dan")
	relaytest.ExpectControl[attachwire.PenGranted](t, h.c)
	if err := h.c.SendControl(ctxT(t), attachwire.PenTake{}); err != nil {
		t.Fatal(err)
	}
	if r := relaytest.ExpectControl[attachwire.PenRevoked](t, d); r.UserID != "dan" || r.PenGeneration <= gen {
		t.Fatalf("holder got pen_revoked %+v", r)
	}
	if r := relaytest.ExpectControl[attachwire.PenRevoked](t, h.c); r.UserID != "dan" {
		t.Fatalf("host got pen_revoked %+v", r)
	}
	// Its Input is dropped now.
	input(t, d, 1, gen, "", "x")
	relaytest.ExpectControl[attachwire.PenRevoked](t, d)
}

// A host control from a driver or viewer is a framing error.
func TestHostControlFromAViewerIsFraming(t *testing.T) {
	for _, c := range []attachwire.Control{attachwire.Kick{ConnID: "x"}, attachwire.PenTake{}, attachwire.ReadOnly{On: true}} {
		t.Run(c.ControlType(), func(t *testing.T) {
			s := relaytest.NewServer(t, quiet())
			dialHost(t, s, 1)
			d, _ := driverWithPen(t, s, "dan")
			if err := d.SendControl(ctxT(t), c); err != nil {
				t.Fatal(err)
			}
			expectClosed(t, d, websocket.StatusProtocolError, attachwire.CodeFraming)
		})
	}
}

// In a cluster the host on A kicks a participant on B: B closes it, A
// tells the host it left, and the token is refused on B afterwards.
func TestClusterKickAcrossNodes(t *testing.T) {
	ns := natsServer(t)
	nodes := startCluster(t, ns, "a", "b")
	a, b := nodes[0], nodes[1]
	h := hostOn(t, a.Server, a.Server, 1)
	tok := a.Token(t, token.Claims{RoomID: room, Role: attachwire.RoleDriver, UserID: "guest-b", Name: "Bea", Invite: "inv1"})
	d := relaytest.MustDial(t, b.RoomURL(room), tok, attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleDriver})
	relaytest.ExpectControl[attachwire.PenGranted](t, d)
	j := hostPresence(t, h, attachwire.PresenceJoin)
	if m := j.Members[0]; m.Name != "Bea" || !m.Guest {
		t.Fatalf("host on A got join %+v, want Bea as a guest (from B)", m)
	}
	if err := h.c.SendControl(ctxT(t), attachwire.Kick{ConnID: j.Members[0].ConnID}); err != nil {
		t.Fatal(err)
	}
	cl := expectClosed(t, d, websocket.StatusPolicyViolation, attachwire.CodeAuth)
	if cl.Err == nil || cl.Err.Message != "removed by the host" {
		t.Fatalf("kicked leg on B: %+v", cl.Err)
	}
	if l := hostPresence(t, h, attachwire.PresenceLeave); l.Members[0].ConnID != j.Members[0].ConnID {
		t.Fatalf("host got leave %+v", l.Members)
	}
	// Redialled on B: B's room asks A, which refuses the token.
	ctx, cancel := context.WithTimeout(context.Background(), relaytest.Timeout)
	defer cancel()
	for {
		again, _, err := relaytest.Dial(ctx, b.RoomURL(room), tok, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := again.SendControl(ctx, attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleDriver}); err != nil {
			t.Fatal(err)
		}
		cl := relaytest.ExpectClose(t, again)
		if cl.Err != nil && cl.Err.Code == attachwire.CodeAuth && cl.Err.Retryable {
			// The kicked leg's jti is still live on B for a moment.
			time.Sleep(50 * time.Millisecond)
			continue
		}
		if cl.Status != websocket.StatusPolicyViolation || cl.Err == nil || cl.Err.Message != "removed by the host" {
			t.Fatalf("redial on B: %v %q %+v, want auth \"removed by the host\"", cl.Status, cl.Reason, cl.Err)
		}
		break
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatal("redial never refused")
	}
}

// A browser on the lane, admitted by a ticket, shows in presence with its
// token's name and guest mark.
func TestLaneTicketCarriesTheName(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := dialHost(t, s, 1)
	r := postLane(t, s, "/sse-ticket", guestToken(t, s, attachwire.RoleViewer, "guest-l", "Lin"), struct{}{})
	var tr struct {
		Ticket string `json:"ticket"`
	}
	if r.Status != http.StatusOK || json.Unmarshal(r.Body, &tr) != nil {
		t.Fatalf("sse-ticket: %d %s", r.Status, r.Body)
	}
	v, _, err := relaytest.DialSSE(ctxT(t), relaytest.LaneURL(s.RoomURL(room), "/sse?ticket="+tr.Ticket), "")
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if m := hostPresence(t, h, attachwire.PresenceJoin).Members[0]; m.Name != "Lin" || !m.Guest || m.UserID != "guest-l" {
		t.Fatalf("host got %+v, want Lin as a guest", m)
	}
}
