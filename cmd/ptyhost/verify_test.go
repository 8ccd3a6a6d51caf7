package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/internal/castchain"
)

// signedExecCast records a command through exec with --record-key and
// returns the cast's path and the key pair's base name.
func signedExecCast(t *testing.T) (castPath, keyBase string) {
	t.Helper()
	dir := t.TempDir()
	keyBase = filepath.Join(dir, "host")
	if code, _, stderr := runInProcess(t, "keygen", "--out", keyBase); code != 0 {
		t.Fatalf("keygen: %s", stderr)
	}
	castPath = filepath.Join(dir, "s.cast")
	script := `printf '\033]133;A\007$ \033]633;E;make\007\033]133;C\007'; for i in 1 2 3; do echo line $i; done; printf '\033]133;D;0\007'`
	r := cli(t, "", "", "exec", "--record", castPath, "--record-key", keyBase+".key", "--", "sh", "-c", script)
	if r.code != 0 {
		t.Fatalf("exec: exit %d, stderr %q", r.code, r.stderr)
	}
	return castPath, keyBase
}

// TestVerifyHostRecording signs a recording on the host side, verifies
// it with and without the key, plays it (the chain lines are comments),
// then changes one byte and truncates it.
func TestVerifyHostRecording(t *testing.T) {
	castPath, keyBase := signedExecCast(t)
	b, _ := os.ReadFile(castPath)
	if !strings.Contains(string(b), castchain.Prefix+"end ") {
		t.Fatalf("no closing line:\n%s", b)
	}
	r := cli(t, "", "", "verify", "--key", keyBase+".pub", castPath)
	if r.code != 0 || !strings.Contains(r.stdout, ": intact") || !strings.Contains(r.stdout, "(the trusted key)") {
		t.Fatalf("verify: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = cli(t, "", "", "verify", castPath)
	if r.code != 0 || !strings.Contains(r.stdout, "not checked against a key") {
		t.Fatalf("verify without key: exit %d\n%s", r.code, r.stdout)
	}
	r = cli(t, "", "", "play", "--screen", castPath)
	if r.code != 0 || !strings.Contains(r.stdout, "line 3") {
		t.Fatalf("play: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}

	changed := filepath.Join(t.TempDir(), "changed.cast")
	os.WriteFile(changed, []byte(strings.Replace(string(b), "line 2", "line 9", 1)), 0o600)
	r = cli(t, "", "", "verify", "--key", keyBase+".pub", changed)
	if r.code != 1 || !strings.Contains(r.stdout, "TAMPERED") || !strings.Contains(r.stdout, ": changed:") {
		t.Fatalf("changed: exit %d\n%s", r.code, r.stdout)
	}

	cut := filepath.Join(t.TempDir(), "cut.cast")
	i := strings.Index(string(b), castchain.Prefix+"end ")
	os.WriteFile(cut, b[:i], 0o600)
	r = cli(t, "", "", "verify", "--key", keyBase+".pub", cut)
	// So short a recording has no checkpoint before its closing line.
	if r.code != 1 || !strings.Contains(r.stdout, "cut short before its first checkpoint") {
		t.Fatalf("cut: exit %d\n%s", r.code, r.stdout)
	}
}

func TestVerifyWrongKeyAndUsage(t *testing.T) {
	castPath, _ := signedExecCast(t)
	other := filepath.Join(t.TempDir(), "other")
	runInProcess(t, "keygen", "--out", other)
	code, stdout, _ := runInProcess(t, "verify", "--key", other+".pub", castPath)
	if code != 1 || !strings.Contains(stdout, "wrong-key") {
		t.Fatalf("other key: exit %d\n%s", code, stdout)
	}
	for _, args := range [][]string{
		{"verify"},
		{"verify", "a", "b"},
		{"verify", filepath.Join(t.TempDir(), "missing.cast")},
		{"verify", "--key", castPath, castPath}, // not a PEM key
		{"verify", "--nope", castPath},
	} {
		if code, _, stderr := runInProcess(t, args...); code != exitUsage || stderr == "" {
			t.Errorf("%q: exit %d, stderr %q", args, code, stderr)
		}
	}
	if code, _, stderr := runInProcess(t, "exec", "--record-key", other+".key", "--", "true"); code != exitUsage || !strings.Contains(stderr, "--record FILE") {
		t.Errorf("--record-key without --record: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runInProcess(t, "exec", "--record", filepath.Join(t.TempDir(), "x"), "--record-format", "v2",
		"--record-key", other+".key", "--", "true"); code != exitUsage || !strings.Contains(stderr, "v3") {
		t.Errorf("--record-key with v2: exit %d, %q", code, stderr)
	}
}
