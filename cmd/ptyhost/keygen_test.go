package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/token"
)

// runInProcess drives run as main does, exit code and all, without a
// child process: for commands that need no terminal.
func runInProcess(t testing.TB, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	err := run(ctx, args, strings.NewReader(""), &out, &errb)
	code = exitCode(err, &errb)
	return code, out.String(), errb.String()
}

func TestKeygenWritesKeyPair(t *testing.T) {
	name := filepath.Join(t.TempDir(), "relay")
	code, stdout, stderr := runInProcess(t, "keygen", "--out", name)
	if code != 0 || stderr != "" || !strings.Contains(stdout, name+".key") || !strings.Contains(stdout, name+".pub") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	fi, err := os.Stat(name + ".key")
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("NAME.key mode %v, want 0600", fi.Mode().Perm())
	}
	priv, err := token.ReadPrivateKeyFile(name + ".key")
	if err != nil {
		t.Fatal(err)
	}
	pub, err := token.ReadPublicKeyFile(name + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	if !pub.Equal(priv.Public()) {
		t.Error("NAME.pub is not NAME.key's public key")
	}
}

func TestKeygenRefusesToOverwrite(t *testing.T) {
	name := filepath.Join(t.TempDir(), "relay")
	if code, _, stderr := runInProcess(t, "keygen", "--out", name); code != 0 {
		t.Fatalf("first keygen: exit %d, %q", code, stderr)
	}
	before, _ := os.ReadFile(name + ".key")
	code, stdout, stderr := runInProcess(t, "keygen", "--out", name)
	if code != exitUsage || stdout != "" || !strings.Contains(stderr, "already exists") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 2 and 'already exists'", code, stdout, stderr)
	}
	if after, _ := os.ReadFile(name + ".key"); !bytes.Equal(before, after) {
		t.Error("the private key was overwritten")
	}
}

func TestKeygenUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		say  string
	}{
		{"missing --out", []string{"keygen"}, "missing --out"},
		{"argument", []string{"keygen", "--out", filepath.Join(dir, "k"), "extra"}, `unexpected argument "extra"`},
		{"unknown flag", []string{"keygen", "--force"}, "unknown flag --force"},
		{"no value", []string{"keygen", "--out"}, "--out needs a value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runInProcess(t, tc.args...)
			if code != exitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.say) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 2 and one line with %q", code, stdout, stderr, tc.say)
			}
		})
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*")); len(m) != 0 {
		t.Errorf("files written on a usage error: %v", m)
	}
}

func TestKeygenAndTokenHelp(t *testing.T) {
	for cmd, want := range map[string]string{"keygen": keygenHelp, "token": tokenHelp} {
		for _, args := range [][]string{{cmd, "--help"}, {cmd, "-h"}, {"help", cmd}} {
			code, stdout, stderr := runInProcess(t, args...)
			if code != 0 || stdout != want || stderr != "" {
				t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
			}
		}
	}
	if _, stdout, _ := runInProcess(t, "--help"); !strings.Contains(stdout, "keygen") || !strings.Contains(stdout, "token ") {
		t.Errorf("top help does not list keygen and token:\n%s", stdout)
	}
}
