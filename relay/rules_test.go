package relay_test

import (
	"crypto/ed25519"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/token"
)

// A new generation (a higher epoch, on a vacant room or superseding a live
// host) discards the ring and forces every viewer to a snapshot of the new
// epoch after a room_state: none of them is served another frame of the
// old stream, and a resume against the old epoch is a miss.
func TestNewGenerationSnapshotToEveryViewer(t *testing.T) {
	for _, supersede := range []bool{false, true} {
		t.Run(fmt.Sprintf("supersede=%v", supersede), func(t *testing.T) {
			s := relaytest.NewServer(t, quiet())
			h := dialHost(t, s, 5)
			h.snapshot("old")
			h.output("x")
			viewers := make([]*relaytest.Conn, 3)
			for i := range viewers {
				viewers[i] = dialViewer(t, s, s.ViewerToken(t, room, fmt.Sprint("v", i)), attachwire.RoleViewer, attachwire.Subscribe{})
				snapshotOf(t, relaytest.NextFrame(t, viewers[i]))
				if got := outputOf(t, relaytest.NextFrame(t, viewers[i])); got != "x" {
					t.Fatalf("viewer %d: %q", i, got)
				}
			}
			if !supersede {
				h.c.Close()
				waitHostGone(t, s)
			}
			h2 := dialHost(t, s, 6)
			h2.snapshot("new")
			h2.output("y")
			for i, v := range viewers {
				var st attachwire.RoomState
				for st.State != attachwire.RoomLive {
					st = relaytest.ExpectControl[attachwire.RoomState](t, v)
				}
				_, scr := snapshotOf(t, relaytest.NextFrame(t, v))
				if scr.Epoch != 6 || text(scr) != "new" {
					t.Fatalf("viewer %d: snapshot of epoch %d %q, want epoch 6 \"new\"", i, scr.Epoch, text(scr))
				}
				if got := outputOf(t, relaytest.NextFrame(t, v)); got != "y" {
					t.Fatalf("viewer %d: then %q, want y", i, got)
				}
			}
			late := dialViewer(t, s, s.ViewerToken(t, room, "late"), attachwire.RoleViewer,
				attachwire.Subscribe{ResumeFrom: u64(1), ResumeEpoch: u64(5)})
			if _, scr := snapshotOf(t, relaytest.NextFrame(t, late)); scr.Epoch != 6 {
				t.Fatalf("a resume against the old epoch got a snapshot of epoch %d", scr.Epoch)
			}
		})
	}
}

// Browsers' Origin must be the relay's own or an allowed one, whichever
// way the token travels; native clients send none. A refusal is 403
// before the upgrade and counted.
func TestAdmissionOriginRefused(t *testing.T) {
	s := relaytest.NewServer(t, relay.Config{Logger: discardLogger(), DialsPerSecond: 1e6,
		AllowedOrigins: []string{"https://app.example"}})
	viewer := s.ViewerToken(t, room, "ann")
	origin := func(o string, bearer bool) *relaytest.DialOptions {
		return &relaytest.DialOptions{BearerSubprotocol: bearer, Header: http.Header{"Origin": {o}}}
	}
	refused := 0
	for _, tc := range []struct {
		name   string
		opts   *relaytest.DialOptions
		status int
	}{
		{"foreign origin", origin("https://evil.example", false), 403},
		{"foreign origin, bearer subprotocol", origin("https://evil.example", true), 403},
		{"opaque origin null", origin("null", true), 403},
		{"own host on another port", origin("http://127.0.0.1:1", true), 403},
		{"allowed origin as a prefix", origin("https://app.example.evil", true), 403},
		{"allowed origin with a path", origin("https://app.example/x", true), 403},
		{"allowed origin", origin("https://app.example", true), 101},
		{"own origin", origin(s.HTTPURL, true), 101},
		{"no origin (native client)", nil, 101},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if resp := dialStatus(t, s.RoomURL(room), viewer, tc.opts); resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
			// The accepted dials reuse one token: let each leg end before the next.
			waitLegs(t, s, attachwire.RoleViewer, 0)
		})
		if tc.status == 403 {
			refused++
		}
	}
	if got := metric(t, s, `ptyhost_relay_refusals_total{reason="origin"}`); got != float64(refused) {
		t.Fatalf("origin refusals counted %v, want %d", got, refused)
	}
}

