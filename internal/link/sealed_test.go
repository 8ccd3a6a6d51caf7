package link

import (
	"errors"
	"strings"
	"testing"
)

// roomKeyText is a room key as a link carries it (43 characters).
const roomKeyText = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"

// TestSealedLinks: a sealed room's key rides in the fragment, after the
// token (key=) or, in a short link, after the secret and a dot; a key
// that is not one is refused without quoting it.
func TestSealedLinks(t *testing.T) {
	l, err := Parse("https://h/v1/rooms/r/view#token=T&key=" + roomKeyText)
	if err != nil {
		t.Fatal(err)
	}
	k, err := l.RoomKey()
	if err != nil || k == nil || k.Encode() != roomKeyText || l.Token() != "T" {
		t.Fatalf("full link: key %v, %v, token %q", k, err, l.Token())
	}
	l, err = Parse("https://relay.example.com/s/abcdefgh2345#" + secret + "." + roomKeyText)
	if err != nil {
		t.Fatal(err)
	}
	if k, err := l.RoomKey(); err != nil || k == nil || l.Invite != secret {
		t.Fatalf("short link: invite %q key %v %v", l.Invite, k, err)
	}
	l, err = Parse("https://h/v1/rooms/r/view#token=T")
	if k, kerr := l.RoomKey(); err != nil || k != nil || kerr != nil {
		t.Fatalf("a plain room's link has a key: %v %v %v", k, err, kerr)
	}
	if l, _ := Parse("https://h/v1/rooms/r#token=T&key=short"); l.Key != "" {
		if _, err := l.RoomKey(); !errors.Is(err, ErrURL) || strings.Contains(err.Error(), "short") {
			t.Errorf("a malformed key: %v", err)
		}
	}
	for _, bad := range []string{
		"https://relay.example.com/s/abcdefgh2345#" + secret + ".",
		"https://relay.example.com/s/abcdefgh2345#" + secret + "." + roomKeyText[:42],
		"https://relay.example.com/s/abcdefgh2345#" + secret + "." + roomKeyText + "A",
		"https://relay.example.com/s/abcdefgh2345#" + secret + "." + roomKeyText[:42] + "+",
	} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%s: accepted", bad)
		} else if strings.Contains(err.Error(), roomKeyText[:20]) {
			t.Errorf("the error shows the key: %v", err)
		}
	}
}
