package main

import (
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/token"
)

// attach's status line names who joins by the name its token carries,
// marks a guest's, and tells two guests of one name apart.
func TestAttachShowsGuestNames(t *testing.T) {
	tm := newTmux(t)
	s, _, _ := attachRelay(t)
	tm.run("new-session", "-d", "-s", "main", "-x", "120", "-y", "24", "/bin/sh")
	tm.run("send-keys", "-t", "main:0", "-l", attachLine(s, s.ViewerToken(t, attachRoom, "watcher")))
	tm.run("send-keys", "-t", "main:0", "Enter")
	tm.waitIn("main:0", "TUI-READY")
	guest := func(user string) {
		tok := s.Token(t, token.Claims{RoomID: attachRoom, Role: attachwire.RoleViewer, UserID: user, Name: "Ada", Invite: "inv-1"})
		relaytest.MustDial(t, s.RoomURL(attachRoom), tok, attachwire.Subscribe{SessionID: attachRoom, AsRole: attachwire.RoleViewer})
	}
	guest("guest-1")
	got := tm.waitIn("main:0", "Ada (guest)")
	if strings.Contains(got, "guest-1") {
		t.Errorf("the status line shows the guest's user id:\n%s", got)
	}
	guest("guest-2")
	got = tm.waitIn("main:0", "3 here")
	if n := strings.Count(got, "Ada (guest) #"); n != 2 {
		t.Errorf("two guests named Ada are not told apart:\n%s", got)
	}
}
