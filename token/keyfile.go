package token

import (
	"bytes"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
)

// PEM block types: a private key is PKCS#8, a public key PKIX, as
// openssl genpkey -algorithm ed25519 and openssl pkey -pubout write them.
const (
	privatePEMType = "PRIVATE KEY"
	publicPEMType  = "PUBLIC KEY"
)

// MarshalPrivateKeyPEM encodes key as a PKCS#8 "PRIVATE KEY" PEM block.
func MarshalPrivateKeyPEM(key ed25519.PrivateKey) ([]byte, error) {
	if len(key) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("token: marshal private key: %d bytes, want %d", len(key), ed25519.PrivateKeySize)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("token: marshal private key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: privatePEMType, Bytes: der}), nil
}

// MarshalPublicKeyPEM encodes key as a PKIX "PUBLIC KEY" PEM block.
func MarshalPublicKeyPEM(key ed25519.PublicKey) ([]byte, error) {
	if len(key) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("token: marshal public key: %d bytes, want %d", len(key), ed25519.PublicKeySize)
	}
	der, err := x509.MarshalPKIXPublicKey(key)
	if err != nil {
		return nil, fmt.Errorf("token: marshal public key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: publicPEMType, Bytes: der}), nil
}

// ParsePrivateKeyPEM decodes one PKCS#8 "PRIVATE KEY" block holding an
// Ed25519 key. Anything else in the input, an encrypted block or a key of
// another algorithm is an error.
func ParsePrivateKeyPEM(b []byte) (ed25519.PrivateKey, error) {
	der, err := onePEMBlock(b, privatePEMType)
	if err != nil {
		return nil, fmt.Errorf("token: parse private key: %w", err)
	}
	k, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, fmt.Errorf("token: parse private key: %w", err)
	}
	ek, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("token: parse private key: %T is not an Ed25519 key", k)
	}
	return ek, nil
}

// ParsePublicKeyPEM decodes one PKIX "PUBLIC KEY" block holding an
// Ed25519 key. Anything else in the input or a key of another algorithm
// is an error.
func ParsePublicKeyPEM(b []byte) (ed25519.PublicKey, error) {
	der, err := onePEMBlock(b, publicPEMType)
	if err != nil {
		return nil, fmt.Errorf("token: parse public key: %w", err)
	}
	k, err := x509.ParsePKIXPublicKey(der)
	if err != nil {
		return nil, fmt.Errorf("token: parse public key: %w", err)
	}
	ek, ok := k.(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("token: parse public key: %T is not an Ed25519 key", k)
	}
	return ek, nil
}

// onePEMBlock returns the bytes of the single PEM block of type typ in b,
// refusing headers (an encrypted legacy block) and any other content, so
// that a file holding two keys is not silently read as its first.
func onePEMBlock(b []byte, typ string) ([]byte, error) {
	block, rest := pem.Decode(b)
	switch {
	case block == nil:
		return nil, errors.New("no PEM block")
	case block.Type != typ:
		return nil, fmt.Errorf("PEM block is %q, want %q", block.Type, typ)
	case len(block.Headers) > 0:
		return nil, errors.New("PEM block has headers (encrypted keys are not supported)")
	case len(bytes.TrimSpace(rest)) > 0:
		return nil, errors.New("data after the PEM block")
	}
	return block.Bytes, nil
}

// ReadPrivateKeyFile reads a private key written by WriteKeyFiles (or by
// openssl genpkey -algorithm ed25519).
func ReadPrivateKeyFile(path string) (ed25519.PrivateKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("token: read private key: %w", err)
	}
	k, err := ParsePrivateKeyPEM(b)
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", err, path)
	}
	return k, nil
}

// ReadPublicKeyFile reads a public key written by WriteKeyFiles (or by
// openssl pkey -pubout).
func ReadPublicKeyFile(path string) (ed25519.PublicKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("token: read public key: %w", err)
	}
	k, err := ParsePublicKeyPEM(b)
	if err != nil {
		return nil, fmt.Errorf("%w (%s)", err, path)
	}
	return k, nil
}

// WriteKeyFiles generates a key pair and writes NAME.key (the private key,
// mode 0600) and NAME.pub (the public key, mode 0644). Both are created
// exclusively: if either exists, nothing is overwritten and the error
// wraps fs.ErrExist. On failure no file of this call is left behind.
func WriteKeyFiles(name string) (pubPath, keyPath string, err error) {
	pub, priv, err := GenerateKey()
	if err != nil {
		return "", "", err
	}
	privPEM, err := MarshalPrivateKeyPEM(priv)
	if err != nil {
		return "", "", err
	}
	pubPEM, err := MarshalPublicKeyPEM(pub)
	if err != nil {
		return "", "", err
	}
	pubPath, keyPath = name+".pub", name+".key"
	if err := createExclusive(keyPath, privPEM, 0o600); err != nil {
		return "", "", fmt.Errorf("token: write key files: %w", err)
	}
	if err := createExclusive(pubPath, pubPEM, 0o644); err != nil {
		os.Remove(keyPath)
		return "", "", fmt.Errorf("token: write key files: %w", err)
	}
	return pubPath, keyPath, nil
}

// createExclusive writes b to a new file at path, failing if path exists
// (O_EXCL also refuses a symlink planted there), and removes what it
// created if the write fails.
func createExclusive(path string, b []byte, perm os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}
