package attachclient_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/ptyhost/ptyhost/attachclient"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
)

// roomLog collects what RunHost's Room and Link hooks are told.
type roomLog struct {
	mu    sync.Mutex
	ctls  []attachwire.Control
	links []bool
}

func (l *roomLog) room(c attachwire.Control) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ctls = append(l.ctls, c)
}

func (l *roomLog) link(up bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.links = append(l.links, up)
}

// has reports whether a control matching cond was received.
func (l *roomLog) has(cond func(attachwire.Control) bool) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.ctls {
		if cond(c) {
			return true
		}
	}
	return false
}

// The host's hooks see who joins and the pen's changes; its controls
// take the pen back and remove a participant; before any leg they
// report ErrNoLeg.
func TestHostRoomHooksAndControls(t *testing.T) {
	r := newRig(t, "lines", fastRelay())
	var log roomLog
	hc := &attachclient.HostControls{}
	if err := hc.TakePen(context.Background()); !errors.Is(err, attachclient.ErrNoLeg) {
		t.Fatalf("TakePen before RunHost = %v, want ErrNoLeg", err)
	}
	if err := hc.Send(context.Background(), attachwire.Grab{}); err == nil {
		t.Fatal("Send accepted a control that is not the host's")
	}
	cfg := r.config()
	cfg.Room, cfg.Link, cfg.Controls = log.room, log.link, hc
	r.start(t, cfg)
	d := r.join(t, attachwire.RoleDriver, "dan", attachwire.Subscribe{})
	d.until(t, "the pen", func(v *view) bool { return len(v.controlsOf("pen_granted")) > 0 })

	var conn string
	testkit.Eventually(t, "the host to hear of dan and his pen", func() bool {
		// dan may join before the host binds: the bind's list and
		// pen_state then say what a join and pen_granted would have.
		return log.has(func(c attachwire.Control) bool {
			p, ok := c.(attachwire.Presence)
			for _, m := range p.Members {
				if ok && m.UserID == "dan" && p.Op != attachwire.PresenceLeave {
					conn = m.ConnID
				}
			}
			return conn != ""
		}) && log.has(func(c attachwire.Control) bool {
			switch c := c.(type) {
			case attachwire.PenGranted:
				return c.UserID == "dan"
			case attachwire.PenState:
				return c.HolderUserID == "dan"
			}
			return false
		})
	})
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	if err := hc.TakePen(ctx); err != nil {
		t.Fatal(err)
	}
	d.until(t, "pen_revoked", func(v *view) bool { return len(v.controlsOf("pen_revoked")) > 0 })
	testkit.Eventually(t, "the host to hear the pen was taken", func() bool {
		return log.has(func(c attachwire.Control) bool { _, ok := c.(attachwire.PenRevoked); return ok })
	})
	if err := hc.Kick(ctx, conn, "test"); err != nil {
		t.Fatal(err)
	}
	dctx, dcancel := context.WithTimeout(context.Background(), watchdog)
	defer dcancel()
	for {
		f, err := d.c.Next(dctx)
		if err != nil {
			break // closed by the relay
		}
		d.take(t, f)
	}
	if errs := d.controlsOf("error"); len(errs) == 0 || errs[len(errs)-1].(attachwire.ErrorControl).Code != attachwire.CodeAuth {
		t.Fatalf("the kicked driver's controls %v, want an auth error last", d.controls)
	}
	testkit.Eventually(t, "the host to hear dan left", func() bool {
		return log.has(func(c attachwire.Control) bool {
			p, ok := c.(attachwire.Presence)
			return ok && p.Op == attachwire.PresenceLeave && len(p.Members) > 0 && p.Members[0].ConnID == conn
		})
	})
	log.mu.Lock()
	links := append([]bool(nil), log.links...)
	log.mu.Unlock()
	if len(links) == 0 || !links[0] {
		t.Fatalf("Link calls %v, want true first", links)
	}
}

// controlsOf returns the controls of type typ the view has read.
func (v *view) controlsOf(typ string) []attachwire.Control {
	var out []attachwire.Control
	for _, c := range v.controls {
		if c.ControlType() == typ {
			out = append(out, c)
		}
	}
	return out
}
