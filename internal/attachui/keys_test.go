package attachui

import (
	"reflect"
	"testing"
)

func TestKeys(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reads []string
		want  []string // "send:..." and "cmd:N" in order
	}{
		{"plain", []string{"abc"}, []string{"send:abc"}},
		{"grab", []string{"a\x1dgb"}, []string{"send:a", "cmd:1", "send:b"}},
		{"release detach help", []string{"\x1dr\x1dd\x1d?"}, []string{"send:", "cmd:2", "send:", "cmd:3", "send:", "cmd:4"}},
		{"prefix twice sends it", []string{"x\x1d\x1dy"}, []string{"send:x\x1dy"}},
		{"split across reads", []string{"a\x1d", "gb"}, []string{"send:a", "send:", "cmd:1", "send:b"}},
		{"unknown key", []string{"\x1dzq"}, []string{"send:", "cmd:5", "send:q"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := Keys{Prefix: DefaultPrefix}
			var got []string
			for _, r := range tc.reads {
				rest := k.Feed(nil, []byte(r), func(send []byte, c Command) []byte {
					got = append(got, "send:"+string(send), "cmd:"+string(rune('0'+c)))
					return send[:0]
				})
				if len(rest) > 0 || len(got) == 0 || r == tc.reads[len(tc.reads)-1] {
					got = append(got, "send:"+string(rest))
				}
			}
			// Drop empty trailing sends the table does not list.
			for len(got) > len(tc.want) && got[len(got)-1] == "send:" {
				got = got[:len(got)-1]
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}
