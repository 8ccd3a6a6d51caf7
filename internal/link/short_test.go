package link

import (
	"strings"
	"testing"
)

const secret = "q1w2e3r4t5y6u7i8o9p0aZ"

func TestParseShortLink(t *testing.T) {
	for raw, want := range map[string]struct{ base, room string }{
		"https://relay.example.com/s/abcdefgh2345#" + secret:       {"wss://relay.example.com", "abcdefgh2345"},
		"http://127.0.0.1:8722/s/abcdefgh2345/#" + secret:          {"ws://127.0.0.1:8722", "abcdefgh2345"},
		"https://example.com/relay/s/abcdefgh2345#" + secret:       {"wss://example.com/relay", "abcdefgh2345"},
		"  wss://relay.example.com/s/abcdefgh2345#" + secret + " ": {"wss://relay.example.com", "abcdefgh2345"},
	} {
		l, err := Parse(raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if l.Base.String() != want.base || l.Room != want.room || l.Invite != secret || l.Token() != "" {
			t.Errorf("%s: %+v", raw, l)
		}
		if got := l.RoomURL(); got != want.base+"/v1/rooms/"+want.room {
			t.Errorf("%s: room URL %s", raw, got)
		}
		if !strings.HasPrefix(l.HTTPBase(), "http") {
			t.Errorf("%s: HTTP base %s", raw, l.HTTPBase())
		}
	}
	for _, raw := range []string{
		"https://relay.example.com/s/abcdefgh2345",
		"https://relay.example.com/s/abcdefgh2345#short",
		"https://relay.example.com/s/abcdefgh2345#" + secret + "x",
		"https://relay.example.com/s/abcdefgh2345#" + secret[:21] + "=",
		"https://relay.example.com/s/abcdefgh2345#" + secret[:21] + "!",
	} {
		_, err := Parse(raw)
		if err == nil {
			t.Errorf("%s: accepted", raw)
		} else if strings.Contains(err.Error(), secret[:10]) {
			t.Errorf("%s: the error shows the secret: %v", raw, err)
		}
	}
	// Not short links: a room id of capitals, a path below the room.
	if l, err := Parse("https://relay.example.com/s/ABC#token=x"); err != nil || l.Invite != "" {
		t.Errorf("capitals: %+v %v", l, err)
	}
	if err := CheckArgument("attach", "https://relay.example.com/s/abcdefgh2345#"+secret); err == nil {
		t.Error("a short link as an argument was accepted")
	}
}

// FuzzParse: Parse never panics; a short link it accepts has a room of
// lowercase letters and digits and a secret of 22 base64url characters,
// and an error never quotes a fragment.
func FuzzParse(f *testing.F) {
	f.Add("https://relay.example.com/s/abcdefgh2345#" + secret)
	f.Add("wss://h/v1/rooms/r/view#token=abc")
	f.Add("http://h/prefix/s/x/#y")
	f.Fuzz(func(t *testing.T, raw string) {
		l, err := Parse(raw)
		if err != nil {
			if i := strings.IndexByte(raw, '#'); i >= 0 && len(raw)-i > 8 && strings.Contains(err.Error(), raw[i:]) {
				t.Fatalf("the error quotes the fragment: %v", err)
			}
			return
		}
		if l.Invite != "" && (!validSecret(l.Invite) || l.Room == "" || l.Fragment != nil) {
			t.Fatalf("accepted %+v", l)
		}
	})
}
