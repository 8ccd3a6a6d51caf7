package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/token"
)

// share fails loudly before the program starts: a relay nobody answers
// for is 69, a relay that refuses the key 77, each with one line, and the
// program never ran.
func TestShareFailsBeforeTheProgramStarts(t *testing.T) {
	s := relaytest.NewServer(t, relay.Config{})
	_, other, err := token.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	keyFile := func(name string, pem []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	goodPEM, _ := token.MarshalPrivateKeyPEM(s.Key)
	otherPEM, _ := token.MarshalPrivateKeyPEM(other)
	good, wrong := keyFile("good.key", goodPEM), keyFile("other.key", otherPEM)
	for _, tc := range []struct {
		name, relay, key string
		code             int
		says             string
	}{
		{"unreachable", "ws://" + testkit.FreeAddr(t), good, 69, "relay unreachable"},
		{"refused", s.URL, wrong, 77, "refused the credential"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			marker := filepath.Join(dir, tc.name+".ran")
			cmd := exec.Command(ptyhostBin, "share", "--relay", tc.relay, "--key", tc.key, "--", "touch", marker)
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tc.code {
				t.Fatalf("share: %v, want exit %d\n%s", err, tc.code, out)
			}
			if lines := strings.Split(strings.TrimSpace(string(out)), "\n"); len(lines) != 1 || !strings.Contains(lines[0], tc.says) {
				t.Errorf("share said %q, want one line saying %q", out, tc.says)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Error("the program ran")
			}
		})
	}
}
