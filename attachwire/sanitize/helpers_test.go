package sanitize_test

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/ptyhost/ptyhost/attachwire/sanitize"
)

// run sanitizes the concatenation of chunks with a fresh Sanitizer, one
// Append per chunk, and ends the stream.
func run(opts sanitize.Options, chunks ...[]byte) []byte {
	s := sanitize.New(opts)
	var out []byte
	for _, c := range chunks {
		out = s.Append(out, c)
	}
	s.Flush()
	return out
}

// splits returns the ways of cutting in that the chunking tests use, each
// named: whole, byte by byte, in halves at every interior offset (see the
// exception for long inputs below), and in random chunks from fixed seeds.
func splits(in []byte) map[string][][]byte {
	m := map[string][][]byte{"whole": {in}, "bytewise": bytewise(in)}
	for i := 1; i < len(in); i++ {
		// Inputs longer than 256 bytes are the cap cases, whose middles are
		// long runs of one byte: there, 32 offsets spread over the middle
		// stand for the rest.
		if mid := len(in) - 256; mid > 0 && i > 128 && i < len(in)-128 && (i-128)%(mid/32+1) != 0 {
			continue
		}
		m["at"+strconv.Itoa(i)] = [][]byte{in[:i], in[i:]}
	}
	for seed := uint64(1); seed <= 4; seed++ {
		m["seed"+strconv.FormatUint(seed, 10)] = randomChunks(in, seed)
	}
	return m
}

// bytewise cuts in into one-byte chunks.
func bytewise(in []byte) [][]byte {
	chunks := make([][]byte, len(in))
	for i := range in {
		chunks[i] = in[i : i+1]
	}
	return chunks
}

// randomChunks cuts in into chunks of 1 to 16 bytes chosen by seed.
func randomChunks(in []byte, seed uint64) [][]byte {
	r := rand.New(rand.NewPCG(seed, 0x5a5a))
	var chunks [][]byte
	for len(in) > 0 {
		n := min(1+r.IntN(16), len(in))
		chunks = append(chunks, in[:n])
		in = in[n:]
	}
	return chunks
}

// checkSafe fails t if out holds anything the sanitizer must never emit.
func checkSafe(t testing.TB, out []byte) {
	t.Helper()
	if !utf8.Valid(out) {
		t.Fatalf("output is not valid UTF-8: %q", out)
	}
	for i, r := range string(out) {
		switch {
		case r >= 0x80 && r <= 0x9f:
			t.Fatalf("output holds C1 U+%04X at %d: %q", r, i, out)
		case r < 0x20 && !bytes.ContainsRune([]byte("\a\b\t\n\r\x0e\x0f\x1b"), r):
			t.Fatalf("output holds C0 %#x at %d: %q", r, i, out)
		case r == 0x1b:
			if i+1 >= len(out) {
				t.Fatalf("output ends in ESC: %q", out)
			}
			switch c := out[i+1]; {
			case c < 0x20:
				t.Fatalf("output holds ESC followed by C0 %#x at %d: %q", c, i, out)
			case c == 'P' || c == '_' || c == '^' || c == 'X':
				t.Fatalf("output holds string introducer ESC %c at %d: %q", c, i, out)
			}
		}
	}
}

// c1Forms returns in with every ESC Fe pair (ESC followed by 0x40–0x5F)
// replaced by the raw C1 byte and by its UTF-8 encoding, or nil, nil if in
// holds no such pair.
func c1Forms(in []byte) (raw, enc []byte) {
	found := false
	for i := 0; i < len(in); i++ {
		if in[i] == 0x1b && i+1 < len(in) && in[i+1] >= 0x40 && in[i+1] <= 0x5f {
			c := in[i+1] + 0x40
			raw = append(raw, c)
			enc = append(enc, 0xc2, c)
			i++
			found = true
			continue
		}
		raw = append(raw, in[i])
		enc = append(enc, in[i])
	}
	if !found {
		return nil, nil
	}
	return raw, enc
}
