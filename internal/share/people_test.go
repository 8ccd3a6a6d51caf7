package share

import (
	"context"
	"errors"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/status"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relaytest"
)

// People turns the relay's controls into the sharer's notices, and says
// when the session should take the sharer's size again.
func TestPeople(t *testing.T) {
	var p People
	ada := attachwire.Member{UserID: "guest-1", ConnID: "c1", Role: attachwire.RoleDriver, Name: "Ada", Guest: true}
	bob := attachwire.Member{UserID: "bob", ConnID: "c2", Role: attachwire.RoleViewer}
	ada2 := attachwire.Member{UserID: "guest-2", ConnID: "c3", Role: attachwire.RoleViewer, Name: "Ada", Guest: true}
	steps := []struct {
		c    attachwire.Control
		want Change
	}{
		{attachwire.Presence{Op: attachwire.PresenceList, Members: []attachwire.Member{bob}}, Change{}},
		{attachwire.PenState{PenGeneration: 1}, Change{}},
		{attachwire.Presence{Op: attachwire.PresenceJoin, Members: []attachwire.Member{ada}}, Change{Text: "Ada (guest) joined (may drive)"}},
		{attachwire.PenGranted{UserID: "guest-1", ConnID: "c1", PenGeneration: 2}, Change{Text: "Ada (guest) has the pen"}},
		{attachwire.Presence{Op: attachwire.PresenceJoin, Members: []attachwire.Member{ada2}}, Change{Text: "Ada (guest) #c3 joined (watching)"}},
		{attachwire.PenRevoked{UserID: "guest-1", ConnID: "c1", PenGeneration: 3}, Change{Text: "the pen is back with you", RestoreSize: true}},
		{attachwire.PenGranted{UserID: "guest-1", ConnID: "c1", PenGeneration: 4}, Change{Text: "Ada (guest) #c1 has the pen"}},
		{attachwire.Presence{Op: attachwire.PresenceLeave, Members: []attachwire.Member{ada}}, Change{Text: "Ada (guest) #c1 left", RestoreSize: true}},
		// The relay kept the pen for the holder's return; read-only ends
		// that (restoring the size again does no harm).
		{attachwire.PenState{PenGeneration: 5, ReadOnly: true}, Change{Text: "read-only: no one else may type", RestoreSize: true}},
		{attachwire.PenState{PenGeneration: 5}, Change{Text: "read-only off: drivers may take the pen"}},
		{attachwire.RoomState{State: attachwire.RoomLive}, Change{}},
	}
	for i, s := range steps {
		if got := p.Apply(s.c); got != s.want {
			t.Fatalf("step %d (%s): %+v, want %+v", i, s.c.ControlType(), got, s.want)
		}
	}
	if got := p.Members(); !slices.Equal(got, []attachwire.Member{bob, ada2}) {
		t.Fatalf("members %+v", got)
	}
	st := p.Status()
	if !st.PenMine || st.ReadOnly || len(st.Members) != 2 {
		t.Fatalf("status %+v", st)
	}
	if got, want := status.Line(st, 0), "live · pen: you · 2 here: bob, Ada (guest)"; got != want {
		t.Fatalf("line %q, want %q", got, want)
	}
}

// roomLog collects what Carry's hooks are told.
type roomLog struct {
	mu   sync.Mutex
	ctls []attachwire.Control
}

func (l *roomLog) add(c attachwire.Control) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ctls = append(l.ctls, c)
}

// joined returns the connId of the first member of role that joined.
func (l *roomLog) joined(role attachwire.Role) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.ctls {
		if p, ok := c.(attachwire.Presence); ok && p.Op != attachwire.PresenceLeave {
			for _, m := range p.Members {
				if m.Role == role {
					return m.ConnID
				}
			}
		}
	}
	return ""
}

// Revoking a link of the embedded relay closes the leg holding it and
// refuses its token after; the host hears of the join through Carry's
// hook.
func TestRevokeAnEmbeddedLink(t *testing.T) {
	var log roomLog
	s, err := Start(Config{Epoch: 7, OnRoom: log.add})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sess, err := ptyhost.Spawn(ptyhost.Spec{Command: []string{os.Args[0]}, Env: []string{helperEnv + "=long"}, Epoch: 7})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	carried := make(chan error, 1)
	go func() { carried <- s.Carry(ctx, sess.Agent(), nil) }()
	defer func() {
		sess.Stop(context.Background())
		cancel()
		<-carried
	}()
	sub := attachwire.Subscribe{SessionID: s.Links.Room, AsRole: attachwire.RoleViewer, Sealed: s.Links.Key.ID().String()}
	v := relaytest.MustDial(t, s.Links.AttachURL, s.Links.ViewerToken, sub)
	testkit.Eventually(t, "the host to hear the viewer join", func() bool { return log.joined(attachwire.RoleViewer) != "" })

	if err := s.Revoker().Revoke(ctx, "nope"); !errors.Is(err, ErrUnknownLink) {
		t.Fatalf("Revoke(nope) = %v, want ErrUnknownLink", err)
	}
	if err := s.Revoker().Revoke(ctx, "watch"); err != nil {
		t.Fatal(err)
	}
	cl := relaytest.ExpectClose(t, v)
	if cl.Status != websocket.StatusPolicyViolation || cl.Err == nil || cl.Err.Code != attachwire.CodeAuth {
		t.Fatalf("the revoked link's leg ended %+v, want auth and 1008", cl)
	}
	again, _, err := relaytest.Dial(ctx, s.Links.AttachURL, s.Links.ViewerToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := again.SendControl(ctx, sub); err != nil {
		t.Fatal(err)
	}
	if cl := relaytest.ExpectClose(t, again); cl.Err == nil || cl.Err.Code != attachwire.CodeAuth || cl.Err.Retryable {
		t.Fatalf("the revoked link redialled: %+v, want refused auth", cl)
	}
	links, _ := s.Revoker().Links(ctx)
	for _, l := range links {
		if l.ID == "watch" {
			t.Fatal("a revoked link is still listed")
		}
	}
	if len(links) != 3 {
		t.Fatalf("links %+v, want the other three", links)
	}
	// Another link still admits.
	d := relaytest.MustDial(t, s.Links.AttachURL, s.Links.DriverToken, attachwire.Subscribe{SessionID: s.Links.Room, AsRole: attachwire.RoleDriver, Sealed: s.Links.Key.ID().String()})
	relaytest.ExpectControl[attachwire.PenGranted](t, d)
	d.Close()
}
