package main

import (
	"context"
	"crypto/ed25519"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/ptyhost/ptyhost/internal/castchain"
	"github.com/ptyhost/ptyhost/token"
)

const verifyHelp = `usage: ptyhost verify [--key PUB] FILE

Checks a signed recording (one written with --record-key, or by a relay
with --record-key): its hash chain and the signatures of its checkpoint
and closing lines. Says "intact" with the signer's key fingerprint and
the time span, or names each line where the file was changed, where
lines were removed, inserted or swapped, or that it was cut short (no
closing line: the lines after the last checkpoint are unproven).

Without --key any signer is accepted as long as every line agrees, so
"intact" then only means the file is as its signer wrote it; the
signer's fingerprint is printed to compare with one you trust.

Flags:
  --key PUB   the public key (PEM, as 'ptyhost keygen' writes NAME.pub)
              every chain line must be signed by

Exit status: 0 intact, 1 changed or cut short, 2 usage (or the file or
key cannot be read).
`

func verifyCmd(_ context.Context, args []string, _ io.Reader, stdout io.Writer) error {
	var keyPath string
	fs := newFlagSet("verify")
	fs.StringVar(&keyPath, "key", "", "")
	files, _, err := parseArgs(fs, args, true)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return err
	case err != nil:
		return &usageError{cmd: "verify", err: err}
	case len(files) != 1:
		return usagef("verify", "want one FILE")
	}
	var opts castchain.VerifyOptions
	if keyPath != "" {
		b, err := os.ReadFile(keyPath)
		if err == nil {
			opts.Key, err = token.ParsePublicKeyPEM(b)
		}
		if err != nil {
			return usagef("verify", "--key: %v", err)
		}
	}
	f, err := os.Open(files[0])
	if err != nil {
		return usagef("verify", "%v", err)
	}
	defer f.Close()
	rep, err := castchain.Verify(f, opts)
	if err != nil {
		return usagef("verify", "%s: %v", files[0], err)
	}
	writeVerifyReport(stdout, files[0], rep, opts.Key)
	if !rep.Intact() {
		return &exitStatus{code: 1}
	}
	return nil
}

// writeVerifyReport prints what Verify found, one problem a line.
func writeVerifyReport(w io.Writer, name string, rep *castchain.Report, trusted ed25519.PublicKey) {
	verdict := "intact"
	switch {
	case rep.Intact():
	case len(rep.Problems) == 1 && rep.Problems[0].Kind == castchain.Truncated:
		verdict = "cut short"
	case rep.Problems[0].Kind == castchain.NoChain:
		verdict = "not a signed recording"
	default:
		verdict = "TAMPERED"
	}
	fmt.Fprintf(w, "%s: %s\n", name, verdict)
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "  %s\n", p)
	}
	switch {
	case rep.Signer == nil && len(rep.Problems) == 0:
		fmt.Fprintln(w, "  unsigned chain: it shows accidental damage, not tampering")
	case rep.Signer != nil && rep.Trusted:
		fmt.Fprintf(w, "  signed by %s (the trusted key)\n", castchain.Fingerprint(rep.Signer))
	case rep.Signer != nil && trusted == nil:
		fmt.Fprintf(w, "  signed by %s (not checked against a key: pass --key)\n", castchain.Fingerprint(rep.Signer))
	}
	if rep.Events > 0 {
		fmt.Fprintf(w, "  %d chained lines%s\n", rep.Events, span(rep.Start, rep.End))
	}
	if rep.Failed != "" {
		fmt.Fprintf(w, "  the recorder noted: %s\n", rep.Failed)
	}
}

func span(from, to time.Time) string {
	switch {
	case from.IsZero() && to.IsZero():
		return ""
	case from.IsZero():
		return ", up to " + to.Format(time.RFC3339)
	case to.IsZero():
		return ", from " + from.Format(time.RFC3339)
	}
	return fmt.Sprintf(", from %s to %s (%s)", from.Format(time.RFC3339), to.Format(time.RFC3339), to.Sub(from).Round(time.Second))
}
