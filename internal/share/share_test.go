package share

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/token"
)

// helperEnv makes the test binary the shared child program: it prints a
// line and exits 2.
const helperEnv = "SHARE_TEST_HELPER"

func TestMain(m *testing.M) {
	if v := os.Getenv(helperEnv); v != "" {
		fmt.Println("shared line")
		if v == "long" {
			time.Sleep(time.Minute) // stopped by the test
		}
		time.Sleep(200 * time.Millisecond) // a viewer may join before the exit
		os.Exit(2)
	}
	goleak.VerifyTestMain(m)
}

func TestRelayBase(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ws://r.example:8722", "ws://r.example:8722"},
		{"wss://r.example/", "wss://r.example"},
		{"https://r.example/v1/rooms/", "wss://r.example"},
		{"http://127.0.0.1:9/prefix/v1/rooms", "ws://127.0.0.1:9/prefix"},
	} {
		u, err := relayBase(tc.in)
		if err != nil || u.String() != tc.want {
			t.Errorf("relayBase(%q) = %v, %v; want %s", tc.in, u, err, tc.want)
		}
	}
	for _, bad := range []string{"ftp://x", "ws://", "ws://u:p@x", "ws://x/?a=b", "ws://x/#f", "r.example", "ws://x/v1/rooms/r1"} {
		if _, err := relayBase(bad); !errors.Is(err, ErrConfig) {
			t.Errorf("relayBase(%q) = %v, want ErrConfig", bad, err)
		}
	}
}

func TestStartRefusesConfigsThatCannotWork(t *testing.T) {
	_, key, err := token.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]Config{
		"key without relay":  {Key: key},
		"port with relay":    {RelayURL: "ws://x", Key: key, Port: 9},
		"port out of range":  {Port: 70000},
		"ttl over the limit": {LinkTTL: MaxLinkTTL + time.Second},
		"negative window":    {FinalScreenWindow: -time.Second},
		"room with a space":  {RelayURL: "ws://x", Key: key, Room: "a b"},
		"room with a slash":  {Room: "a/b"},
		"room dot-dot":       {Room: ".."},
	} {
		t.Run(name, func(t *testing.T) {
			if s, err := Start(c); !errors.Is(err, ErrConfig) {
				if s != nil {
					s.Close()
				}
				t.Fatalf("Start = %v, want ErrConfig", err)
			}
		})
	}
}

