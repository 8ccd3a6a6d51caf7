package issuer

import (
	"crypto/ed25519"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

func newKey(t testing.TB) ssh.PublicKey {
	t.Helper()
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	k, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func keyLine(k ssh.PublicKey) string { return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(k))) }

func TestLoadUsersFileAndDirectory(t *testing.T) {
	a, b, c := newKey(t), newKey(t), newKey(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "authorized_keys")
	body := "# the team\n\n" + keyLine(a) + " alice@laptop work key\n" +
		`no-pty,command="echo hi",environment="A=B" ` + keyLine(b) + " bob\n" + keyLine(c) + "\n"
	usersFile := filepath.Join(dir, "users")
	os.WriteFile(file, []byte(body), 0o600)
	os.WriteFile(usersFile, []byte("# names\n"+ssh.FingerprintSHA256(c)+" carol\n"+ssh.FingerprintSHA256(b)+" robert\n"), 0o600)
	u, err := LoadUsers(file, usersFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		k    ssh.PublicKey
		want string
	}{{a, "alice@laptop"}, {b, "robert"}, {c, "carol"}} {
		if got, ok := u.Lookup(tc.k); !ok || got.Name != tc.want {
			t.Errorf("%s: %+v, want %s", ssh.FingerprintSHA256(tc.k), got, tc.want)
		}
	}
	if _, err := LoadUsers(file, ""); err == nil || !strings.Contains(err.Error(), "no name") {
		t.Errorf("a key without a comment or mapping: %v", err)
	}

	perUser := filepath.Join(dir, "keys")
	os.Mkdir(perUser, 0o700)
	os.WriteFile(filepath.Join(perUser, "dana"), []byte(keyLine(a)+" whatever\n"+keyLine(c)+"\n"), 0o600)
	os.WriteFile(filepath.Join(perUser, ".hidden"), []byte("junk\n"), 0o600)
	u, err = LoadUsers(perUser, "")
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := u.Lookup(a); got.Name != "dana" || u.Len() != 2 {
		t.Errorf("directory mode: %+v, %d keys", got, u.Len())
	}
	old := u
	u2, _ := ParseAuthorizedKeys([]byte(keyLine(b)+" bob\n"), nil)
	old.Replace(u2)
	if _, ok := old.Lookup(a); ok {
		t.Error("a replaced list still has the old key")
	}
}

func TestParseAuthorizedKeysRefusals(t *testing.T) {
	k := keyLine(newKey(t))
	for name, body := range map[string]string{
		"malformed":       "ssh-ed25519 AAAAnotakey alice\n",
		"unknown option":  "frobnicate " + k + " alice\n",
		"from":            `from="10.0.0.0/8" ` + k + " alice\n",
		"cert-authority":  "cert-authority " + k + " alice\n",
		"expiry-time":     `expiry-time="20300101" ` + k + " alice\n",
		"valueless":       "command " + k + " alice\n",
		"control in name": k + " al\x1bice\n",
		"long name":       k + " " + strings.Repeat("n", 65) + "\n",
		"two names":       k + " alice\n" + k + " bob\n",
		"garbage":         "hello world\n",
	} {
		if _, err := ParseAuthorizedKeys([]byte(body), nil); err == nil {
			t.Errorf("%s: accepted", name)
		} else if strings.Contains(err.Error(), "AAAA") {
			t.Errorf("%s: the error quotes the key: %v", name, err)
		}
	}
	for name, body := range map[string]string{
		"not a fingerprint": "MD5:aa alice\n",
		"three fields":      "SHA256:" + strings.Repeat("A", 43) + " alice smith\n",
		"twice":             "SHA256:" + strings.Repeat("A", 43) + " a\nSHA256:" + strings.Repeat("A", 43) + " b\n",
	} {
		if _, err := ParseUsersFile([]byte(body)); err == nil {
			t.Errorf("users file %s: accepted", name)
		}
	}
}

// FuzzLoadUsers: the authorized_keys and users-file parsers never panic,
// and every user they accept has a name within bounds.
func FuzzLoadUsers(f *testing.F) {
	f.Add([]byte("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGPbvl9yZ5ax4yXNq0aJWo3bbgq2C8U6FUs2wF6PBZ2w alice\n"), []byte("SHA256:"+strings.Repeat("A", 43)+" bob\n"))
	f.Add([]byte(`no-pty,command="x" ssh-rsa AAAA bob`), []byte("# none\n"))
	f.Fuzz(func(t *testing.T, keys, users []byte) {
		names, err := ParseUsersFile(users)
		if err != nil {
			names = nil
		}
		u, err := ParseAuthorizedKeys(keys, names)
		if err != nil {
			return
		}
		for _, usr := range u.byFP() {
			if checkName(usr.Name) != nil || usr.Fingerprint != ssh.FingerprintSHA256(usr.Key) {
				t.Fatalf("accepted %+v", usr)
			}
		}
	})
}
