package main

import (
	"crypto/ed25519"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/token"
)

// keyFiles writes a key pair in a temporary directory and returns the
// private key's path and a verifier for the public one.
func keyFiles(t testing.TB) (string, *token.Verifier) {
	t.Helper()
	pubPath, keyPath, err := token.WriteKeyFiles(filepath.Join(t.TempDir(), "k"))
	if err != nil {
		t.Fatal(err)
	}
	pub, err := token.ReadPublicKeyFile(pubPath)
	if err != nil {
		t.Fatal(err)
	}
	v, err := token.NewVerifier([]ed25519.PublicKey{pub}, token.VerifierOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return keyPath, v
}

// mintCLI runs ptyhost token and verifies what it printed.
func mintCLI(t testing.TB, v *token.Verifier, args ...string) token.Claims {
	t.Helper()
	code, stdout, stderr := runInProcess(t, append([]string{"token"}, args...)...)
	if code != 0 || stderr != "" || strings.Count(stdout, "\n") != 1 || !strings.HasSuffix(stdout, "\n") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want one line", code, stdout, stderr)
	}
	c, err := v.Verify(strings.TrimSuffix(stdout, "\n"))
	if err != nil {
		t.Fatalf("the printed token does not verify: %v", err)
	}
	return c
}

func TestTokenMintsViewerAndDriver(t *testing.T) {
	key, v := keyFiles(t)
	for _, role := range []attachwire.Role{attachwire.RoleViewer, attachwire.RoleDriver} {
		c := mintCLI(t, v, "--key", key, "--room", "sess-1", "--role", string(role), "--user", "alice")
		if c.Role != role || c.SessionID != "sess-1" || c.RoomID != "sess-1" || c.UserID != "alice" ||
			c.Epoch != nil || c.OrgID != "default" || c.Audience != "relay" || c.JTI == "" {
			t.Errorf("%s: claims %+v", role, c)
		}
		if ttl := c.ExpiresAt - c.IssuedAt; ttl != 300 {
			t.Errorf("%s: default ttl %ds, want 300", role, ttl)
		}
	}
}

func TestTokenHostEpoch(t *testing.T) {
	key, v := keyFiles(t)
	c := mintCLI(t, v, "--key", key, "--room", "s", "--role", "host", "--epoch", "42", "--org", "acme", "--ttl", "1h")
	if c.Epoch == nil || *c.Epoch != 42 || c.UserID != "" || c.OrgID != "acme" || c.ExpiresAt-c.IssuedAt != 3600 {
		t.Errorf("claims %+v", c)
	}
	// Without --epoch: now in unix milliseconds, so a later mint for a new
	// host process has a higher epoch.
	before := uint64(time.Now().UnixMilli())
	first := mintCLI(t, v, "--key", key, "--room", "s", "--role", "host")
	time.Sleep(2 * time.Millisecond)
	second := mintCLI(t, v, "--key", key, "--room", "s", "--role", "host")
	if *first.Epoch < before || *second.Epoch <= *first.Epoch {
		t.Errorf("default epochs %d then %d, want >= %d and increasing", *first.Epoch, *second.Epoch, before)
	}
}

func TestTokenFreshJTIEachTime(t *testing.T) {
	key, v := keyFiles(t)
	args := []string{"--key", key, "--room", "s", "--role", "viewer", "--user", "u"}
	if a, b := mintCLI(t, v, args...), mintCLI(t, v, args...); a.JTI == b.JTI {
		t.Errorf("two tokens share jti %q", a.JTI)
	}
}

func TestTokenUsageErrors(t *testing.T) {
	key, _ := keyFiles(t)
	pubKey := strings.TrimSuffix(key, ".key") + ".pub"
	garbage := filepath.Join(t.TempDir(), "garbage.key")
	os.WriteFile(garbage, []byte("not a key"), 0o600)
	base := []string{"token", "--key", key, "--room", "s"}
	for _, tc := range []struct {
		name string
		args []string
		say  string
	}{
		{"missing key", []string{"token", "--room", "s", "--role", "host"}, "missing --key"},
		{"missing room", []string{"token", "--key", key, "--role", "host"}, "missing --room"},
		{"missing role", base, "missing --role"},
		{"unknown role", append(base, "--role", "admin"), `not "admin"`},
		{"viewer without user", append(base, "--role", "viewer"), "--user is required"},
		{"driver without user", append(base, "--role", "driver"), "--user is required"},
		{"host with user", append(base, "--role", "host", "--user", "u"), "a host token names no user"},
		{"viewer with epoch", append(base, "--role", "viewer", "--user", "u", "--epoch", "3"), "--epoch is for host tokens only"},
		{"epoch not a number", append(base, "--role", "host", "--epoch", "-1"), "--epoch must be a whole number"},
		{"epoch too large", append(base, "--role", "host", "--epoch", "18446744073709551616"), "--epoch must be a whole number"},
		{"ttl zero", append(base, "--role", "host", "--ttl", "0s"), "--ttl must be in 1s..24h"},
		{"ttl too long", append(base, "--role", "host", "--ttl", "25h"), "--ttl must be in 1s..24h"},
		{"ttl malformed", append(base, "--role", "host", "--ttl", "5"), "--ttl"},
		{"empty org", append(base, "--role", "host", "--org", ""), "orgId missing"},
		{"control in user", append(base, "--role", "viewer", "--user", "a\x1bb"), "userId holds a control character"},
		{"room too long", []string{"token", "--key", key, "--room", strings.Repeat("r", 300), "--role", "host"}, "longer than 256 bytes"},
		{"absent key file", []string{"token", "--key", key + ".nope", "--room", "s", "--role", "host"}, "no such file"},
		{"public key as --key", []string{"token", "--key", pubKey, "--room", "s", "--role", "host"}, `PEM block is "PUBLIC KEY"`},
		{"garbage key", []string{"token", "--key", garbage, "--room", "s", "--role", "host"}, "no PEM block"},
		{"argument", append(base, "--role", "host", "extra"), `unexpected argument "extra"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runInProcess(t, tc.args...)
			if code != exitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.say) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 2 and one line with %q", code, stdout, stderr, tc.say)
			}
		})
	}
}

// The binary end to end: keygen, then token, then verify what it printed.
func TestKeygenTokenBinary(t *testing.T) {
	name := filepath.Join(t.TempDir(), "relay")
	if r := cli(t, "", "", "keygen", "--out", name); r.code != 0 {
		t.Fatalf("keygen: exit %d, stderr %q", r.code, r.stderr)
	}
	r := cli(t, "", "", "token", "--key", name+".key", "--room", "s", "--role", "driver", "--user", "bob")
	if r.code != 0 {
		t.Fatalf("token: exit %d, stderr %q", r.code, r.stderr)
	}
	pub, err := token.ReadPublicKeyFile(name + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	v, _ := token.NewVerifier([]ed25519.PublicKey{pub}, token.VerifierOptions{})
	if c, err := v.Verify(strings.TrimSpace(r.stdout)); err != nil || c.UserID != "bob" {
		t.Fatalf("claims %+v, %v", c, err)
	}
	if r := cli(t, "", "", "keygen", "--out", name); r.code != exitUsage {
		t.Errorf("second keygen: exit %d, want 2", r.code)
	}
}
