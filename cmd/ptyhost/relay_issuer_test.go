package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/link"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/issuer"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/token"
	"golang.org/x/crypto/ssh"
)

func sshSigner(t *testing.T) ssh.Signer {
	t.Helper()
	_, k, _ := ed25519.GenerateKey(rand.Reader)
	s, err := ssh.NewSignerFromKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func keysLine(s ssh.Signer, name string) string {
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(s.PublicKey()))) + " " + name + "\n"
}

func TestRelayIssuerUsage(t *testing.T) {
	dir := t.TempDir()
	_, key, err := token.WriteKeyFiles(filepath.Join(dir, "issuer"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "ok_keys"), []byte(keysLine(sshSigner(t), "ok")), 0o600)
	bad := filepath.Join(dir, "bad_keys")
	os.WriteFile(bad, []byte(keysLine(sshSigner(t), "ok")+`from="10.0.0.1" `+keysLine(sshSigner(t), "limited")), 0o600)
	for _, tc := range []struct {
		args []string
		say  string
	}{
		{[]string{"--issuer-key", key}, "--issuer-key needs --authorized-keys"},
		{[]string{"--authorized-keys", bad, "--public-key", key}, "need --issuer-key"},
		{[]string{"--issuer-key", key, "--authorized-keys", filepath.Join(dir, "ok_keys"), "--issuer-state", bad}, "--issuer-state"},
		{[]string{"--issuer-key", key, "--authorized-keys", bad}, "line 2"},
		{[]string{"--issuer-key", key, "--authorized-keys", filepath.Join(dir, "none")}, "authorized keys"},
		{[]string{"--issuer-key", bad, "--authorized-keys", bad}, "--issuer-key"},
	} {
		err := relayCmd(context.Background(), tc.args, nil, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.say) {
			t.Errorf("%q: %v, want an error saying %q", tc.args, err, tc.say)
		}
	}
}

// The relay binary in issuer mode lets a listed key log in, and SIGHUP
// rereads the authorized keys instead of draining: a key added to the file
// logs in after it, and the relay goes on.
func TestRelayIssuerBinaryReloadsOnSIGHUP(t *testing.T) {
	dir := t.TempDir()
	_, key, err := token.WriteKeyFiles(filepath.Join(dir, "issuer"))
	if err != nil {
		t.Fatal(err)
	}
	alice, bob := sshSigner(t), sshSigner(t)
	keys := filepath.Join(dir, "team_keys")
	os.WriteFile(keys, []byte(keysLine(alice, "alice")), 0o600)
	out := new(lockedBuffer)
	cmd := exec.Command(ptyhostBin, "relay", "--listen", "127.0.0.1:0", "--issuer-key", key, "--authorized-keys", keys)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	re := regexp.MustCompile(`listening on ws://(127\.0\.0\.1:\d+)/`)
	testkit.Eventually(t, "startup line", func() bool { return re.MatchString(out.String()) })
	base := "http://" + re.FindStringSubmatch(out.String())[1]
	login := func(s ssh.Signer) error {
		c, _ := issuer.NewClient(base, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err := c.Login(ctx, s)
		return err
	}
	if err := login(alice); err != nil {
		t.Fatalf("alice: %v", err)
	}
	if err := login(bob); !errors.Is(err, issuer.ErrUnknownKey) {
		t.Fatalf("bob before the reload: %v, want unknown-key", err)
	}
	os.WriteFile(keys, []byte(keysLine(alice, "alice")+keysLine(bob, "bob")), 0o600)
	cmd.Process.Signal(syscall.SIGHUP)
	testkit.Eventually(t, "reload", func() bool { return strings.Contains(out.String(), "users reloaded") })
	if err := login(bob); err != nil {
		t.Fatalf("bob after the reload: %v; output %q", err, out.String())
	}
	if strings.Contains(out.String(), "draining") || strings.Contains(out.String(), "stopped by") {
		t.Errorf("SIGHUP stopped the relay: %q", out.String())
	}
}

// attach with a short link redeems its invite under --name (or $USER)
// and gets a token naming the guest; a revoked link exits 77, a relay
// that is not there 69.
func TestAttachRedeemsShortLink(t *testing.T) {
	alice := sshSigner(t)
	users, _ := issuer.ParseAuthorizedKeys([]byte(keysLine(alice, "alice")), nil)
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	s := relaytest.NewServer(t, relay.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Issuer: &relay.IssuerConfig{Key: key, Users: users}})
	c, _ := issuer.NewClient(s.HTTPURL, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Login(ctx, alice); err != nil {
		t.Fatal(err)
	}
	room, _ := c.CreateRoom(ctx)
	inv, err := c.CreateInvite(ctx, room, issuer.InviteRequest{Role: attachwire.RoleViewer, TTLSeconds: 600})
	if err != nil {
		t.Fatal(err)
	}
	short := c.Link(room, inv.Secret)
	if len(short) > 160 {
		t.Errorf("link of %d characters", len(short))
	}
	v, _ := token.NewVerifier([]ed25519.PublicKey{key.Public().(ed25519.PublicKey)}, token.VerifierOptions{})
	t.Setenv("PTYHOST_TOKEN", "")
	t.Setenv(link.EnvVar, short)
	t.Setenv("USER", "zed")
	for name, want := range map[string]string{"Ann": "Ann", "": "zed"} {
		tok, roomURL, _, err := attachToken(attachOptions{name: name}, nil)
		if err != nil {
			t.Fatal(err)
		}
		claims, err := v.Verify(tok)
		if err != nil || claims.Name != want || claims.Invite != inv.ID || roomURL != s.RoomURL(room) {
			t.Fatalf("--name %q: %+v %v, room %s", name, claims, err, roomURL)
		}
	}
	if err := c.Revoke(ctx, room, inv.ID); err != nil {
		t.Fatal(err)
	}
	var es *exitStatus
	if _, _, _, err := attachToken(attachOptions{}, nil); !errors.As(err, &es) || es.code != exitRefused || !strings.Contains(err.Error(), "revoked") {
		t.Fatalf("a revoked link: %v, want exit %d", err, exitRefused)
	}
	if strings.Contains(es.Error(), inv.Secret) {
		t.Error("the refusal shows the secret")
	}
	s.Close()
	if _, _, _, err := attachToken(attachOptions{}, nil); !errors.As(err, &es) || es.code != exitUnreachable {
		t.Fatalf("no relay: %v, want exit %d", err, exitUnreachable)
	}
}