// claimsOf reads a token's claims without verifying it.
func claimsOf(t *testing.T, tok string) token.Claims {
	t.Helper()
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWS: %q", tok)
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var c token.Claims
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestLinksForARelayURL(t *testing.T) {
	_, key, err := token.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Start(Config{RelayURL: "https://relay.example/", Key: key, Room: "r1", LinkTTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	l := s.Links
	if l.AttachURL != "wss://relay.example/v1/rooms/r1" || l.PageURL != "https://relay.example/v1/rooms/r1/view" || l.Embedded {
		t.Fatalf("links %+v", l)
	}
	if l.Key == nil {
		t.Fatal("a share is not sealed by default")
	}
	if got := l.BrowserURL("T"); got != "https://relay.example/v1/rooms/r1/view#token=T&key="+l.Key.Encode() {
		t.Fatalf("BrowserURL = %q", got)
	}
	if got := l.KeyEnv(); got != "PTYHOST_KEY="+l.Key.Encode()+" " {
		t.Fatalf("KeyEnv = %q", got)
	}
	plain, err := Start(Config{RelayURL: "https://relay.example/", Key: key, Room: "r2", Unsealed: true})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if pl := plain.Links; pl.Key != nil || pl.BrowserURL("T") != "https://relay.example/v1/rooms/r2/view#token=T" || pl.KeyEnv() != "" {
		t.Fatalf("an unsealed share's links: %+v", pl)
	}
	seen := map[string]bool{}
	for _, tc := range []struct {
		tok  string
		role attachwire.Role
		user string
	}{
		{l.ViewerToken, attachwire.RoleViewer, ViewerUser},
		{l.DriverToken, attachwire.RoleDriver, DriverUser},
		{l.PageViewerToken, attachwire.RoleViewer, PageViewerUser},
		{l.PageDriverToken, attachwire.RoleDriver, PageDriverUser},
	} {
		c := claimsOf(t, tc.tok)
		if c.Role != tc.role || c.UserID != tc.user || c.RoomID != "r1" || c.SessionID != "r1" || c.OrgID != DefaultOrg || c.Epoch != nil {
			t.Errorf("claims %+v, want role %s user %s in r1", c, tc.role, tc.user)
		}
		if ttl := c.ExpiresAt - c.IssuedAt; ttl != 3600 {
			t.Errorf("%s token lives %ds, want 3600", tc.user, ttl)
		}
		if seen[c.JTI] {
			t.Errorf("two links share jti %s: the relay would admit only one at a time", c.JTI)
		}
		seen[c.JTI] = true
	}
}

// The embedded relay: a session carried to it is seen through the
// links' tokens and key (the room is sealed by default: the relay serves
// frames that hold none of the text), its exit reaches the viewer, and
// Carry returns nil after the window; Close stops the relay (goleak
// checks the goroutines).
func TestCarryThroughTheEmbeddedRelay(t *testing.T) {
	s, err := Start(Config{Epoch: 42, FinalScreenWindow: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !s.Links.Embedded || !strings.HasPrefix(s.Links.AttachURL, "ws://127.0.0.1:") || !strings.HasPrefix(s.Links.Room, "share-") {
		t.Fatalf("links %+v", s.Links)
	}
	v := relaytest.MustDial(t, s.Links.AttachURL, s.Links.ViewerToken,
		attachwire.Subscribe{SessionID: s.Links.Room, AsRole: attachwire.RoleViewer, Sealed: s.Links.Key.ID().String()})
	room := seal.NewRoom(s.Links.Key, s.Links.Room)
	sess, err := ptyhost.Spawn(ptyhost.Spec{Command: []string{os.Args[0]}, Env: []string{helperEnv + "=1"}, Epoch: 42})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Stop(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	carried := make(chan error, 1)
	go func() { carried <- s.Carry(ctx, sess.Agent(), nil) }()
	var text strings.Builder
	for {
		f, err := v.Next(ctx)
		if err != nil {
			t.Fatalf("viewer: %v; saw %q", err, text.String())
		}
		if f.Type != attachwire.TypeControl {
			if strings.Contains(string(f.Payload), "shared line") {
				t.Fatalf("the relay served the text in the clear: %v seq %d", f.Type, f.Seq)
			}
			o, err := room.Open(f, 42)
			if err != nil {
				t.Fatalf("%v seq %d: %v", f.Type, f.Seq, err)
			}
			f = o
		}
		if f.Type == attachwire.TypeOutput {
			text.Write(f.Payload)
		}
		if f.Type == attachwire.TypeSnapshot {
			// A viewer that came before the host starts from the
			// snapshot the relay asks for at the bind, which may already
			// hold the line.
			text.WriteString(snapshotText(t, f.Payload))
		}
		if f.Type == attachwire.TypeExit {
			ex, err := attachwire.DecodeExit(f.Payload)
			if err != nil || ex.Code != 2 {
				t.Fatalf("exit %+v, %v; want code 2", ex, err)
			}
			break
		}
	}
	if !strings.Contains(text.String(), "shared line") {
		t.Errorf("viewer saw %q", text.String())
	}
	if err := <-carried; err != nil {
		t.Fatalf("Carry = %v, want nil after the window", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
}

// snapshotText is the text of a Snapshot payload's screen, scrollback
// first, each row ending in a newline.
func snapshotText(t *testing.T, p []byte) string {
	t.Helper()
	snap, err := attachwire.DecodeSnapshot(p)
	if err != nil {
		t.Fatal(err)
	}
	scr, err := attachwire.DecodeScreen(snap.Screen)
	if err != nil {
		t.Fatal(err)
	}
	return testkit.History(scr)
}
