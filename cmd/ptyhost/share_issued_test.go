package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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
