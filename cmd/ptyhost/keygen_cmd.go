package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/ptyhost/ptyhost/token"
)

const keygenHelp = `usage: ptyhost keygen --out NAME

Generates an Ed25519 key pair for attach tokens and writes NAME.key, the
private key (PKCS#8 PEM, mode 0600: whoever holds it can mint tokens for
every room), and NAME.pub, the public key (PKIX PEM) a relay verifies
tokens with. Existing files are never overwritten. openssl reads and
writes the same formats (openssl genpkey -algorithm ed25519).

Flags:
  --out NAME   where to write: NAME.key and NAME.pub (required)
`

func keygenCmd(_ context.Context, args []string, _ io.Reader, stdout io.Writer) error {
	var out string
	flags := newFlagSet("keygen")
	flags.StringVar(&out, "out", "", "")
	if err := parseFlags("keygen", flags, args); err != nil {
		return err // flag.ErrHelp too: run prints the help
	}
	switch {
	case out == "":
		return usagef("keygen", "missing --out NAME")
	}
	pubPath, keyPath, err := token.WriteKeyFiles(out)
	var pe *fs.PathError
	if errors.Is(err, fs.ErrExist) && errors.As(err, &pe) {
		return usagef("keygen", "%s already exists; keygen never overwrites a key", pe.Path)
	}
	if err != nil {
		return fmt.Errorf("keygen: %w", err)
	}
	_, err = fmt.Fprintf(stdout, "wrote %s (private: keep it secret) and %s (public: give it to the relay)\n", keyPath, pubPath)
	return err
}
