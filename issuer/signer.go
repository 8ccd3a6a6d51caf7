package issuer

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// ErrNoSigner is matched by FindSigner's error when no key was found.
var ErrNoSigner = errors.New("issuer: no SSH key found")

// defaultKeyFiles are the key files FindSigner tries under ~/.ssh, in
// order.
var defaultKeyFiles = []string{"id_ed25519", "id_ecdsa", "id_rsa"}

// FindSigner finds the SSH key to log in with: identityFile when it is
// given (an explicit choice wins); else the first key of the ssh-agent at
// SSH_AUTH_SOCK; else the first of ~/.ssh/id_ed25519, id_ecdsa and
// id_rsa that exists. A key file protected by a passphrase is an error
// that says to add it to the agent (the issuer never asks for a
// passphrase).
func FindSigner(identityFile string) (ssh.Signer, error) {
	if identityFile != "" {
		return readKeyFile(identityFile)
	}
	if sock := os.Getenv("SSH_AUTH_SOCK"); sock != "" {
		signers, err := AgentSigners(sock)
		if err == nil && len(signers) > 0 {
			return signers[0], nil
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, fmt.Errorf("%w: no ssh-agent and no home directory", ErrNoSigner)
	}
	for _, name := range defaultKeyFiles {
		p := filepath.Join(home, ".ssh", name)
		if _, err := os.Stat(p); err == nil {
			return readKeyFile(p)
		}
	}
	return nil, fmt.Errorf("%w: no key in ssh-agent (SSH_AUTH_SOCK) and none of ~/.ssh/id_ed25519, id_ecdsa, id_rsa; "+
		"give one with --identity FILE", ErrNoSigner)
}

// AgentSigners returns the keys of the ssh-agent listening on sock. The
// connection stays open for the signers' use.
func AgentSigners(sock string) ([]ssh.Signer, error) {
	conn, err := net.Dial("unix", sock)
	if err != nil {
		return nil, fmt.Errorf("issuer: ssh-agent: %w", err)
	}
	signers, err := agent.NewClient(conn).Signers()
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("issuer: ssh-agent: %w", err)
	}
	if len(signers) == 0 {
		conn.Close()
	}
	return signers, nil
}

func readKeyFile(path string) (ssh.Signer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("issuer: identity: %w", err)
	}
	s, err := ssh.ParsePrivateKey(b)
	var pm *ssh.PassphraseMissingError
	if errors.As(err, &pm) {
		return nil, fmt.Errorf("issuer: %s is protected by a passphrase: add it to your ssh-agent (ssh-add %s) and try again", path, path)
	}
	if err != nil {
		return nil, fmt.Errorf("issuer: %s: %w", path, err)
	}
	return s, nil
}
