package engine

import (
	"reflect"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
)

func TestPlainText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{"a\x1b[1;31mred\x1b[0m b", "ared b"},
		{"one\r\ntwo\rthree\n", "one\ntwo\nthree\n"},
		{"\x1b]0;title\x07x\x1b]8;;http://a\x1b\\link\x1b]8;;\x1b\\", "xlink"},
		{"\x1bPq#0\x1b\\after", "after"},
		{"\x1b(Bg\x1b=k", "gk"},
		{"tab\there\x07\x00", "tab here"},
		{"café ✅ \xff", "café ✅ "},
		{"cut \x1b[3", "cut "},
	} {
		if got := string(PlainText(nil, []byte(tc.in))); got != tc.want {
			t.Errorf("PlainText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSearcherFindsAcrossFrames(t *testing.T) {
	s := NewSearcher("Needle")
	var got []Match
	for i, p := range []string{
		"hay \x1b[1mhay\r\n",
		"the nee", "\x1b[32mdle is here\r\nNEEDLE twice: needle",
		"no more",
	} {
		got = s.Feed(attachwire.NewOutputFrame(uint64(i+1), 0, []byte(p)), got)
	}
	got = s.Feed(attachwire.Frame{Type: attachwire.TypeMarker, Seq: 5}, got)
	// The first match spans frames 2 and 3: its line is what the searcher
	// kept of frame 2 (as much as a match needs) and frame 3's text.
	want := []Match{
		{Seq: 3, Line: "e needle is here"},
		{Seq: 3, Line: "NEEDLE twice: needle"},
		{Seq: 3, Line: "NEEDLE twice: needle"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("matches %+v, want %+v", got, want)
	}
	if got := NewSearcher("").Feed(attachwire.NewOutputFrame(1, 0, []byte("x")), nil); got != nil {
		t.Errorf("empty query matched %+v", got)
	}
}

func FuzzSearch(f *testing.F) {
	f.Add([]byte("ab\x1b[1mcd"), []byte("ef\r\nab"), "bc")
	f.Fuzz(func(t *testing.T, a, b []byte, q string) {
		s := NewSearcher(q)
		var m []Match
		m = s.Feed(attachwire.NewOutputFrame(1, 0, a), m)
		m = s.Feed(attachwire.NewOutputFrame(2, 0, b), m)
		for _, x := range m {
			if x.Seq != 1 && x.Seq != 2 || len(x.Line) > MaxMatchLine {
				t.Fatalf("match %+v", x)
			}
		}
		PlainText(nil, a)
	})
}
