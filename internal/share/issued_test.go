package share

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/attachclient"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/link"
	"github.com/ptyhost/ptyhost/issuer"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
	"golang.org/x/crypto/ssh"
)

func sshKey(t *testing.T) ssh.Signer {
	t.Helper()
	_, k, _ := ed25519.GenerateKey(rand.Reader)
	s, err := ssh.NewSignerFromKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// issuerRelay is a loopback relay in issuer mode that lists listed.
func issuerRelay(t *testing.T, listed ssh.Signer) *relaytest.Server {
	t.Helper()
	users, err := issuer.ParseAuthorizedKeys([]byte(strings.TrimSpace(string(ssh.MarshalAuthorizedKey(listed.PublicKey())))+" alice\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	return relaytest.NewServer(t, relay.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Issuer: &relay.IssuerConfig{Key: key, Users: users}})
}

// TestShareThroughAnIssuer: with a relay URL and no key, Start logs in
// with the SSH key, gets a room and two short links; a guest redeems the
// watch link and sees the session Carry brings, with host tokens the
// issuer mints per dial.
func TestShareThroughAnIssuer(t *testing.T) {
	alice := sshKey(t)
	rs := issuerRelay(t, alice)
	s, err := Start(Config{RelayURL: rs.URL, Signer: alice, Epoch: 7, FinalScreenWindow: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	l := s.Links
	if !issuer.ValidRoomID(l.Room) || l.ViewerToken != "" || l.WatchInvite == "" || l.DriveInvite == "" || l.AttachURL != rs.RoomURL(l.Room) {
		t.Fatalf("links %+v", l)
	}
	for _, raw := range []string{l.WatchLink, l.DriveLink} {
		// A short link's bound: 160 characters with a 20-character host name,
		// leaving room for a key in the fragment.
		if n := len(raw) - len(rs.HTTPURL) + len("https://") + 20; n > 160 {
			t.Errorf("link %d characters long on a 20-character host", n)
		}
	}
	watch, err := link.Parse(l.WatchLink)
	if err != nil || watch.Room != l.Room {
		t.Fatalf("watch link %v: %+v", err, watch)
	}
	guest, _ := issuer.NewClient(rs.HTTPURL, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := guest.Redeem(ctx, watch.Room, watch.Invite, "bo")
	if err != nil || r.Role != attachwire.RoleViewer {
		t.Fatalf("redeem: %+v %v", r, err)
	}
	key, err := watch.RoomKey()
	if err != nil || key == nil || !key.Equal(l.Key) {
		t.Fatalf("the watch link's key: %v %v", key, err)
	}
	v := relaytest.MustDial(t, l.AttachURL, r.Token, attachwire.Subscribe{SessionID: l.Room, AsRole: attachwire.RoleViewer, Sealed: key.ID().String()})
	sess, err := ptyhost.Spawn(ptyhost.Spec{Command: []string{os.Args[0]}, Env: []string{helperEnv + "=1"}, Epoch: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Stop(context.Background())
	carried := make(chan error, 1)
	go func() { carried <- s.Carry(ctx, sess.Agent(), nil) }()
	for {
		f, err := v.Next(ctx)
		if err != nil {
			t.Fatalf("viewer: %v", err)
		}
		if f.Type == attachwire.TypeExit {
			break
		}
	}
	if err := <-carried; err != nil {
		t.Fatalf("Carry = %v", err)
	}
	// The sharer's menu revokes through the issuer: both links listed,
	// the drive link revoked, then only the watch link left, and the
	// drive link redeems no more.
	rv := s.Revoker()
	links, err := rv.Links(ctx)
	if err != nil || len(links) != 2 {
		t.Fatalf("revocable links %+v, %v", links, err)
	}
	if err := rv.Revoke(ctx, l.DriveInvite); err != nil {
		t.Fatalf("revoking the drive link with the share's own session: %v", err)
	}
	if links, err = rv.Links(ctx); err != nil || len(links) != 1 || links[0].ID != l.WatchInvite || links[0].Role != attachwire.RoleViewer {
		t.Fatalf("after the revoke: %+v, %v", links, err)
	}
	drive, _ := link.Parse(l.DriveLink)
	if _, err := guest.Redeem(ctx, drive.Room, drive.Invite, "bo"); err == nil {
		t.Error("a revoked drive link was redeemed")
	}
	if s.Controls() == nil {
		t.Error("no host controls in issuer mode: the menu's kick and read-only would do nothing")
	}
}

// TestShareThroughAnIssuerFailsLoudly: a key the relay does not list is
// ErrRefused; no relay there, or a server that is no issuer, is
// ErrUnreachable; --room and --port are refused in issuer mode.
func TestShareThroughAnIssuerFailsLoudly(t *testing.T) {
	alice := sshKey(t)
	rs := issuerRelay(t, alice)
	if _, err := Start(Config{RelayURL: rs.URL, Signer: sshKey(t)}); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "not listed") {
		t.Fatalf("an unlisted key: %v, want ErrRefused", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "ws://" + ln.Addr().String()
	ln.Close()
	if _, err := Start(Config{RelayURL: dead, Signer: alice}); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("no relay: %v, want ErrUnreachable", err)
	}
	notRelay := httptest.NewServer(http.NotFoundHandler())
	defer notRelay.Close()
	if _, err := Start(Config{RelayURL: notRelay.URL, Signer: alice}); !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "not a relay in issuer mode") {
		t.Fatalf("not a relay: %v, want ErrUnreachable", err)
	}
	for name, c := range map[string]Config{
		"room": {RelayURL: rs.URL, Signer: alice, Room: "mine"},
		"port": {RelayURL: rs.URL, Signer: alice, Port: 9},
	} {
		if _, err := Start(c); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", name, err)
		}
	}
}

// TestShareStopsWhenTheRelayForgetsTheRoom: a relay in issuer mode that
// restarts without keeping its rooms (same key and users, fresh state)
// no longer knows the share's room. The host logs in again, learns that,
// and Carry ends with the relay's word for it instead of redialling for
// ever under "relay unreachable".
func TestShareStopsWhenTheRelayForgetsTheRoom(t *testing.T) {
	alice := sshKey(t)
	users, err := issuer.ParseAuthorizedKeys([]byte(strings.TrimSpace(string(ssh.MarshalAuthorizedKey(alice.PublicKey())))+" alice\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	newRelay := func() *relay.Relay {
		rl, err := relay.New(relay.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
			Issuer: &relay.IssuerConfig{Key: key, Users: users}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { rl.Close() })
		return rl
	}
	// One address for both relays, as a restarted relay has.
	var cur atomic.Pointer[relay.Relay]
	first := newRelay()
	cur.Store(first)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { cur.Load().ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)

	up := make(chan bool, 16)
	s, err := Start(Config{RelayURL: srv.URL, Signer: alice, Epoch: 7, OnLink: func(u bool) {
		select {
		case up <- u:
		default:
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sess, err := ptyhost.Spawn(ptyhost.Spec{Command: []string{os.Args[0]}, Env: []string{helperEnv + "=long"}, Epoch: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Stop(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	carried := make(chan error, 1)
	go func() { carried <- s.Carry(ctx, sess.Agent(), nil) }()
	for u := false; !u; {
		select {
		case u = <-up:
		case err := <-carried:
			t.Fatalf("Carry ended before the host was admitted: %v", err)
		case <-ctx.Done():
			t.Fatal("the host was never admitted")
		}
	}

	cur.Store(newRelay())
	first.Close() // the host's leg ends; its redial reaches the new relay
	select {
	case err := <-carried:
		var stop *attachclient.RelayStopError
		if !errors.As(err, &stop) {
			t.Fatalf("Carry = %v, want the relay's stop", err)
		}
		if why := StopReason(err); !strings.Contains(why, "no longer knows room "+s.Links.Room) || !strings.Contains(why, "--issuer-state") {
			t.Fatalf("reason %q", why)
		}
	case <-ctx.Done():
		t.Fatal("Carry still redialling a relay that does not know its room")
	}
}
