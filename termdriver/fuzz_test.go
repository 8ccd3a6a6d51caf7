package termdriver

import (
	"bytes"
	"testing"
)

// FuzzParseKey checks that any name parses or fails cleanly, and that a
// parsed key encodes to something and reads back from its canonical name.
func FuzzParseKey(f *testing.F) {
	for _, s := range []string{"Enter", "C-a", "M-x", "S-Tab", "C-S-Left", "F12", "PageDown", "é", "C-", "Ctrl-Alt-Delete"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		k, err := ParseKey(name)
		if err != nil {
			if k != (Key{}) {
				t.Fatalf("ParseKey(%q) failed but returned %v", name, k)
			}
			return
		}
		for _, app := range []bool{false, true} {
			p := k.Append(nil, app)
			if len(p) == 0 {
				t.Fatalf("%q encodes to nothing", name)
			}
			if bytes.Contains(p[1:], []byte{0}) {
				t.Fatalf("%q encodes to %q with a NUL inside", name, p)
			}
		}
		back, err := ParseKey(k.String())
		if err != nil || back != k {
			t.Fatalf("ParseKey(%q) = %v; canonical %q reads back as %v, %v", name, k, k.String(), back, err)
		}
	})
}

// FuzzPlain checks that stripping control sequences never lets one
// through and does not depend on how the output is split.
func FuzzPlain(f *testing.F) {
	for _, s := range []string{"\x1b[1;31mred\x1b[m\r\n", "\x1b]0;t\x07x", "\x1bP\x1b\\y", "\x1b(0q\x1b(B", "a\x1b"} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, p []byte, cut uint8) {
		var whole plainState
		want := whole.appendPlain(nil, p)
		if bytes.ContainsAny(want, "\x1b\r\x00\x07\x7f") {
			t.Fatalf("%q kept a control: %q", p, want)
		}
		i := int(cut) % (len(p) + 1)
		var split plainState
		got := split.appendPlain(split.appendPlain(nil, p[:i]), p[i:])
		if !bytes.Equal(got, want) {
			t.Fatalf("%q split at %d: %q, whole %q", p, i, got, want)
		}
	})
}
