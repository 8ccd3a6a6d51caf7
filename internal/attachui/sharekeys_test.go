package attachui

import (
	"reflect"
	"testing"
)

func TestShareKeys(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reads []string
		pick  bool // call Pick after the first command
		want  []string
	}{
		{"plain", []string{"abc"}, false, []string{"send:abc"}},
		{"each command", []string{"\x1dw\x1dk\x1dx\x1dp\x1do\x1ds\x1d?\x1dz"}, false,
			[]string{"send:", "cmd:1 w", "send:", "cmd:2 k", "send:", "cmd:3 x", "send:", "cmd:4 p", "send:", "cmd:5 o",
				"send:", "cmd:6 s", "send:", "cmd:7 ?", "send:", "cmd:8 z"}},
		{"prefix twice sends it", []string{"a\x1d\x1db"}, false, []string{"send:a\x1db"}},
		{"split across reads", []string{"a\x1d", "kb"}, false, []string{"send:a", "send:", "cmd:2 k", "send:b"}},
		{"a pick takes the next key", []string{"\x1dk2rest"}, true, []string{"send:", "cmd:2 k", "send:", "cmd:9 2", "send:rest"}},
		{"a pick takes the prefix too", []string{"\x1dk\x1dx"}, true, []string{"send:", "cmd:2 k", "send:", "cmd:9 \x1d", "send:x"}},
		{"ctrl-c goes to the session", []string{"\x03"}, false, []string{"send:\x03"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := ShareKeys{Prefix: DefaultPrefix}
			var got []string
			picked := false
			for _, r := range tc.reads {
				rest := k.Feed(nil, []byte(r), func(send []byte, c ShareCommand, key byte) []byte {
					got = append(got, "send:"+string(send), "cmd:"+string(rune('0'+c))+" "+string(key))
					if tc.pick && !picked {
						picked = true
						k.Pick()
					}
					return send[:0]
				})
				got = append(got, "send:"+string(rest))
			}
			for len(got) > len(tc.want) && got[len(got)-1] == "send:" {
				got = got[:len(got)-1]
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}
