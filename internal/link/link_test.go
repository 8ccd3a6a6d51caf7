package link

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		raw, base, room, token string
	}{
		{"ws://127.0.0.1:8722/v1/rooms/S1", "ws://127.0.0.1:8722", "S1", ""},
		{"wss://relay.example/v1/rooms/S1/", "wss://relay.example", "S1", ""},
		{"http://127.0.0.1:8722/v1/rooms/S1/view#token=abc.def.ghi", "ws://127.0.0.1:8722", "S1", "abc.def.ghi"},
		{"https://relay.example/prefix/v1/rooms/S1/view", "wss://relay.example/prefix", "S1", ""},
		{"https://relay.example", "wss://relay.example", "", ""},
		{"https://relay.example/", "wss://relay.example", "", ""},
		{"ws://relay.example/v1/rooms/", "ws://relay.example", "", ""},
		{"  ws://h/v1/rooms/r#token=t&key=k\n", "ws://h", "r", "t"},
	} {
		l, err := Parse(tc.raw)
		if err != nil {
			t.Errorf("%q: %v", tc.raw, err)
			continue
		}
		if l.Base.String() != tc.base || l.Room != tc.room || l.Token() != tc.token {
			t.Errorf("%q: base %q room %q token %q, want %q %q %q", tc.raw, l.Base, l.Room, l.Token(), tc.base, tc.room, tc.token)
		}
		if tc.room != "" && l.RoomURL() != tc.base+"/v1/rooms/"+tc.room {
			t.Errorf("%q: RoomURL %q", tc.raw, l.RoomURL())
		}
	}
	for _, bad := range []string{
		"ftp://h/v1/rooms/r", "ws:///v1/rooms/r", "ws://u:p@h/v1/rooms/r", "ws://h/v1/rooms/r?x=1",
		"ws://h/v1/rooms/r/extra", "relay.example", "ws://h/v1/rooms/r#%zz=secret",
	} {
		_, err := Parse(bad)
		if !errors.Is(err, ErrURL) {
			t.Errorf("%q: %v, want ErrURL", bad, err)
		} else if strings.Contains(err.Error(), "secret") {
			t.Errorf("%q: the error shows the fragment: %v", bad, err)
		}
	}
}

func TestCheckArgument(t *testing.T) {
	for _, ok := range []string{"ws://h/v1/rooms/r", "https://h/v1/rooms/r/view", "ws://h/v1/rooms/r#"} {
		if err := CheckArgument("attach", ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	err := CheckArgument("attach", "https://h/v1/rooms/r/view#token=SECRET")
	if !errors.Is(err, ErrSecretArgument) {
		t.Fatalf("a link with a token taken as an argument: %v", err)
	}
	for _, want := range []string{"'ptyhost attach' without a URL", "--link-file FILE", EnvVar, "ps"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal %q does not name %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "SECRET") {
		t.Errorf("the refusal repeats the secret: %v", err)
	}
}

func TestFrom(t *testing.T) {
	const page = "https://h/v1/rooms/r/view#token=T"
	file := filepath.Join(t.TempDir(), "link")
	if err := os.WriteFile(file, []byte(page+"\nignored\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	asked := func() (string, error) { return page + "\r", nil }
	for _, tc := range []struct {
		name string
		s    Sources
		err  error
	}{
		{"argument without a secret", Sources{Arg: "https://h/v1/rooms/r/view", Env: "ws://other/v1/rooms/x"}, nil},
		{"argument with one", Sources{Arg: page}, ErrSecretArgument},
		{"file", Sources{File: file, Env: "ws://other/v1/rooms/x", Prompt: asked}, nil},
		{"environment", Sources{Env: page, Prompt: asked}, nil},
		{"prompt", Sources{Prompt: asked}, nil},
		{"nothing", Sources{}, ErrNoLink},
		{"empty answer", Sources{Prompt: func() (string, error) { return " ", nil }}, ErrNoLink},
		{"bad", Sources{Env: "ftp://h"}, ErrURL},
	} {
		l, err := From(tc.s)
		if !errors.Is(err, tc.err) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.err)
			continue
		}
		if err == nil && (l.RoomURL() != "wss://h/v1/rooms/r" || (tc.s.Arg == "" && l.Token() != "T")) {
			t.Errorf("%s: room %q token %q", tc.name, l.RoomURL(), l.Token())
		}
	}
}
