package relay_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/issuer"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/token"
	"golang.org/x/crypto/ssh"
)

// sshKeys are the keys of the issuer tests: alice's ed25519 and bob's
// RSA key are listed, mallory's is not. RSA generation is slow, so they
// are made once.
var sshKeys = sync.OnceValue(func() map[string]ssh.Signer {
	_, ek, _ := ed25519.GenerateKey(rand.Reader)
	_, mk, _ := ed25519.GenerateKey(rand.Reader)
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	out := map[string]ssh.Signer{}
	for name, k := range map[string]any{"alice": ek, "bob": rk, "mallory": mk} {
		s, err := ssh.NewSignerFromKey(k)
		if err != nil {
			panic(err)
		}
		out[name] = s
	}
	return out
})

func authorizedLine(s ssh.Signer, comment string) string {
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(s.PublicKey()))) + " " + comment + "\n"
}

// issuerConfig returns cfg in issuer mode with alice and bob listed.
func issuerConfig(t testing.TB, cfg relay.Config) relay.Config {
	t.Helper()
	keys := sshKeys()
	users, err := issuer.ParseAuthorizedKeys([]byte(authorizedLine(keys["alice"], "alice@laptop")+
		`no-pty,command="true" `+authorizedLine(keys["bob"], "bob")), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	cfg.Issuer = &relay.IssuerConfig{Key: key, Users: users, RedeemsPerMinute: 6000, LoginsPerMinute: 600}
	cfg.DialsPerSecond = 1000
	return cfg
}

func issuerClient(t testing.TB, s *relaytest.Server) *issuer.Client {
	t.Helper()
	c, err := issuer.NewClient(s.HTTPURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// loggedIn logs user in at s.
func loggedIn(t testing.TB, s *relaytest.Server, user string) *issuer.Client {
	t.Helper()
	c := issuerClient(t, s)
	if _, err := c.Login(ctxT(t), sshKeys()[user]); err != nil {
		t.Fatalf("login as %s: %v", user, err)
	}
	return c
}

// sharedRoom makes a room as alice and binds its host leg at epoch 1.
func sharedRoom(t testing.TB, s *relaytest.Server, c *issuer.Client) (string, *relaytest.Conn) {
	t.Helper()
	ctx := ctxT(t)
	room, err := c.CreateRoom(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ht, err := c.HostToken(ctx, room, 1)
	if err != nil {
		t.Fatal(err)
	}
	h := relaytest.MustDial(t, s.RoomURL(room), ht.Token, attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleHost, Epoch: u64(1)})
	t.Cleanup(func() { h.WS.CloseNow() })
	relaytest.ExpectControl[attachwire.SnapshotRequest](t, h)
	return room, h
}

func invite(t testing.TB, c *issuer.Client, room string, role attachwire.Role, ttl int64, maxHolders int) issuer.InviteResponse {
	t.Helper()
	inv, err := c.CreateInvite(ctxT(t), room, issuer.InviteRequest{Role: role, TTLSeconds: ttl, MaxHolders: maxHolders})
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

func redeem(t testing.TB, s *relaytest.Server, room, secret, name string) issuer.RedeemResponse {
	t.Helper()
	r, err := issuerClient(t, s).Redeem(ctxT(t), room, secret, name)
	if err != nil {
		t.Fatalf("redeem: %v", err)
	}
	return r
}

func wantCode(t testing.TB, err error, sentinel error) {
	t.Helper()
	if !errors.Is(err, sentinel) {
		t.Fatalf("error %v, want %v", err, sentinel)
	}
}

func attachAs(t testing.TB, s *relaytest.Server, room string, r issuer.RedeemResponse) *relaytest.Conn {
	t.Helper()
	c := relaytest.MustDial(t, s.RoomURL(room), r.Token, attachwire.Subscribe{SessionID: room, AsRole: r.Role})
	t.Cleanup(func() { c.WS.CloseNow() })
	return c
}

// TestIssuerShareAndRedeem: alice (ed25519) and bob (RSA) log in to a
// real relay; alice's room takes her host leg; a watch invite redeemed
// under a name gives a viewer token, verified by the relay's issuer key,
// naming the guest and the invite, and the viewer gets the host's output.
func TestIssuerShareAndRedeem(t *testing.T) {
	cfg := issuerConfig(t, quiet())
	s := relaytest.NewServer(t, cfg)
	alice := loggedIn(t, s, "alice")
	if _, err := issuerClient(t, s).Login(ctxT(t), sshKeys()["bob"]); err != nil {
		t.Fatalf("bob's RSA key: %v", err)
	}
	room, h := sharedRoom(t, s, alice)
	if !issuer.ValidRoomID(room) {
		t.Fatalf("room id %q", room)
	}
	inv := invite(t, alice, room, attachwire.RoleViewer, 3600, 0)
	if len(inv.Secret) != 22 {
		t.Fatalf("secret %d characters, want 22", len(inv.Secret))
	}
	r := redeem(t, s, room, inv.Secret, "  Ann Lee ")
	if r.Role != attachwire.RoleViewer || !strings.HasPrefix(r.UserID, "guest-") {
		t.Fatalf("redeemed %+v", r)
	}
	claims := issuerClaims(t, cfg, r.Token)
	if claims.Name != "Ann Lee" || claims.Invite != inv.ID || claims.OrgID != issuer.OrgID || claims.UserID != r.UserID {
		t.Fatalf("claims %+v", claims)
	}
	r2 := redeem(t, s, room, inv.Secret, "Ann Lee")
	if c2 := issuerClaims(t, cfg, r2.Token); c2.JTI == claims.JTI || c2.UserID == claims.UserID {
		t.Fatalf("two redemptions share jti or userId: %+v %+v", claims, c2)
	}
	v := attachAs(t, s, room, r)
	hs := &host{t: t, c: h, epoch: 1}
	hs.snapshot("hi")
	hs.output("there")
	untilFrame(t, v, attachwire.TypeOutput)
	list, err := alice.ListInvites(ctxT(t), room)
	if err != nil || len(list) != 1 || list[0].Holders != 1 || list[0].ID != inv.ID {
		t.Fatalf("invites %+v, %v", list, err)
	}
	// bob does not own alice's room.
	bob := loggedIn(t, s, "bob")
	_, err = bob.CreateInvite(ctxT(t), room, issuer.InviteRequest{Role: attachwire.RoleDriver, TTLSeconds: 60})
	wantCode(t, err, issuer.ErrForbidden)
	_, err = bob.HostToken(ctxT(t), room, 2)
	wantCode(t, err, issuer.ErrForbidden)
}

// issuerClaims verifies tok with the issuer's public key and returns its
// claims.
func issuerClaims(t testing.TB, cfg relay.Config, tok string) token.Claims {
	t.Helper()
	v, err := token.NewVerifier([]ed25519.PublicKey{cfg.Issuer.Key.Public().(ed25519.PublicKey)}, token.VerifierOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := v.Verify(tok)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// loginWith runs a login by hand: the challenge, then a body the test
// shapes with sign.
func loginWith(t testing.TB, s *relaytest.Server, c *issuer.Client, body func(challenge string) issuer.LoginRequest) error {
	t.Helper()
	var ch issuer.ChallengeResponse
	if err := postJSON(t, s, "/v1/issuer/challenge", struct{}{}, &ch); err != nil {
		t.Fatal(err)
	}
	return postJSON(t, s, "/v1/issuer/login", body(ch.Challenge), nil)
}

// signedLogin is a login body for challenge signed by signer, claiming key.
func signedLogin(t testing.TB, s *relaytest.Server, challenge string, signer ssh.Signer, key ssh.PublicKey) issuer.LoginRequest {
	t.Helper()
	host := strings.TrimPrefix(s.HTTPURL, "http://")
	sig, err := issuer.Sign(signer, issuer.LoginMessage(challenge, host))
	if err != nil {
		t.Fatal(err)
	}
	return issuer.LoginRequest{Challenge: challenge, PublicKey: strings.TrimSpace(string(ssh.MarshalAuthorizedKey(key))),
		Signature: issuer.Signature{Format: sig.Format, Blob: b64std(sig.Blob)}}
}

// TestIssuerLoginRefusals: a key not listed, a replayed challenge, an
// expired one, a signature by another key, a proof made for another host
// and a SHA-1 RSA signature each get their own refusal.
func TestIssuerLoginRefusals(t *testing.T) {
	clock := newFakeClock()
	cfg := issuerConfig(t, quiet())
	cfg.Now = clock.Now
	s := relaytest.NewServer(t, cfg)
	keys := sshKeys()

	_, err := issuerClient(t, s).Login(ctxT(t), keys["mallory"])
	wantCode(t, err, issuer.ErrUnknownKey)
	if !strings.Contains(err.Error(), "not listed") {
		t.Errorf("unknown key message %q", err)
	}

	var replay issuer.LoginRequest
	err = loginWith(t, s, nil, func(ch string) issuer.LoginRequest {
		replay = signedLogin(t, s, ch, keys["alice"], keys["alice"].PublicKey())
		return replay
	})
	if err != nil {
		t.Fatalf("first login: %v", err)
	}
	wantCode(t, postJSON(t, s, "/v1/issuer/login", replay, nil), issuer.ErrChallengeInvalid)

	err = loginWith(t, s, nil, func(ch string) issuer.LoginRequest {
		clock.Advance(issuer.ChallengeTTL + time.Second)
		return signedLogin(t, s, ch, keys["alice"], keys["alice"].PublicKey())
	})
	wantCode(t, err, issuer.ErrChallengeInvalid)

	err = loginWith(t, s, nil, func(ch string) issuer.LoginRequest {
		return signedLogin(t, s, ch, keys["mallory"], keys["alice"].PublicKey())
	})
	wantCode(t, err, issuer.ErrUnauthorized)

	err = loginWith(t, s, nil, func(ch string) issuer.LoginRequest {
		sig, _ := issuer.Sign(keys["alice"], issuer.LoginMessage(ch, "relay.example.com"))
		return issuer.LoginRequest{Challenge: ch, PublicKey: strings.TrimSpace(string(ssh.MarshalAuthorizedKey(keys["alice"].PublicKey()))),
			Signature: issuer.Signature{Format: sig.Format, Blob: b64std(sig.Blob)}}
	})
	wantCode(t, err, issuer.ErrUnauthorized)

	err = loginWith(t, s, nil, func(ch string) issuer.LoginRequest {
		host := strings.TrimPrefix(s.HTTPURL, "http://")
		sig, err := keys["bob"].(ssh.AlgorithmSigner).SignWithAlgorithm(rand.Reader, issuer.LoginMessage(ch, host), ssh.KeyAlgoRSA)
		if err != nil {
			t.Fatal(err)
		}
		return issuer.LoginRequest{Challenge: ch, PublicKey: strings.TrimSpace(string(ssh.MarshalAuthorizedKey(keys["bob"].PublicKey()))),
			Signature: issuer.Signature{Format: sig.Format, Blob: b64std(sig.Blob)}}
	})
	wantCode(t, err, issuer.ErrUnauthorized)

	// No session, a forged one, a room that does not exist.
	anon := issuerClient(t, s)
	anon.SetSession("x.y.z")
	_, err = anon.CreateRoom(ctxT(t))
	wantCode(t, err, issuer.ErrUnauthorized)
	alice := loggedIn(t, s, "alice")
	_, err = alice.HostToken(ctxT(t), "aaaaaaaaaaaa", 1)
	wantCode(t, err, issuer.ErrNotFound)
}

// TestIssuerInviteLifetime: an invite past its expiry is refused
// (expired); a secret that is not the invite's finds nothing.
func TestIssuerInviteLifetime(t *testing.T) {
	clock := newFakeClock()
	cfg := issuerConfig(t, quiet())
	cfg.Now = clock.Now
	s := relaytest.NewServer(t, cfg)
	alice := loggedIn(t, s, "alice")
	room, _ := sharedRoom(t, s, alice)
	inv := invite(t, alice, room, attachwire.RoleDriver, 60, 0)
	r := redeem(t, s, room, inv.Secret, "early")
	if r.Role != attachwire.RoleDriver || r.ExpiresAt > clock.Now().Unix()+60 {
		t.Fatalf("redeemed %+v", r)
	}
	clock.Advance(61 * time.Second)
	_, err := issuerClient(t, s).Redeem(ctxT(t), room, inv.Secret, "late")
	wantCode(t, err, issuer.ErrExpired)
	wrong := "A" + inv.Secret[1:]
	if wrong == inv.Secret {
		wrong = "B" + inv.Secret[1:]
	}
	_, err = issuerClient(t, s).Redeem(ctxT(t), room, wrong, "guess")
	wantCode(t, err, issuer.ErrNotFound)
}

// TestIssuerRevoke: revoking a link closes its holder with an auth error
// saying so; the link cannot be redeemed again, and a token redeemed
// from it before cannot attach.
func TestIssuerRevoke(t *testing.T) {
	cfg := issuerConfig(t, quiet())
	s := relaytest.NewServer(t, cfg)
	alice := loggedIn(t, s, "alice")
	room, _ := sharedRoom(t, s, alice)
	inv := invite(t, alice, room, attachwire.RoleViewer, 3600, 0)
	other := invite(t, alice, room, attachwire.RoleViewer, 3600, 0)
	v := attachAs(t, s, room, redeem(t, s, room, inv.Secret, "held"))
	keep := attachAs(t, s, room, redeem(t, s, room, other.Secret, "kept"))
	spare := redeem(t, s, room, inv.Secret, "spare")
	waitLegs(t, s, attachwire.RoleViewer, 2)

	if err := alice.Revoke(ctxT(t), room, inv.ID); err != nil {
		t.Fatal(err)
	}
	cl := expectClosed(t, v, websocket.StatusPolicyViolation, attachwire.CodeAuth)
	if cl.Err == nil || cl.Err.Message != relay.RevokedMessage {
		t.Fatalf("closed with %+v", cl.Err)
	}
	_, err := issuerClient(t, s).Redeem(ctxT(t), room, inv.Secret, "again")
	wantCode(t, err, issuer.ErrRevoked)
	late, _, err := relaytest.Dial(ctxT(t), s.RoomURL(room), spare.Token, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer late.WS.CloseNow()
	late.SendControl(ctxT(t), attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer})
	expectClosed(t, late, websocket.StatusPolicyViolation, attachwire.CodeAuth)
	list, _ := alice.ListInvites(ctxT(t), room)
	for _, in := range list {
		if in.ID == inv.ID && !in.Revoked {
			t.Errorf("listed %+v, want revoked", in)
		}
	}
	waitLegs(t, s, attachwire.RoleViewer, 1)
	keep.Close()
}

// TestIssuerMaxHolders: a link for two admits two at once; a third is
// refused at redemption (full) and, with a token redeemed earlier, at
// the dial; once one leaves, a place is free again.
func TestIssuerMaxHolders(t *testing.T) {
	s := relaytest.NewServer(t, issuerConfig(t, quiet()))
	alice := loggedIn(t, s, "alice")
	room, _ := sharedRoom(t, s, alice)
	inv := invite(t, alice, room, attachwire.RoleViewer, 3600, 2)
	early := redeem(t, s, room, inv.Secret, "early")
	a := attachAs(t, s, room, redeem(t, s, room, inv.Secret, "a"))
	attachAs(t, s, room, redeem(t, s, room, inv.Secret, "b"))
	waitLegs(t, s, attachwire.RoleViewer, 2)
	_, err := issuerClient(t, s).Redeem(ctxT(t), room, inv.Secret, "c")
	wantCode(t, err, issuer.ErrFull)
	c := attachAs(t, s, room, early)
	expectClosed(t, c, websocket.StatusTryAgainLater, attachwire.CodeRateLimited)
	a.Close()
	waitLegs(t, s, attachwire.RoleViewer, 1)
	attachAs(t, s, room, redeem(t, s, room, inv.Secret, "c"))
	waitLegs(t, s, attachwire.RoleViewer, 2)
}

// TestIssuerFiftyViewersOneLink: fifty people redeem one watch link and
// are attached at once, each with a name of their own; all get the
// host's output.
func TestIssuerFiftyViewersOneLink(t *testing.T) {
	cfg := issuerConfig(t, quiet())
	s := relaytest.NewServer(t, cfg)
	alice := loggedIn(t, s, "alice")
	room, h := sharedRoom(t, s, alice)
	inv := invite(t, alice, room, attachwire.RoleViewer, 3600, 0)
	const n = 50
	viewers := make([]*relaytest.Conn, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := issuerClient(t, s).Redeem(context.Background(), room, inv.Secret, fmt.Sprintf("viewer %d", i))
			if err != nil {
				errs <- err
				return
			}
			c, _, err := relaytest.Dial(context.Background(), s.RoomURL(room), r.Token, nil)
			if err != nil {
				errs <- err
				return
			}
			viewers[i] = c
			errs <- c.SendControl(context.Background(), attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, c := range viewers {
			c.WS.CloseNow()
		}
	})
	waitLegs(t, s, attachwire.RoleViewer, n)
	list, _ := alice.ListInvites(ctxT(t), room)
	if len(list) != 1 || list[0].Holders != n {
		t.Fatalf("invites %+v, want one with %d holders", list, n)
	}
	hs := &host{t: t, c: h, epoch: 1}
	hs.snapshot("hi")
	hs.output("to all")
	for _, c := range viewers {
		if got := outputOf(t, untilFrame(t, c, attachwire.TypeOutput)); got != "to all" {
			t.Fatalf("viewer got %q", got)
		}
	}
}

func b64std(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// postJSON posts in to the relay's path and decodes a 2xx answer into
// out, or returns the issuer's error.
func postJSON(t testing.TB, s *relaytest.Server, path string, in, out any) error {
	t.Helper()
	b, _ := json.Marshal(in)
	resp, err := http.Post(s.HTTPURL+path, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		var e struct {
			Error   issuer.Code `json:"error"`
			Message string      `json:"message"`
		}
		if json.Unmarshal(body, &e) != nil || e.Error == "" {
			t.Fatalf("%s: HTTP %d without an issuer error: %q", path, resp.StatusCode, body)
		}
		return &issuer.Error{Code: e.Error, Message: e.Message, Status: resp.StatusCode}
	}
	if out != nil {
		return json.Unmarshal(body, out)
	}
	return nil
}

// TestIssuerLogsHoldNoSecret: a login, a room, an invite, redemptions
// (one refused) and a revocation leave no secret, token, session or
// signature in the relay's logs.
func TestIssuerLogsHoldNoSecret(t *testing.T) {
	var logs syncBuffer
	cfg := issuerConfig(t, relay.Config{Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	s := relaytest.NewServer(t, cfg)
	alice := loggedIn(t, s, "alice")
	room, _ := sharedRoom(t, s, alice)
	inv := invite(t, alice, room, attachwire.RoleViewer, 3600, 0)
	r := redeem(t, s, room, inv.Secret, "ann")
	attachAs(t, s, room, r)
	waitLegs(t, s, attachwire.RoleViewer, 1)
	issuerClient(t, s).Redeem(ctxT(t), room, "A"+inv.Secret[1:], "guess")
	alice.Revoke(ctxT(t), room, inv.ID)
	waitLegs(t, s, attachwire.RoleViewer, 0)
	out := logs.String()
	for what, secret := range map[string]string{"secret": inv.Secret, "token": r.Token, "session": alice.Session(),
		"token signature": r.Token[strings.LastIndexByte(r.Token, '.')+1:], "guess": "A" + inv.Secret[1:]} {
		if strings.Contains(out, secret) {
			t.Errorf("the logs hold the %s", what)
		}
	}
	if !strings.Contains(out, "invite redeemed") || !strings.Contains(out, "revoked") {
		t.Errorf("the logs say nothing of the invite:\n%s", out)
	}
}

// syncBuffer is a bytes.Buffer the relay's goroutines may log to.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestIssuerRateLimits: challenges, logins and redemptions past their
// per-address burst are refused rate-limited, with Retry-After.
func TestIssuerRateLimits(t *testing.T) {
	cfg := issuerConfig(t, quiet())
	cfg.Issuer.LoginsPerMinute, cfg.Issuer.RedeemsPerMinute = 5, 10 // bursts of 2 and 10
	s := relaytest.NewServer(t, cfg)
	alice := loggedIn(t, s, "alice") // a challenge and a login: the burst
	_, err := issuerClient(t, s).Login(ctxT(t), sshKeys()["alice"])
	wantCode(t, err, issuer.ErrRateLimited)
	room, _ := sharedRoom(t, s, alice)
	inv := invite(t, alice, room, attachwire.RoleViewer, 600, 0)
	for range 10 {
		redeem(t, s, room, inv.Secret, "n")
	}
	_, err = issuerClient(t, s).Redeem(ctxT(t), room, inv.Secret, "n")
	wantCode(t, err, issuer.ErrRateLimited)
	var ie *issuer.Error
	if !errors.As(err, &ie) || ie.Status != http.StatusTooManyRequests {
		t.Errorf("status %+v, want 429", ie)
	}
}

// TestIssuerStateSurvivesARestart: with an issuer.FileStore, a relay
// started again with the same key and file still knows the room, its
// owner and its invites: the owner gets host tokens, the link still
// admits, a revoked one still refuses.
func TestIssuerStateSurvivesARestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "issuer-state.json")
	cfg := issuerConfig(t, quiet())
	open := func() *relaytest.Server {
		st, err := issuer.OpenFileStore(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		c := cfg
		ic := *cfg.Issuer
		ic.Store = st
		c.Issuer = &ic
		return relaytest.NewServer(t, c)
	}
	s := open()
	alice := loggedIn(t, s, "alice")
	room, _ := sharedRoom(t, s, alice)
	watch := invite(t, alice, room, attachwire.RoleViewer, 3600, 0)
	gone := invite(t, alice, room, attachwire.RoleViewer, 3600, 0)
	if err := alice.Revoke(ctxT(t), room, gone.ID); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s = open()
	alice = loggedIn(t, s, "alice")
	if _, err := alice.HostToken(ctxT(t), room, 2); err != nil {
		t.Fatalf("host token after the restart: %v", err)
	}
	redeem(t, s, room, watch.Secret, "after")
	_, err := issuerClient(t, s).Redeem(ctxT(t), room, gone.Secret, "after")
	wantCode(t, err, issuer.ErrRevoked)
}
