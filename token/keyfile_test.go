package token

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestPEMRoundTrip(t *testing.T) {
	pub, priv := newKey(t)
	privPEM, err := MarshalPrivateKeyPEM(priv)
	if err != nil {
		t.Fatal(err)
	}
	pubPEM, err := MarshalPublicKeyPEM(pub)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(privPEM, []byte("-----BEGIN PRIVATE KEY-----\n")) ||
		!bytes.HasPrefix(pubPEM, []byte("-----BEGIN PUBLIC KEY-----\n")) {
		t.Fatalf("PEM headers:\n%s%s", privPEM, pubPEM)
	}
	gotPriv, err := ParsePrivateKeyPEM(privPEM)
	if err != nil {
		t.Fatal(err)
	}
	gotPub, err := ParsePublicKeyPEM(pubPEM)
	if err != nil {
		t.Fatal(err)
	}
	if !gotPriv.Equal(priv) || !gotPub.Equal(pub) {
		t.Fatal("keys differ after the round trip")
	}
	// Trailing whitespace (an editor's newline) is fine.
	if _, err := ParsePublicKeyPEM(append(pubPEM, "\n\n"...)); err != nil {
		t.Errorf("trailing newlines: %v", err)
	}
}

// A key from another tool: the RFC 8410 test vector's private key, as
// openssl genpkey -algorithm ed25519 writes it.
func TestParsePrivateKeyPEMReadsRFC8410(t *testing.T) {
	const rfc8410 = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEINTuctv5E1hK1bbY8fdp+K06/nwoy/HU++CXqI9EdVhC\n-----END PRIVATE KEY-----\n"
	k, err := ParsePrivateKeyPEM([]byte(rfc8410))
	if err != nil {
		t.Fatal(err)
	}
	if k.Seed()[0] != 0xd4 || k.Seed()[31] != 0x42 {
		t.Errorf("seed %x", k.Seed())
	}
}

func TestParsePEMRejectsBadInput(t *testing.T) {
	pub, priv := newKey(t)
	privPEM, _ := MarshalPrivateKeyPEM(priv)
	pubPEM, _ := MarshalPublicKeyPEM(pub)
	ek, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ecPriv, _ := x509.MarshalPKCS8PrivateKey(ek)
	ecPub, _ := x509.MarshalPKIXPublicKey(&ek.PublicKey)
	block := func(typ string, der []byte, hdr map[string]string) []byte {
		return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der, Headers: hdr})
	}
	privDER, _ := pem.Decode(privPEM)
	pubDER, _ := pem.Decode(pubPEM)
	for _, tc := range []struct {
		name string
		priv bool // parse as a private key; else as a public one
		b    []byte
	}{
		{"empty", true, nil},
		{"garbage", true, []byte("not a key at all")},
		{"public as private", true, pubPEM},
		{"private as public", false, privPEM},
		{"legacy type", true, block("ED25519 PRIVATE KEY", privDER.Bytes, nil)},
		{"encrypted headers", true, block("PRIVATE KEY", privDER.Bytes, map[string]string{"Proc-Type": "4,ENCRYPTED"})},
		{"two private keys", true, append(append([]byte{}, privPEM...), privPEM...)},
		{"two public keys", false, append(append([]byte{}, pubPEM...), pubPEM...)},
		{"trailing text", false, append(append([]byte{}, pubPEM...), "junk"...)},
		{"garbage DER private", true, block("PRIVATE KEY", []byte{0x30, 0x03, 1, 2, 3}, nil)},
		{"garbage DER public", false, block("PUBLIC KEY", pubDER.Bytes[:20], nil)},
		{"ECDSA private", true, block("PRIVATE KEY", ecPriv, nil)},
		{"ECDSA public", false, block("PUBLIC KEY", ecPub, nil)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.priv {
				_, err = ParsePrivateKeyPEM(tc.b)
			} else {
				_, err = ParsePublicKeyPEM(tc.b)
			}
			if err == nil {
				t.Fatal("parsed")
			}
			t.Log(err)
		})
	}
}

func TestMarshalPEMRejectsWrongSize(t *testing.T) {
	pub, priv := newKey(t)
	if _, err := MarshalPrivateKeyPEM(priv[:32]); err == nil {
		t.Error("marshalled a 32-byte private key")
	}
	if _, err := MarshalPublicKeyPEM(pub[:16]); err == nil {
		t.Error("marshalled a 16-byte public key")
	}
}

