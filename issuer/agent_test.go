package issuer_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"encoding/pem"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/issuer"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
	"golang.org/x/crypto/ssh"
)

// needTool skips (or, with PTYHOST_REQUIRE_TOOLS=1, fails) without name.
func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("PTYHOST_REQUIRE_TOOLS") == "1" {
			t.Fatalf("%s is required (PTYHOST_REQUIRE_TOOLS=1): %v", name, err)
		}
		t.Skipf("SKIPPED: %s not installed (openssh-client); the ssh-agent signer is untested", name)
	}
	return p
}

// writeKey writes k as an OpenSSH private key file (mode 0600), with a
// passphrase when one is given.
func writeKey(t *testing.T, path string, k any, passphrase string) ssh.PublicKey {
	t.Helper()
	var blk *pem.Block
	var err error
	if passphrase == "" {
		blk, err = ssh.MarshalPrivateKey(k, "test key")
	} else {
		blk, err = ssh.MarshalPrivateKeyWithPassphrase(k, "test key", []byte(passphrase))
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(blk), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := ssh.NewSignerFromKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return s.PublicKey()
}

func line(k ssh.PublicKey, name string) string {
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(k))) + " " + name + "\n"
}

// issuerRelay starts a loopback relay in issuer mode listing authorized.
func issuerRelay(t *testing.T, authorized string) *relaytest.Server {
	t.Helper()
	users, err := issuer.ParseAuthorizedKeys([]byte(authorized), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	return relaytest.NewServer(t, relay.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Issuer: &relay.IssuerConfig{Key: key, Users: users}})
}

// TestAgentSigner: keys held by a real ssh-agent (an ed25519 and an RSA
// key, added with ssh-add) log in to a real relay through FindSigner and
// AgentSigners; the RSA key signs with SHA-2 through the agent.
func TestAgentSigner(t *testing.T) {
	agentBin, addBin := needTool(t, "ssh-agent"), needTool(t, "ssh-add")
	dir := t.TempDir()
	_, ek, _ := ed25519.GenerateKey(rand.Reader)
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	epub := writeKey(t, filepath.Join(dir, "id_ed25519"), ek, "")
	rpub := writeKey(t, filepath.Join(dir, "id_rsa"), rk, "")
	sock := filepath.Join(dir, "agent.sock")
	ctx, cancel := context.WithCancel(context.Background())
	agent := exec.CommandContext(ctx, agentBin, "-D", "-a", sock)
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		agent.Wait()
	})
	testkit.Eventually(t, "ssh-agent socket", func() bool { _, err := os.Stat(sock); return err == nil })
	for _, k := range []string{"id_ed25519", "id_rsa"} {
		add := exec.Command(addBin, filepath.Join(dir, k))
		add.Env = append(os.Environ(), "SSH_AUTH_SOCK="+sock)
		if out, err := add.CombinedOutput(); err != nil {
			t.Fatalf("ssh-add %s: %v: %s", k, err, out)
		}
	}
	s := issuerRelay(t, line(epub, "alice")+line(rpub, "bob"))

	t.Setenv("SSH_AUTH_SOCK", sock)
	t.Setenv("HOME", t.TempDir()) // no key files to fall back on
	first, err := issuer.FindSigner("")
	if err != nil {
		t.Fatal(err)
	}
	if ssh.FingerprintSHA256(first.PublicKey()) != ssh.FingerprintSHA256(epub) {
		t.Fatalf("FindSigner gave %s, want the agent's first key", first.PublicKey().Type())
	}
	signers, err := issuer.AgentSigners(sock)
	if err != nil || len(signers) != 2 {
		t.Fatalf("agent signers: %d, %v", len(signers), err)
	}
	for i, want := range []string{"alice", "bob"} {
		c, _ := issuer.NewClient(s.HTTPURL, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		who, err := c.Login(ctx, signers[i])
		cancel()
		if err != nil || who.User != want {
			t.Fatalf("login with the agent's %s key: %+v, %v", signers[i].PublicKey().Type(), who, err)
		}
	}
}

// TestFindSignerFiles: without an agent, ~/.ssh/id_ed25519 is found; an
// explicit file wins; a key behind a passphrase is refused with the way
// out (ssh-add); no key at all says where it looked.
func TestFindSignerFiles(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("SSH_AUTH_SOCK", "")
	if _, err := issuer.FindSigner(""); !errors.Is(err, issuer.ErrNoSigner) {
		t.Fatalf("no keys: %v", err)
	}
	os.Mkdir(filepath.Join(home, ".ssh"), 0o700)
	_, k1, _ := ed25519.GenerateKey(rand.Reader)
	_, k2, _ := ed25519.GenerateKey(rand.Reader)
	p1 := writeKey(t, filepath.Join(home, ".ssh", "id_ed25519"), k1, "")
	p2 := writeKey(t, filepath.Join(home, "other"), k2, "")
	writeKey(t, filepath.Join(home, "locked"), k2, "sesame")
	for path, want := range map[string]ssh.PublicKey{"": p1, filepath.Join(home, "other"): p2} {
		s, err := issuer.FindSigner(path)
		if err != nil || ssh.FingerprintSHA256(s.PublicKey()) != ssh.FingerprintSHA256(want) {
			t.Fatalf("FindSigner(%q): %v", path, err)
		}
	}
	if _, err := issuer.FindSigner(filepath.Join(home, "locked")); err == nil || !strings.Contains(err.Error(), "ssh-add") {
		t.Fatalf("a key behind a passphrase: %v", err)
	}
}
