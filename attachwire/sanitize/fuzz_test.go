package sanitize_test

import (
	"bytes"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire/sanitize"
)

// maxGrowth bounds output length for an input of n bytes. The largest
// expansion is RIS: ESC c (2 bytes) becomes CSI ! p CSI H CSI 2 J (11
// bytes), a factor of 5.5. Everything else grows less: an invalid byte
// becomes U+FFFD (3 bytes), a raw C1 control its 2-byte 7-bit form, a BEL
// string terminator the 2-byte ST; clamping and canonical parameters only
// shrink. The constant covers rounding on tiny inputs.
func maxGrowth(n int) int { return 6*n + 16 }

// FuzzSanitizer checks the invariants on arbitrary input: no panic, output
// holds nothing forbidden, is bounded in length, is idempotent, and does not
// depend on how the input is split (seed picks the split and the profile),
// byte by byte included.
func FuzzSanitizer(f *testing.F) {
	for _, c := range policyCases {
		f.Add([]byte(c.in), uint64(len(c.in)))
	}
	f.Add([]byte("\x1b[6\nn\x9b6n\xc2\x9b6n\x1bc\x1bc"), uint64(7))
	f.Add([]byte("\xe2\x80\x9b\xf0\x9f\x98\x80\xc3\x9c\x1b]2;\xc3\x9c\x07"), uint64(2))
	f.Fuzz(func(t *testing.T, in []byte, seed uint64) {
		opts := sanitize.Options{Profile: sanitize.Profile(seed & 1), OnClipboard: func(string) {}, OnTitle: func(string) {}}
		out := run(opts, in)
		checkSafe(t, out)
		if len(out) > maxGrowth(len(in)) {
			t.Fatalf("output of %d bytes for %d bytes of input: %q", len(out), len(in), out)
		}
		if again := run(opts, out); !bytes.Equal(again, out) {
			t.Fatalf("not idempotent:\nin    %q\nonce  %q\ntwice %q", in, out, again)
		}
		if chunked := run(opts, randomChunks(in, seed)...); !bytes.Equal(chunked, out) {
			t.Fatalf("chunked output differs:\nin      %q\nwhole   %q\nchunked %q", in, out, chunked)
		}
		// Byte by byte no fast path runs: the parser alone is the reference.
		if byByte := run(opts, bytewise(in)...); !bytes.Equal(byByte, out) {
			t.Fatalf("output byte by byte differs:\nin       %q\nwhole    %q\nbytewise %q", in, out, byByte)
		}
	})
}
