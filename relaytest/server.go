package relaytest

import (
	"context"
	"crypto/ed25519"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/token"
)

// DefaultOrg is the orgId the Server's token helpers use.
const DefaultOrg = "org-test"

// Server is a relay listening on a loopback port, with the key that signs
// its tokens.
type Server struct {
	// URL is the relay's base WebSocket URL, "ws://127.0.0.1:port".
	URL string
	// HTTPURL is the same address with the http scheme, for /metrics and
	// the health endpoints.
	HTTPURL string
	// Relay is the relay under test.
	Relay *relay.Relay
	// Key signs the tokens the helpers mint; its public half is the
	// relay's first key.
	Key ed25519.PrivateKey

	srv  *http.Server
	done chan struct{}
}

// NewServer starts a relay configured by cfg on 127.0.0.1 with a new key
// added to cfg.PublicKeys, and stops it when the test ends (Close).
func NewServer(t testing.TB, cfg relay.Config) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("relaytest: %v", err)
	}
	return NewServerOn(t, cfg, ln)
}

// NewServerOn is NewServer serving on ln (a loopback listener, perhaps
// wrapped to watch the connections it accepts); the server closes ln.
func NewServerOn(t testing.TB, cfg relay.Config, ln net.Listener) *Server {
	t.Helper()
	pub, priv, err := token.GenerateKey()
	if err != nil {
		t.Fatalf("relaytest: %v", err)
	}
	cfg.PublicKeys = append([]ed25519.PublicKey{pub}, cfg.PublicKeys...)
	rl, err := relay.New(cfg)
	if err != nil {
		ln.Close()
		t.Fatalf("relaytest: %v", err)
	}
	s := &Server{
		URL:     "ws://" + ln.Addr().String(),
		HTTPURL: "http://" + ln.Addr().String(),
		Relay:   rl,
		Key:     priv,
		srv:     &http.Server{Handler: rl, ReadHeaderTimeout: 10 * time.Second},
		done:    make(chan struct{}),
	}
	go func() {
		defer close(s.done)
		s.srv.Serve(ln)
	}()
	t.Cleanup(s.Close)
	return s
}

// Close stops the relay (no announcement) and the listener and waits for
// both. It is idempotent.
func (s *Server) Close() {
	s.Relay.Close()
	s.srv.Close()
	<-s.done
}

// RoomURL returns the attach URL of room id.
func (s *Server) RoomURL(id string) string { return s.URL + "/v1/rooms/" + id }

// Token mints c with the Server's key. Empty fields get test defaults:
// RoomID and SessionID each other's value, OrgID DefaultOrg, Audience
// "relay", a fresh JTI, IssuedAt now and ExpiresAt a minute later.
func (s *Server) Token(t testing.TB, c token.Claims) string {
	t.Helper()
	switch {
	case c.RoomID == "":
		c.RoomID = c.SessionID
	case c.SessionID == "":
		c.SessionID = c.RoomID
	}
	if c.OrgID == "" {
		c.OrgID = DefaultOrg
	}
	if c.Audience == "" {
		c.Audience = "relay"
	}
	if c.JTI == "" {
		jti, err := token.NewJTI()
		if err != nil {
			t.Fatalf("relaytest: %v", err)
		}
		c.JTI = jti
	}
	now := time.Now().Unix()
	if c.IssuedAt == 0 {
		c.IssuedAt = now
	}
	if c.ExpiresAt == 0 {
		c.ExpiresAt = now + 60
	}
	raw, err := token.Mint(s.Key, c)
	if err != nil {
		t.Fatalf("relaytest: mint: %v", err)
	}
	return raw
}

// HostToken mints a host token for room with the given epoch.
func (s *Server) HostToken(t testing.TB, room string, epoch uint64) string {
	t.Helper()
	return s.Token(t, token.Claims{RoomID: room, Role: attachwire.RoleHost, Epoch: &epoch})
}

// DriverToken mints a driver token for room and user.
func (s *Server) DriverToken(t testing.TB, room, user string) string {
	t.Helper()
	return s.Token(t, token.Claims{RoomID: room, Role: attachwire.RoleDriver, UserID: user})
}

// ViewerToken mints a viewer token for room and user.
func (s *Server) ViewerToken(t testing.TB, room, user string) string {
	t.Helper()
	return s.Token(t, token.Claims{RoomID: room, Role: attachwire.RoleViewer, UserID: user})
}

// Get fetches path ("/metrics") from the relay and returns the status and
// the body.
func (s *Server) Get(t testing.TB, path string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.HTTPURL+path, nil)
	if err != nil {
		t.Fatalf("relaytest: %v", err)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("relaytest: GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("relaytest: GET %s: %v", path, err)
	}
	return resp.StatusCode, string(b)
}
