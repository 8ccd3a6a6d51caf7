package castchain

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Prefix starts every chain line; the kind follows it.
const Prefix = "# ptyhost-chain v1 "

// Kinds of chain line.
const (
	KindCheckpoint = "cp"
	KindEnd        = "end"
)

// DigestSize is the size of the per-line digests a chain line lists: they
// only locate a change (the chain hash proves it), so six bytes do.
const DigestSize = 6

// MaxLineDigests bounds the digests one chain line may list, so a parser
// never allocates more than a chain line's length allows.
const MaxLineDigests = 1 << 16

// ErrBadLine is matched (errors.Is) by every error ParseLine returns.
var ErrBadLine = errors.New("castchain: malformed chain line")

// Line is one parsed chain line.
type Line struct {
	Kind    string // KindCheckpoint or KindEnd
	Seq     uint64 // chained lines up to and including the last one covered
	From    uint64 // Seq of the previous chain line (0 for the first)
	Time    time.Time
	Hash    [sha256.Size]byte
	Digests []byte            // DigestSize bytes per line From+1..Seq
	Key     ed25519.PublicKey // nil when unsigned
	Sig     []byte            // nil when unsigned
	// Signed is the part of the line the signature covers.
	Signed []byte
}

// genesis is h(0).
func genesis() [sha256.Size]byte { return sha256.Sum256([]byte("ptyhost-chain v1")) }

// IsChainLine reports whether a line (without its newline) is one of the
// chain's own lines rather than a chained line.
func IsChainLine(b []byte) bool { return bytes.HasPrefix(b, []byte(Prefix)) }

// b64 encodes the lines, key and sig fields; Strict rejects non-zero
// padding bits, so each value has one spelling.
var b64 = base64.RawURLEncoding.Strict()

// appendLine appends the chain line for l (without a newline), signing it
// with key when key is not nil.
func appendLine(dst []byte, l *Line, key ed25519.PrivateKey) []byte {
	start := len(dst)
	dst = append(dst, Prefix...)
	dst = append(dst, l.Kind...)
	dst = append(dst, " seq="...)
	dst = strconv.AppendUint(dst, l.Seq, 10)
	dst = append(dst, " from="...)
	dst = strconv.AppendUint(dst, l.From, 10)
	dst = append(dst, " time="...)
	dst = l.Time.UTC().AppendFormat(dst, time.RFC3339Nano)
	dst = append(dst, " hash="...)
	dst = hex.AppendEncode(dst, l.Hash[:])
	dst = append(dst, " lines="...)
	dst = b64.AppendEncode(dst, l.Digests)
	if key == nil {
		return dst
	}
	dst = append(dst, " key="...)
	dst = b64.AppendEncode(dst, key.Public().(ed25519.PublicKey))
	sig := ed25519.Sign(key, dst[start:])
	dst = append(dst, " sig="...)
	return b64.AppendEncode(dst, sig)
}

// ParseLine parses a chain line (without its newline). It checks the form
// strictly (fields in order, each once, canonical numbers) but not the
// signature: see Line.Verify.
func ParseLine(b []byte) (*Line, error) {
	if !IsChainLine(b) {
		return nil, badLine("does not start with %q", Prefix)
	}
	rest := b[len(Prefix):]
	kind, rest, _ := bytes.Cut(rest, []byte(" "))
	l := &Line{Kind: string(kind)}
	if l.Kind != KindCheckpoint && l.Kind != KindEnd {
		return nil, badLine("unknown kind %q", kind)
	}
	var err error
	field := func(name string) []byte {
		if err != nil {
			return nil
		}
		var f []byte
		f, rest, _ = bytes.Cut(rest, []byte(" "))
		v, ok := bytes.CutPrefix(f, []byte(name+"="))
		if !ok {
			err = badLine("want %s= at %.20q", name, f)
			return nil
		}
		return v
	}
	seq, from := field("seq"), field("from")
	tm, hash, digests := field("time"), field("hash"), field("lines")
	if err != nil {
		return nil, err
	}
	if l.Seq, err = parseUint("seq", seq); err != nil {
		return nil, err
	}
	if l.From, err = parseUint("from", from); err != nil {
		return nil, err
	}
	if l.From > l.Seq {
		return nil, badLine("from %d is past seq %d", l.From, l.Seq)
	}
	if l.Time, err = time.Parse(time.RFC3339Nano, string(tm)); err != nil {
		return nil, badLine("time: %v", err)
	}
	if len(hash) != 2*sha256.Size {
		return nil, badLine("hash is %d hex digits, want %d", len(hash), 2*sha256.Size)
	}
	if _, err := hex.Decode(l.Hash[:], hash); err != nil || !isLowerHex(hash) {
		return nil, badLine("hash is not lower-case hex")
	}
	n := l.Seq - l.From
	if n > MaxLineDigests || b64.EncodedLen(int(n)*DigestSize) != len(digests) {
		return nil, badLine("lines holds %d bytes of digests, want %d lines' worth", len(digests), n)
	}
	if l.Digests, err = b64.AppendDecode(nil, digests); err != nil || len(l.Digests) != int(n)*DigestSize {
		// The decoder skips line breaks: a length that does not match
		// holds one.
		return nil, badLine("lines is not unpadded base64url")
	}
	if len(rest) == 0 {
		return l, nil
	}
	key, sig := field("key"), field("sig")
	switch {
	case err != nil:
		return nil, err
	case len(rest) != 0:
		return nil, badLine("trailing bytes after sig")
	}
	if l.Key, err = decodeExact("key", key, ed25519.PublicKeySize); err != nil {
		return nil, err
	}
	if l.Sig, err = decodeExact("sig", sig, ed25519.SignatureSize); err != nil {
		return nil, err
	}
	l.Signed = b[:len(b)-len(sig)-len(" sig=")]
	return l, nil
}

// Verify reports whether the line carries a signature that verifies with
// its own key. Whether that key is one to trust is the caller's question.
func (l *Line) Verify() bool {
	return l.Key != nil && ed25519.Verify(l.Key, l.Signed, l.Sig)
}

func parseUint(name string, v []byte) (uint64, error) {
	if len(v) == 0 || len(v) > 1 && v[0] == '0' {
		return 0, badLine("%s %.24q is not a canonical number", name, v)
	}
	n, err := strconv.ParseUint(string(v), 10, 64)
	if err != nil {
		return 0, badLine("%s %.24q is not a canonical number", name, v)
	}
	return n, nil
}

func decodeExact(name string, v []byte, size int) ([]byte, error) {
	if b64.EncodedLen(size) != len(v) {
		return nil, badLine("%s is %d characters, want %d", name, len(v), b64.EncodedLen(size))
	}
	out, err := b64.AppendDecode(nil, v)
	if err != nil || len(out) != size {
		return nil, badLine("%s is not unpadded base64url", name)
	}
	return out, nil
}

func isLowerHex(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func badLine(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadLine, fmt.Sprintf(format, args...))
}

// Fingerprint names a public key: "SHA256:" and the unpadded standard
// base64 of the SHA-256 of its 32 bytes.
func Fingerprint(key ed25519.PublicKey) string {
	sum := sha256.Sum256(key)
	return "SHA256:" + base64.RawStdEncoding.EncodeToString(sum[:])
}
