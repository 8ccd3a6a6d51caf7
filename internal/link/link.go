// Package link reads the addresses a person holds for a relay or a room
// (the forms `ptyhost share` prints and a browser shows) and keeps the
// secrets some of them carry out of the command line.
//
// One normalisation serves every command: ws://, wss://, http:// and
// https:// name the same server (http becomes ws, https wss), and a path
// may end at the relay (…/ or …/v1/rooms), at a room (…/v1/rooms/ID) or at
// the room's browser page (…/v1/rooms/ID/view). Whatever comes before
// /v1/rooms is kept: a relay behind a path prefix. A relay in issuer mode
// prints short links, …/s/ID#SECRET, whose fragment is an invite's secret
// (Link.Invite) that the relay exchanges for a token.
//
// A link's #fragment is where secrets travel (the token, and whatever a
// link will carry besides: a browser never sends the fragment to a
// server). A command-line argument is visible to every user of the
// machine in ps, so CheckArgument refuses a URL with a fragment, naming
// the ways that keep it private: a prompt that does not echo, a file, or
// the environment variable EnvVar.
package link

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/ptyhost/ptyhost/attachwire/seal"
)

// EnvVar is the environment variable a link may come from.
const EnvVar = "PTYHOST_LINK"

// KeyEnvVar is the environment variable a sealed room's key may come
// from, beside a link without one (share's terminal lines set it).
const KeyEnvVar = "PTYHOST_KEY"

// ErrSecretArgument is matched by CheckArgument's refusal.
var ErrSecretArgument = errors.New("link: a URL with a #fragment is not taken as an argument")

// ErrURL is matched by the errors of Parse.
var ErrURL = errors.New("link: not a relay or room URL")

// Link is a parsed relay or room address.
type Link struct {
	// Base is the relay's ws:// or wss:// URL without the rooms path
	// (and without a trailing slash).
	Base *url.URL
	// Room is the room id; "" when the address names only the relay.
	Room string
	// Fragment holds the fragment's parameters (token=…), nil when there
	// is no fragment or the link is a short link.
	Fragment url.Values
	// Invite is a short link's invite secret (…/s/ID#SECRET); "" for
	// every other form.
	Invite string
	// Key is a sealed room's key as the link carries it: a short link's
	// after a dot (#SECRET.KEY), any other's fragment member key=. ""
	// for a plain room's link. RoomKey reads it.
	Key string
}

// RoomURL returns the room's WebSocket URL (Base/v1/rooms/Room), without
// a fragment.
func (l Link) RoomURL() string { return l.Base.JoinPath("v1", "rooms", l.Room).String() }

// Token returns the fragment's token, "" when it has none.
func (l Link) Token() string { return l.Fragment.Get("token") }

// Parse reads raw in any of the forms the package accepts.
func Parse(raw string) (Link, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil {
		return Link{}, fmt.Errorf("%w: %v", ErrURL, redact(err))
	}
	switch u.Scheme {
	case "http":
		u.Scheme = "ws"
	case "https":
		u.Scheme = "wss"
	case "ws", "wss":
	default:
		return Link{}, fmt.Errorf("%w: %q: want ws://, wss://, http:// or https://", ErrURL, Redacted(raw))
	}
	if u.Host == "" || u.User != nil || u.RawQuery != "" {
		return Link{}, fmt.Errorf("%w: %q: want scheme://host[:port][/path]", ErrURL, Redacted(raw))
	}
	var l Link
	path := strings.TrimSuffix(u.Path, "/")
	if prefix, room, ok := shortPath(path); ok {
		secret, key, sealed := strings.Cut(u.Fragment, ".")
		if !validSecret(secret) || sealed && !validKey(key) {
			return Link{}, fmt.Errorf("%w: %q: a short link ends in #SECRET, 22 characters of base64url, or #SECRET.KEY with a room key of 43", ErrURL, Redacted(raw))
		}
		l.Room, l.Invite, l.Key = room, secret, key
		u.Path, u.RawPath, u.Fragment, u.RawFragment = prefix, "", "", ""
		l.Base = u
		return l, nil
	}
	if u.Fragment != "" {
		if l.Fragment, err = url.ParseQuery(u.Fragment); err != nil {
			return Link{}, fmt.Errorf("%w: %q: the fragment is not name=value pairs", ErrURL, Redacted(raw))
		}
	}
	u.Fragment, u.RawFragment = "", ""
	l.Key = l.Fragment.Get("key")
	if i := strings.LastIndex(path, "/v1/rooms"); i >= 0 {
		rest := strings.TrimPrefix(path[i+len("/v1/rooms"):], "/")
		rest = strings.TrimSuffix(rest, "/view")
		if strings.Contains(rest, "/") || rest == "view" {
			return Link{}, fmt.Errorf("%w: %q: want …/v1/rooms/ID or …/v1/rooms/ID/view", ErrURL, Redacted(raw))
		}
		l.Room, path = rest, path[:i]
	}
	u.Path, u.RawPath = path, ""
	l.Base = u
	return l, nil
}

