package castchain_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/internal/castchain"
)

// chainLines returns the chain lines of a small signed recording.
func chainLines(t testing.TB) []string {
	var out []string
	for _, l := range strings.Split(string(recording(t, 5, 2, testKey(1))), "\n") {
		if strings.HasPrefix(l, castchain.Prefix) {
			out = append(out, l)
		}
	}
	return out
}

func TestParseLineRoundTrip(t *testing.T) {
	for _, s := range chainLines(t) {
		l, err := castchain.ParseLine([]byte(s))
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if !l.Verify() || len(l.Digests) != int(l.Seq-l.From)*castchain.DigestSize {
			t.Errorf("%q: parsed %+v", s, l)
		}
	}
}

func TestParseLineMalformed(t *testing.T) {
	good := chainLines(t)[0]
	hash := good[strings.Index(good, "hash=")+5:][:64]
	tests := map[string]string{
		"not a chain line":  "# something else",
		"unknown kind":      strings.Replace(good, " cp ", " xx ", 1),
		"field order":       strings.Replace(good, "seq=", "sek=", 1),
		"leading zero":      strings.Replace(good, "from=0", "from=00", 1),
		"negative":          strings.Replace(good, "from=0", "from=-1", 1),
		"from past seq":     strings.Replace(good, "from=0", "from=99", 1),
		"bad time":          strings.Replace(good, "time=2026", "time=20x6", 1),
		"short hash":        strings.Replace(good, hash, hash[:10], 1),
		"upper-case hash":   strings.Replace(good, hash, strings.ToUpper(hash), 1),
		"digest count":      strings.Replace(good, "lines=", "lines=AAAAAAAA", 1),
		"short key":         strings.Replace(good, "key=", "key=x", 1),
		"short sig":         good[:len(good)-2],
		"trailing field":    good + " more=1",
		"key without sig":   good[:strings.Index(good, " sig=")],
		"huge seq":          strings.Replace(good, "seq=", "seq=99999999999999999999", 1),
		"digest overflow":   strings.Replace(good, "from=0", "from=0", 1)[:0] + castchain.Prefix + "cp seq=99999999 from=0 time=2026-01-01T00:00:00Z hash=" + hash + " lines=",
		"empty":             "",
		"prefix only":       castchain.Prefix,
		"kind only":         castchain.Prefix + "cp",
		"non-canonical b64": strings.Replace(good, "lines=", "lines=", 1)[:strings.Index(good, " key=")-1] + "_" + good[strings.Index(good, " key="):],
	}
	for name, in := range tests {
		t.Run(name, func(t *testing.T) {
			l, err := castchain.ParseLine([]byte(in))
			if err == nil {
				// A signature over changed bytes may still parse: it must
				// then fail to verify.
				if l.Verify() {
					t.Fatalf("accepted and verified %q", in)
				}
				return
			}
			if !errors.Is(err, castchain.ErrBadLine) {
				t.Fatalf("error %v does not match ErrBadLine", err)
			}
		})
	}
}

func FuzzParseLine(f *testing.F) {
	for _, s := range chainLines(f) {
		f.Add([]byte(s))
	}
	f.Add([]byte(castchain.Prefix + "end seq=0 from=0 time=2026-01-01T00:00:00Z hash=" + strings.Repeat("0", 64) + " lines="))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := castchain.ParseLine(b)
		if err != nil {
			if !errors.Is(err, castchain.ErrBadLine) {
				t.Fatalf("error %v does not match ErrBadLine", err)
			}
			return
		}
		if len(l.Digests) != int(l.Seq-l.From)*castchain.DigestSize {
			t.Fatalf("digests %d for %d lines", len(l.Digests), l.Seq-l.From)
		}
		l.Verify()
		// Verify never fails on a file holding the line.
		if _, err := castchain.Verify(bytes.NewReader(append(b, '\n')), castchain.VerifyOptions{}); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzVerify: whatever the file, Verify reports without failing, and an
// intact report is only given to a file with a closing line.
func FuzzVerify(f *testing.F) {
	f.Add(recording(f, 6, 2, testKey(1)))
	f.Add(recording(f, 3, 1, nil))
	f.Add([]byte("{\"version\":3}\n[0.1, \"o\", \"x\"]\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rep, err := castchain.Verify(bytes.NewReader(b), castchain.VerifyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Intact() && !rep.Closed {
			t.Fatalf("intact without a closing line: %+v", rep)
		}
	})
}