func TestWriteKeyFilesMode0600(t *testing.T) {
	name := filepath.Join(t.TempDir(), "relay")
	pubPath, keyPath, err := WriteKeyFiles(name)
	if err != nil {
		t.Fatal(err)
	}
	if pubPath != name+".pub" || keyPath != name+".key" {
		t.Errorf("paths %q %q", pubPath, keyPath)
	}
	for path, want := range map[string]fs.FileMode{keyPath: 0o600, pubPath: 0o644} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		// umask may clear bits of the public key's mode, never add any.
		if got := fi.Mode().Perm(); got != want && !(path == pubPath && got&^want == 0) {
			t.Errorf("%s: mode %v, want %v", path, got, want)
		}
	}
	priv, err := ReadPrivateKeyFile(keyPath)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := ReadPublicKeyFile(pubPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newVerifier(t, pub).Verify(mint(t, priv, hostClaims())); err != nil {
		t.Errorf("the written pair does not match: %v", err)
	}
}

func TestWriteKeyFilesNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	for _, existing := range []string{".key", ".pub"} {
		t.Run(existing, func(t *testing.T) {
			name := filepath.Join(dir, "k"+existing[1:])
			old := []byte("precious\n")
			if err := os.WriteFile(name+existing, old, 0o600); err != nil {
				t.Fatal(err)
			}
			_, _, err := WriteKeyFiles(name)
			if !errors.Is(err, fs.ErrExist) {
				t.Fatalf("WriteKeyFiles = %v, want fs.ErrExist", err)
			}
			if b, _ := os.ReadFile(name + existing); !bytes.Equal(b, old) {
				t.Errorf("%s was overwritten", existing)
			}
			entries, _ := filepath.Glob(name + ".*")
			if len(entries) != 1 {
				t.Errorf("files left behind: %v", entries)
			}
		})
	}
}

// O_EXCL refuses a dangling symlink where the key would go, so the key is
// never written through it to wherever it points.
func TestWriteKeyFilesRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	if err := os.Symlink(target, filepath.Join(dir, "k.key")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if _, _, err := WriteKeyFiles(filepath.Join(dir, "k")); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("WriteKeyFiles = %v, want fs.ErrExist", err)
	}
	if _, err := os.Lstat(target); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the symlink's target was created: %v", err)
	}
}

func TestReadKeyFileErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadPrivateKeyFile(filepath.Join(dir, "absent.key")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("absent private key: %v", err)
	}
	if _, err := ReadPublicKeyFile(filepath.Join(dir, "absent.pub")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("absent public key: %v", err)
	}
	bad := filepath.Join(dir, "bad.pub")
	os.WriteFile(bad, []byte("garbage"), 0o644)
	if _, err := ReadPublicKeyFile(bad); err == nil || !bytes.Contains([]byte(err.Error()), []byte(bad)) {
		t.Errorf("garbage public key: %v, want an error naming the file", err)
	}
}

// openssl must read what WriteKeyFiles writes, and the reverse, since
// operators may make or inspect keys with it.
func TestKeyFilesOpenSSLInterop(t *testing.T) {
	openssl, err := exec.LookPath("openssl")
	if err != nil {
		if os.Getenv("PTYHOST_REQUIRE_TOOLS") == "1" {
			t.Fatal("openssl not found and PTYHOST_REQUIRE_TOOLS=1")
		}
		t.Skip("SKIP: openssl not found; the PEM interop with openssl is untested")
	}
	dir := t.TempDir()
	pubPath, keyPath, err := WriteKeyFiles(filepath.Join(dir, "ours"))
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"pkey", "-in", keyPath, "-noout"},
		{"pkey", "-pubin", "-in", pubPath, "-noout"},
		{"genpkey", "-algorithm", "ed25519", "-out", filepath.Join(dir, "theirs.key")},
		{"pkey", "-in", filepath.Join(dir, "theirs.key"), "-pubout", "-out", filepath.Join(dir, "theirs.pub")},
	} {
		if out, err := exec.Command(openssl, args...).CombinedOutput(); err != nil {
			t.Fatalf("openssl %q: %v\n%s", args, err, out)
		}
	}
	priv, err := ReadPrivateKeyFile(filepath.Join(dir, "theirs.key"))
	if err != nil {
		t.Fatal(err)
	}
	pub, err := ReadPublicKeyFile(filepath.Join(dir, "theirs.pub"))
	if err != nil {
		t.Fatal(err)
	}
	if !pub.Equal(priv.Public()) {
		t.Error("openssl's public key does not match its private key as read")
	}
}