// shortPath splits a short link's path, prefix + "/s/" + room, where room
// is one segment of lowercase letters and digits.
func shortPath(path string) (prefix, room string, ok bool) {
	i := strings.LastIndex(path, "/s/")
	if i < 0 {
		return "", "", false
	}
	room = path[i+len("/s/"):]
	if room == "" || len(room) > 64 {
		return "", "", false
	}
	for _, c := range room {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return "", "", false
		}
	}
	return path[:i], room, true
}

// validSecret reports whether s has an invite secret's form: 22
// characters of unpadded base64url (16 bytes).
func validSecret(s string) bool {
	return len(s) == 22 && validB64URL(s)
}

// validB64URL reports whether s is all base64url characters.
func validB64URL(s string) bool {
	for _, c := range s {
		if (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' && c != '_' {
			return false
		}
	}
	return true
}

// validKey reports whether s has a room key's form: 43 characters of
// unpadded base64url (32 bytes).
func validKey(s string) bool { return len(s) == 43 && validB64URL(s) }

// RoomKey returns the sealed room's key the link carries, nil for a plain
// room's link. A key that is not one is an error.
func (l Link) RoomKey() (*seal.Key, error) {
	if l.Key == "" {
		return nil, nil
	}
	k, err := seal.ParseKey(l.Key)
	if err != nil {
		return nil, fmt.Errorf("%w: the link's key is not a room key", ErrURL)
	}
	return k, nil
}

// HTTPBase returns Base with the http scheme it stands for (ws → http,
// wss → https): where the relay's issuer API is.
func (l Link) HTTPBase() string {
	u := *l.Base
	switch u.Scheme {
	case "ws":
		u.Scheme = "http"
	case "wss":
		u.Scheme = "https"
	}
	return u.String()
}

// CheckArgument refuses raw, a command-line argument of command cmd,
// when it has a fragment: the error names the private ways to give it.
func CheckArgument(cmd, raw string) error {
	if _, frag, ok := strings.Cut(raw, "#"); !ok || frag == "" {
		return nil
	}
	return fmt.Errorf("%w: ps shows arguments to every user, and a link's fragment holds its secret. "+
		"Give the link instead at the prompt of 'ptyhost %s' without a URL (it does not echo), "+
		"with --link-file FILE, or in %s", ErrSecretArgument, cmd, EnvVar)
}

// Redacted returns raw with its fragment replaced by "…", for messages.
func Redacted(raw string) string {
	if i := strings.IndexByte(raw, '#'); i >= 0 {
		return raw[:i] + "#…"
	}
	return raw
}

// redact strips what url.Parse quoted of its input from err: it may
// hold the fragment.
func redact(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// Sources are where a command may find a link, in the order From tries
// them: Arg (a command-line argument: CheckArgument applies), File (a
// file's first line), the environment variable EnvVar (Env is its value),
// and Prompt, which asks the person (nil: no terminal to ask at).
type Sources struct {
	Cmd    string // the command, for messages
	Arg    string
	File   string
	Env    string
	Prompt func() (string, error)
}

// ErrNoLink is matched by From's error when no source gave a link.
var ErrNoLink = errors.New("link: no link given")

// From returns the first link the sources give, parsed.
func From(s Sources) (Link, error) {
	var raw, from string
	switch {
	case s.Arg != "":
		if err := CheckArgument(s.Cmd, s.Arg); err != nil {
			return Link{}, err
		}
		raw, from = s.Arg, "the URL"
	case s.File != "":
		b, err := os.ReadFile(s.File)
		if err != nil {
			return Link{}, fmt.Errorf("link: --link-file: %w", err)
		}
		raw, _, _ = strings.Cut(string(b), "\n")
		from = "--link-file " + s.File
	case s.Env != "":
		raw, from = s.Env, EnvVar
	case s.Prompt != nil:
		p, err := s.Prompt()
		if err != nil {
			return Link{}, fmt.Errorf("link: reading the link: %w", err)
		}
		raw, from = p, "the link typed"
	default:
		return Link{}, fmt.Errorf("%w: give the room's URL, --link-file FILE or %s, or run 'ptyhost %s' on a terminal to be asked for it", ErrNoLink, EnvVar, s.Cmd)
	}
	if strings.TrimSpace(raw) == "" {
		return Link{}, fmt.Errorf("%w: %s is empty", ErrNoLink, from)
	}
	l, err := Parse(raw)
	if err != nil {
		return Link{}, fmt.Errorf("%w (from %s)", err, from)
	}
	return l, nil
}
