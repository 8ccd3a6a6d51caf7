// Package castchain makes an asciicast v3 recording tamper-evident and
// checks one: a hash chain over its lines, with signed checkpoint lines
// that players skip as comments.
//
// Every line of the file except the chain's own lines is chained, the
// header and comment lines included: for the n-th such line L (its bytes
// without the newline), h(n) = SHA-256(h(n-1) || L), with h(0) =
// SHA-256("ptyhost-chain v1"). A checkpoint line records n (seq), h(n),
// the wall-clock time, and a 6-byte digest of each line since the previous
// checkpoint (from), so a verifier can name the very line that was
// changed, removed or reordered, not only the span. It is signed with
// Ed25519 when the writer holds a key. The closing line has the same form
// with the kind "end": without it a verifier cannot tell a recording that
// stopped from one cut short.
//
//	# ptyhost-chain v1 cp seq=N from=M time=RFC3339 hash=HEX lines=B64 key=B64 sig=B64
//
// The signature covers the line's bytes before " sig=". key and sig are
// absent from an unsigned chain, which detects accidents but proves
// nothing against anyone who can write the file. docs/security.md says
// what a signed chain proves against whom.
//
// A Writer sits under a cast.Writer as its io.Writer and never buffers:
// bytes pass straight through, hashed on the way, and a checkpoint goes
// in only between lines. A line written through it that starts with
// Prefix is refused (ErrChainPrefix): a verifier would take it for a
// chain line. Verify reads a whole file and returns a Report.
// Neither is safe for concurrent use.
package castchain
