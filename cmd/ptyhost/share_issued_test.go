package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/link"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/issuer"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
	"golang.org/x/crypto/ssh"
)

// share through a relay in issuer mode fails before the program starts:
// 69 when nothing answers at the relay's address, 77 when the relay does
// not list the key; the program never ran.
func TestShareIssuerFailsBeforeTheProgram(t *testing.T) {
	dir := t.TempDir()
	_, k, _ := ed25519.GenerateKey(rand.Reader)
	blk, err := ssh.MarshalPrivateKey(k, "")
	if err != nil {
		t.Fatal(err)
	}
	identity := filepath.Join(dir, "id_ed25519")
	os.WriteFile(identity, pem.EncodeToMemory(blk), 0o600)

	listed := sshSigner(t)
	users, _ := issuer.ParseAuthorizedKeys([]byte(keysLine(listed, "alice")), nil)
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	s := relaytest.NewServer(t, relay.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Issuer: &relay.IssuerConfig{Key: key, Users: users}})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()

	for _, tc := range []struct {
		relay string
		code  int
		say   string
	}{
		{dead, exitUnreachable, "relay unreachable"},
		{s.HTTPURL, exitRefused, "not listed"},
	} {
		marker := filepath.Join(dir, "ran")
		cmd := exec.Command(ptyhostBin, "share", "--relay", tc.relay, "--identity", identity, "--", "sh", "-c", "touch "+marker)
		cmd.Env = append(os.Environ(), "SSH_AUTH_SOCK=", "HOME="+dir)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != tc.code {
			t.Errorf("share --relay %s: %v, want exit %d; output %q", tc.relay, err, tc.code, out)
		}
		if !strings.Contains(string(out), tc.say) || strings.Count(strings.TrimSpace(string(out)), "\n") > 0 {
			t.Errorf("share --relay %s said %q, want one line saying %q", tc.relay, out, tc.say)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Errorf("share --relay %s started the program", tc.relay)
		}
	}
}

// startSSHAgent runs a real ssh-agent holding the key file keyFile and
// returns its socket; it skips without openssh-client (fails under
// PTYHOST_REQUIRE_TOOLS=1).
func startSSHAgent(t *testing.T, keyFile string) string {
	t.Helper()
	var bins [2]string
	for i, name := range []string{"ssh-agent", "ssh-add"} {
		p, err := exec.LookPath(name)
		if err != nil {
			if os.Getenv("PTYHOST_REQUIRE_TOOLS") == "1" {
				t.Fatalf("%s is required (PTYHOST_REQUIRE_TOOLS=1)", name)
			}
			t.Skipf("SKIPPED: %s not installed (openssh-client)", name)
		}
		bins[i] = p
	}
	sock := filepath.Join(t.TempDir(), "agent.sock")
	agent := exec.Command(bins[0], "-D", "-a", sock)
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		agent.Process.Kill()
		agent.Wait()
	})
	testkit.Eventually(t, "ssh-agent's socket", func() bool { _, err := os.Stat(sock); return err == nil })
	add := exec.Command(bins[1], keyFile)
	add.Env = append(os.Environ(), "SSH_AUTH_SOCK="+sock)
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("ssh-add: %v: %s", err, out)
	}
	return sock
}

// writeSSHKey writes a new ed25519 key as an OpenSSH private key file and
// returns its signer.
func writeSSHKey(t *testing.T, path string) ssh.Signer {
	t.Helper()
	_, k, _ := ed25519.GenerateKey(rand.Reader)
	blk, err := ssh.MarshalPrivateKey(k, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(blk), 0o600); err != nil {
		t.Fatal(err)
	}
	s, _ := ssh.NewSignerFromKey(k)
	return s
}

// ptyhost share --relay URL with nothing but an SSH key, from a real
// ssh-agent and from a key file: the built binary logs in, prints a watch
// and a drive short link, and a guest who redeems the watch link under a
// name sees what the sharer types, as does ptyhost attach given the link.
func TestShareThroughAnIssuerEndToEnd(t *testing.T) {
	dir := t.TempDir()
	agentKey, fileKey := filepath.Join(dir, "agent_key"), filepath.Join(dir, "file_key")
	a, f := writeSSHKey(t, agentKey), writeSSHKey(t, fileKey)
	sock := startSSHAgent(t, agentKey)
	users, _ := issuer.ParseAuthorizedKeys([]byte(keysLine(a, "alice")+keysLine(f, "fred")), nil)
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	s := relaytest.NewServer(t, relay.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Issuer: &relay.IssuerConfig{Key: key, Users: users}})
	tm := newTmux(t)
	tm.run("new-session", "-d", "-s", "main", "-x", "120", "-y", "30", "/bin/sh")
	for i, creds := range []string{"SSH_AUTH_SOCK=" + sock, "SSH_AUTH_SOCK= --identity " + shellQuote(fileKey)} {
		env, flags, _ := strings.Cut(creds+" ", " ")
		tm.typeLine("clear; " + env + " HOME=" + shellQuote(dir) + " " + helperEnv + "=tui " + shellQuote(ptyhostBin) +
			" share --relay " + s.HTTPURL + " " + flags + "--final-screen 1s -- " + shellQuote(self(t)) + fmt.Sprintf("; echo rc%d=$?", i))
		tm.waitFor("TUI-READY")
		hist := strings.Split(tm.run("capture-pane", "-p", "-J", "-S", "-", "-t", "main"), "\n")
		var watchLink string
		for j, l := range hist {
			if strings.TrimSpace(l) == "Watch link:" && j+1 < len(hist) {
				watchLink = strings.TrimSpace(hist[j+1])
			}
		}
		l, err := link.Parse(watchLink)
		if err != nil || l.Invite == "" {
			t.Fatalf("no watch link in the share's output (%v):\n%s", err, strings.Join(hist, "\n"))
		}
		c, _ := issuer.NewClient(s.HTTPURL, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		r, err := c.Redeem(ctx, l.Room, l.Invite, "ann")
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		key, err := l.RoomKey()
		if err != nil || key == nil {
			t.Fatalf("the watch link carries no room key: %v", err)
		}
		v := watch(t, s.RoomURL(l.Room), l.Room, r.Token, attachwire.RoleViewer, false, key)
		if i == 0 {
			// And ptyhost attach, given the short link privately.
			tm.run("new-window", "-d", "-n", "att", "/bin/sh")
			tm.typeLineIn("att", "PTYHOST_LINK='"+watchLink+"' "+shellQuote(ptyhostBin)+" attach --name bea; echo arc=$?")
			tm.waitIn("att", "TUI-READY")
		}
		word := fmt.Sprintf("through-the-issuer-%d", i)
		tm.typeLine(word)
		v.until(t, "what the sharer typed", func(s string, _ *attachwire.Exit) bool { return strings.Contains(s, "got: "+word) })
		if i == 0 {
			tm.waitIn("att", "got: "+word)
		}
		tm.typeLine("exit 3")
		v.until(t, "Exit 3", func(_ string, ex *attachwire.Exit) bool { return ex != nil && ex.Code == 3 })
		tm.waitFor(fmt.Sprintf("rc%d=3", i))
		if i == 0 {
			tm.waitIn("att", "arc=3")
		}
		v.stop()
	}
}
