package relay_test

import (
	"errors"
	"testing"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/issuer"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
)

// TestIssuerCluster: in a cluster of three nodes sharing one issuer key,
// a room and invites made on a admit viewers who redeem on b and on c; a
// link for one holder admits one over the whole cluster; revoking on a
// closes the holder on c, and no node lets it back.
func TestIssuerCluster(t *testing.T) {
	ns := natsServer(t)
	base := issuerConfig(t, quiet())
	nodes := startClusterWith(t, ns, base, "a", "b", "c")
	a, b, c := nodes[0].Server, nodes[1].Server, nodes[2].Server
	alice := loggedIn(t, a, "alice")
	room, h := sharedRoom(t, a, alice)
	watch := invite(t, alice, room, attachwire.RoleViewer, 3600, 0)
	one := invite(t, alice, room, attachwire.RoleViewer, 3600, 1)

	vb := attachAs(t, b, room, redeem(t, b, room, watch.Secret, "on b"))
	vc := attachAs(t, c, room, redeem(t, c, room, watch.Secret, "on c"))
	hs := &host{t: t, c: h, epoch: 1}
	hs.snapshot("hi")
	hs.output("across")
	for _, v := range []*relaytest.Conn{vb, vc} {
		if got := outputOf(t, untilFrame(t, v, attachwire.TypeOutput)); got != "across" {
			t.Fatalf("viewer got %q", got)
		}
	}

	// One holder at a time, whichever node it is on.
	spare := redeem(t, c, room, one.Secret, "second")
	attachAs(t, b, room, redeem(t, b, room, one.Secret, "first"))
	waitLegs(t, b, attachwire.RoleViewer, 2)
	expectClosed(t, attachAs(t, c, room, spare), websocket.StatusTryAgainLater, attachwire.CodeRateLimited)
	if _, err := issuerClient(t, a).Redeem(ctxT(t), room, one.Secret, "third"); !errors.Is(err, issuer.ErrFull) {
		t.Fatalf("third redemption: %v, want full", err)
	}

	if err := alice.Revoke(ctxT(t), room, watch.ID); err != nil {
		t.Fatal(err)
	}
	for _, v := range []*relaytest.Conn{vc, vb} {
		cl := expectClosed(t, v, websocket.StatusPolicyViolation, attachwire.CodeAuth)
		if cl.Err == nil || cl.Err.Message != relay.RevokedMessage {
			t.Fatalf("closed with %+v", cl.Err)
		}
	}
	for _, n := range []*relaytest.Server{a, b, c} {
		if _, err := issuerClient(t, n).Redeem(ctxT(t), room, watch.Secret, "again"); !errors.Is(err, issuer.ErrRevoked) {
			t.Fatalf("redeem on %s after revocation: %v", n.URL, err)
		}
	}
}

// TestIssuerClusterChallenge: a challenge given by node a is answered on
// node b (the nodes share challenges), and the same answer replayed on c
// is refused.
func TestIssuerClusterChallenge(t *testing.T) {
	ns := natsServer(t)
	nodes := startClusterWith(t, ns, issuerConfig(t, quiet()), "a", "b", "c")
	a, b, c := nodes[0].Server, nodes[1].Server, nodes[2].Server
	var ch issuer.ChallengeResponse
	if err := postJSON(t, a, "/v1/issuer/challenge", struct{}{}, &ch); err != nil {
		t.Fatal(err)
	}
	keys := sshKeys()
	// The signed host is the one the client dialed: b's.
	req := signedLogin(t, b, ch.Challenge, keys["alice"], keys["alice"].PublicKey())
	var out issuer.LoginResponse
	if err := postJSON(t, b, "/v1/issuer/login", req, &out); err != nil || out.User != "alice@laptop" {
		t.Fatalf("login on b with a's challenge: %+v %v", out, err)
	}
	req = signedLogin(t, c, ch.Challenge, keys["alice"], keys["alice"].PublicKey())
	if err := postJSON(t, c, "/v1/issuer/login", req, nil); !errors.Is(err, issuer.ErrChallengeInvalid) {
		t.Fatalf("replay on c: %v, want challenge-invalid", err)
	}
}
