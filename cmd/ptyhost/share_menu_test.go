package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relaytest"
)

// TestShareMenuUnderTmux: the sharer sees joins and the pen on share's
// status line; a driver's size counts while it holds the pen and the
// sharer's again as soon as it releases it or is removed; the prefix menu
// lists who is here and removes the driver, whose leg the relay closes,
// and stops sharing while the program goes on.
func TestShareMenuUnderTmux(t *testing.T) {
	tm := newTmux(t)
	tm.run("new-session", "-d", "-s", "main", "-x", "100", "-y", "30", "/bin/sh")
	tm.typeLine(helperEnv + "=tui " + shellQuote(ptyhostBin) + " share -- " + shellQuote(self(t)) + "; echo rc=$?")
	tm.waitFor("TUI-READY")
	l := readLinks(t, tm, "main")
	room := l.attachURL[strings.LastIndex(l.attachURL, "/")+1:]

	v := watch(t, l.attachURL, room, l.token, attachwire.RoleViewer, false, l.key)
	tm.waitFor("viewer joined (watching)")

	dm := attachLineRE.FindStringSubmatch(l.driveLine)
	d := relaytest.MustDial(t, l.attachURL, dm[1], attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleDriver, Sealed: l.key.ID().String(),
		Viewport: &attachwire.Viewport{Cols: 50, Rows: 12}})
	relaytest.ExpectControl[attachwire.PenGranted](t, d)
	tm.waitFor("driver has the pen")
	tm.typeLine("size")
	tm.waitFor("size=50x12")

	// Released: the sharer's size at once.
	if err := d.SendControl(sendCtx(t), attachwire.Release{}); err != nil {
		t.Fatal(err)
	}
	tm.waitFor("the pen is back with you")
	tm.typeLine("size")
	tm.waitFor("size=100x30")

	// Taken again (after the relay's cooldown), then the driver is
	// removed from the menu: closed, and the sharer's size again.
	// A refused grab (within the cooldown) is answered pen-denied: ask
	// again. The reads share one deadline: a read cut short by its
	// context would close the leg.
	ctx, cancel := context.WithTimeout(context.Background(), relaytest.Timeout)
	defer cancel()
	if err := d.SendControl(ctx, attachwire.Grab{}); err != nil {
		t.Fatal(err)
	}
	for granted := false; !granted; {
		f, err := d.Next(ctx)
		if err != nil {
			t.Fatalf("the driver never got the pen back: %v", err)
		}
		if f.Type != attachwire.TypeControl {
			continue
		}
		switch c, _ := attachwire.DecodeControl(f.Payload); c := c.(type) {
		case attachwire.PenGranted:
			granted = c.UserID == "driver"
		case attachwire.ErrorControl:
			if c.Code != attachwire.CodePenDenied || !c.Retryable {
				t.Fatalf("grab refused: %+v", c)
			}
			time.Sleep(200 * time.Millisecond)
			if err := d.SendControl(ctx, attachwire.Grab{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	tm.typeLine("size")
	tm.waitFor("size=50x12")

	tm.run("send-keys", "-t", "main", "C-]", "w")
	tm.waitFor("who is here")
	got := tm.waitFor("driver  may drive, driving")
	if !strings.Contains(got, "viewer  watching") {
		t.Errorf("the who-is-here panel lacks the viewer:\n%s", got)
	}
	tm.run("send-keys", "-t", "main", "q") // any key closes it, and goes nowhere else
	tm.run("send-keys", "-t", "main", "C-]", "k")
	got = tm.waitFor("remove whom?")
	n := ""
	for _, line := range strings.Split(got, "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[1] == "driver" {
			n = f[0]
		}
	}
	if n == "" {
		t.Fatalf("the driver is not in the menu:\n%s", got)
	}
	tm.run("send-keys", "-t", "main", n)
	cl := relaytest.ExpectClose(t, d)
	if cl.Err == nil || cl.Err.Code != attachwire.CodeAuth || cl.Err.Message != "removed by the host" {
		t.Fatalf("the removed driver's leg ended %+v, want auth \"removed by the host\"", cl)
	}
	tm.waitFor("driver left")
	tm.typeLine("size")
	tm.waitFor("size=100x30")
	if strings.Contains(tm.capture(), "got: q") {
		t.Error("the key that closed the panel reached the program")
	}

	// Stop sharing: the viewer's leg ends with the embedded relay, the
	// program goes on here, and its exit ends share at once (no
	// final-screen window is served any more).
	tm.run("send-keys", "-t", "main", "C-]", "s")
	tm.waitFor("sharing stopped")
	testkit.Eventually(t, "the viewer's leg to end", func() bool {
		v.mu.Lock()
		defer v.mu.Unlock()
		return v.err != nil
	})
	tm.typeLine("still-here")
	tm.waitFor("got: still-here")
	tm.typeLine("exit 4")
	tm.waitFor("rc=4")
	if strings.Contains(tm.capture(), "Ctrl-C ends sharing now") {
		t.Error("share served a final screen after sharing stopped")
	}
}

// sendCtx bounds one send of a test's leg.
func sendCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), relaytest.Timeout)
	t.Cleanup(cancel)
	return ctx
}
