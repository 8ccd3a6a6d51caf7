package relay_test

import (
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/relaytest"
)

// TestClusterPenAfterTheOwnerDied: a driver that dials a mirror again
// once the room's owner has died, before any node has taken the room
// over, is granted the pen there, at a generation above the one the dead
// owner gave it: a client keeps the newest pen it heard of and would
// ignore an older one, and its keys would be refused under the old.
func TestClusterPenAfterTheOwnerDied(t *testing.T) {
	nodes := startCluster(t, natsServer(t), "a", "b")
	a, b := nodes[0], nodes[1]
	hostOn(t, a.Server, a.Server, 1)
	tok := a.DriverToken(t, room, "dan")
	d := relaytest.MustDial(t, b.RoomURL(room), tok, attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleDriver})
	old := relaytest.ExpectControl[attachwire.PenGranted](t, d).PenGeneration

	a.kill()
	d.WS.CloseNow()
	waitLegs(t, b.Server, attachwire.RoleDriver, 0)
	d = relaytest.MustDial(t, b.RoomURL(room), tok, attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleDriver})
	g := relaytest.ExpectControl[attachwire.PenGranted](t, d)
	if g.PenGeneration <= old {
		t.Fatalf("the mirror granted the pen at generation %d, not above the dead owner's %d", g.PenGeneration, old)
	}
	input(t, d, 1, g.PenGeneration, "", "k")
	// The host comes back through the mirror, which takes the room over:
	// the key typed meanwhile under the mirror's pen reaches it.
	h := hostOn(t, a.Server, b.Server, 1)
	if in := hostInput(t, h); string(in.Data) != "k" {
		t.Fatalf("the host got %q, want k", in.Data)
	}
	for {
		ctl, err := relaytest.NextControl[attachwire.Control](ctxT(t), d)
		if err != nil {
			t.Fatal(err)
		}
		switch c := ctl.(type) {
		case attachwire.InputAck:
			if c.AckInputSeq == 1 {
				return
			}
		case attachwire.PenRevoked:
			t.Fatalf("the key typed under the mirror's grant was refused: %+v", c)
		}
	}
}