// The relay holds several public keys (rotation): a token signed by any of
// them is admitted, one signed by a key it does not hold is not.
func TestAdmissionKeyRotation(t *testing.T) {
	newPub, newPriv, err := token.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	_, strangerPriv, err := token.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	cfg := quiet()
	cfg.PublicKeys = []ed25519.PublicKey{newPub}
	s := relaytest.NewServer(t, cfg) // holds its own key and newPub
	mint := func(key ed25519.PrivateKey, user string) string {
		now := time.Now().Unix()
		jti, err := token.NewJTI()
		if err != nil {
			t.Fatal(err)
		}
		tok, err := token.Mint(key, token.Claims{SessionID: room, RoomID: room, UserID: user, Role: attachwire.RoleViewer,
			OrgID: relaytest.DefaultOrg, IssuedAt: now, ExpiresAt: now + 60, Audience: "relay", JTI: jti})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	for _, tc := range []struct {
		name   string
		tok    string
		status int
	}{
		{"first key", s.ViewerToken(t, room, "ann"), 101},
		{"second key", mint(newPriv, "ben"), 101},
		{"unknown key", mint(strangerPriv, "eve"), 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if resp := dialStatus(t, s.RoomURL(room), tc.tok, nil); resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
		})
	}
}

// A room left host-gone closes (1000) as soon as its last viewer leaves,
// and the relay forgets it.
func TestRoomHostGoneClosesWhenEmpty(t *testing.T) {
	cfg := quiet()
	cfg.HostGoneAfter = 50 * time.Millisecond
	s := relaytest.NewServer(t, cfg)
	h := dialHost(t, s, 1)
	v := dialViewer(t, s, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer, attachwire.Subscribe{})
	relaytest.ExpectControl[attachwire.PenState](t, v) // joined
	h.c.Close()
	for st := (attachwire.RoomState{}); st.State != attachwire.RoomHostGone; {
		st = relaytest.ExpectControl[attachwire.RoomState](t, v)
	}
	if got := metric(t, s, "ptyhost_relay_rooms"); got != 1 {
		t.Fatalf("%v rooms while a viewer is in the host-gone room, want 1", got)
	}
	v.Close()
	testkit.Eventually(t, "the empty host-gone room closed", func() bool { return metric(t, s, "ptyhost_relay_rooms") == 0 })
}

// An ended room closes EndedFor after Exit: its viewers get 1000 "room
// ended" and the relay forgets it.
func TestRoomEndedClosesAfterEndedFor(t *testing.T) {
	cfg := quiet()
	cfg.EndedFor = 50 * time.Millisecond
	s := relaytest.NewServer(t, cfg)
	h := dialHost(t, s, 1)
	v := dialViewer(t, s, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer, attachwire.Subscribe{})
	relaytest.ExpectControl[attachwire.PenState](t, v)
	h.exit(0)
	cl := expectClosed(t, v, websocket.StatusNormalClosure, "")
	if cl.Reason != "room ended" {
		t.Fatalf("close reason %q, want room ended", cl.Reason)
	}
	testkit.Eventually(t, "the ended room forgotten", func() bool { return metric(t, s, "ptyhost_relay_rooms") == 0 })
}

// Input queued while no host is bound waits for the same epoch's return,
// but a new generation drops it: it was meant for a process that is gone.
func TestNewGenerationDropsQueuedInput(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := dialHost(t, s, 1)
	d, gen := driverWithPen(t, s, "alice")
	h.c.Close()
	waitHostGone(t, s)
	input(t, d, 1, gen, "", "old")
	if a := relaytest.ExpectControl[attachwire.InputAck](t, d); a.AckInputSeq != 1 {
		t.Fatalf("ack %d, want 1", a.AckInputSeq)
	}
	h2 := dialHost(t, s, 2)
	input(t, d, 2, gen, "", "new")
	if in := hostInput(t, h2); string(in.Data) != "new" {
		t.Fatalf("the new process got %q first, want only the input sent after it bound", in.Data)
	}
}
