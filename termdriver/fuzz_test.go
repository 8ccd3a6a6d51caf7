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
