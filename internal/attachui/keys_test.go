package attachui

import (
	"reflect"
	"testing"
)

func TestKeys(t *testing.T) {
	for _, tc := range []struct {
		name     string
		reads    []string
		want     []string // "send:..." and "cmd:N" in order
		watching bool
	}{
		{"plain", []string{"abc"}, []string{"send:abc"}, false},
		{"grab", []string{"a\x1dgb"}, []string{"send:a", "cmd:1", "send:b"}, false},
		{"release detach help", []string{"\x1dr\x1dd\x1d?"}, []string{"send:", "cmd:2", "send:", "cmd:3", "send:", "cmd:4"}, false},
		{"prefix twice sends it", []string{"x\x1d\x1dy"}, []string{"send:x\x1dy"}, false},
		{"split across reads", []string{"a\x1d", "gb"}, []string{"send:a", "send:", "cmd:1", "send:b"}, false},
		{"commands", []string{"\x1dc"}, []string{"send:", "cmd:5"}, true},
		{"proposals", []string{"\x1dy\x1dn\x1de"}, []string{"send:", "cmd:7", "send:", "cmd:8", "send:", "cmd:9"}, false},
		{"unknown key", []string{"\x1dzq"}, []string{"send:", "cmd:6", "send:q"}, false},
		{"ctrl-c detaches a watcher", []string{"a\x03b"}, []string{"send:a", "cmd:3", "send:b"}, true},
		{"ctrl-c goes to the session while driving", []string{"a\x03b"}, []string{"send:a\x03b"}, false},
		{"prefix then ctrl-c is no detach", []string{"\x1d\x03"}, []string{"send:", "cmd:6"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := Keys{Prefix: DefaultPrefix, Watching: tc.watching}
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
