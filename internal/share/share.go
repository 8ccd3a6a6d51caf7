package share

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/ptyhost/ptyhost/agent"
	"github.com/ptyhost/ptyhost/approval"
	"github.com/ptyhost/ptyhost/attachclient"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
	"github.com/ptyhost/ptyhost/internal/link"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/token"
	"golang.org/x/crypto/ssh"
)

// Defaults and limits of Config.
const (
	// DefaultLinkTTL is how long the links' tokens are valid: a working
	// day and then some, since a viewer reuses its token on every
	// reconnect for as long as the session lasts.
	DefaultLinkTTL = 24 * time.Hour
	// MaxLinkTTL bounds Config.LinkTTL: a leaked link stops working
	// within a week whatever was asked.
	MaxLinkTTL = 7 * 24 * time.Hour
	// HostTokenTTL is the life of each host token: one dial's worth.
	HostTokenTTL = 5 * time.Minute
	// DefaultOrg is the orgId of the tokens when Config.Org is empty, as
	// `ptyhost token` uses.
	DefaultOrg = "default"
	// ViewerUser and DriverUser are the userIds of the terminal links'
	// tokens, PageViewerUser and PageDriverUser of the browser links':
	// what presence shows for whoever opens them.
	ViewerUser     = "viewer"
	DriverUser     = "driver"
	PageViewerUser = "web-viewer"
	PageDriverUser = "web-driver"
)

// ErrConfig reports a Config that cannot work; the message says which
// field.
var ErrConfig = errors.New("share: bad config")

// Config says where the session is shared. Every field's zero value is
// stated; Start copies it.
type Config struct {
	// RelayURL is the base URL of the relay to use, in a form package link
	// reads (ws://, wss://, http:// or https://, with or without the
	// "/v1/rooms/" path; not a room's). Empty: start an embedded relay on
	// 127.0.0.1.
	RelayURL string
	// Key signs every token; with RelayURL it must be the private half of
	// a key the relay accepts. Without RelayURL it must be nil: the
	// embedded relay gets a fresh key. A RelayURL without a Key is a relay
	// in issuer mode (docs/relay.md): the user's SSH key logs in there,
	// and the relay makes the room and mints every token.
	Key ed25519.PrivateKey
	// Signer is the SSH key that logs in to a relay in issuer mode. Nil:
	// the one issuer.FindSigner finds, with Identity.
	Signer ssh.Signer
	// Identity is an SSH private key file to log in with (FindSigner's
	// identityFile). Empty: the ssh-agent, else ~/.ssh's keys.
	Identity string
	// Port is the embedded relay's TCP port on 127.0.0.1. Zero: any free
	// port. Refused with RelayURL.
	Port int
	// Room is the room and session id. Empty: a random one.
	Room string
	// Org is the tokens' orgId. Empty: DefaultOrg.
	Org string
	// Epoch is the host's epoch: the session must stamp the same one in
	// its snapshots (ptyhost.Spec.Epoch). Zero is allowed.
	Epoch uint64
	// LinkTTL is how long the viewer and driver tokens are valid. Zero:
	// DefaultLinkTTL; at most MaxLinkTTL.
	LinkTTL time.Duration
	// FinalScreenWindow is how long after the session's exit Carry keeps
	// serving its final screen. Zero: attachclient's default (60 s).
	FinalScreenWindow time.Duration
	// Unsealed turns end-to-end encryption off: the relay then reads the
	// session as it passes. False (the default): the room is sealed
	// (docs/protocol.md, section 8) under a key Start makes, which the
	// links carry in their fragments and the relay never sees.
	Unsealed bool
	// RelayRecord asks the relay to record the room (docs/relay.md,
	// "Recording"). False: the relay's own policy.
	RelayRecord bool
	// OnRoom and OnLink are Carry's hooks on the room's people and on
	// its leg to the relay (attachclient.HostConfig's Room and Link).
	// Nil: none.
	OnRoom func(attachwire.Control)
	OnLink func(up bool)
	// Approve makes the drive links proposers' (token.Claims.Propose):
	// what a driver types waits for the sharer's approval (Decide) or
	// the pen holder's. ApprovalTimeout is how long a proposal waits
	// (zero: approval.DefaultTimeout). OnProposal is told each proposal
	// and each outcome (the sharer's console shows them); nil: none.
	Approve         bool
	ApprovalTimeout time.Duration
	OnProposal      func(attachwire.Proposal)
}

// Links is what Start hands out for viewers. It holds tokens: print it
// only to the person sharing.
type Links struct {
	// Room is the room's id.
	Room string
	// AttachURL is the room's WebSocket URL, for `ptyhost attach`.
	AttachURL string
	// PageURL is the browser viewer's address, without a token.
	PageURL string
	// ViewerToken and DriverToken are the terminal links' tokens (watch;
	// watch or drive), PageViewerToken and PageDriverToken the browser
	// links'. Each is its own token: the relay admits one live connection
	// per token, so each link serves one viewer at a time.
	ViewerToken, DriverToken         string
	PageViewerToken, PageDriverToken string
	// Expires is when both tokens stop admitting new connections.
	Expires time.Time
	// Embedded reports a relay started by Start, reachable from this
	// machine only.
	Embedded bool
	// WatchLink and DriveLink are a relay in issuer mode's short links
	// (<base>/s/<room>#<secret>), each an invite that admits many; then
	// the four tokens above are empty. WatchInvite and DriveInvite are
	// the invites' ids, for revoking them.
	WatchLink, DriveLink     string
	WatchInvite, DriveInvite string
	// Key is the sealed room's key, which every link carries (the short
	// links after a dot, the others as key=); nil when Config.Unsealed.
	Key *seal.Key
}

// BrowserURL returns the page's address with tok, and the room key of a
// sealed room, in the fragment, which a browser never sends to the
// server.
func (l Links) BrowserURL(tok string) string {
	u := l.PageURL + "#token=" + tok
	if l.Key != nil {
		u += "&key=" + l.Key.Encode()
	}
	return u
}

// KeyEnv is what a terminal link sets besides PTYHOST_TOKEN for `ptyhost
// attach` ("PTYHOST_KEY=…" and a space), "" for a plain room.
func (l Links) KeyEnv() string {
	if l.Key == nil {
		return ""
	}
	return link.KeyEnvVar + "=" + l.Key.Encode() + " "
}

// sealLinks makes the room key of a sealed room (unless cfg.Unsealed)
// and puts it in the short links, if any.
func (l *Links) sealLinks(cfg Config) error {
	if cfg.Unsealed {
		return nil
	}
	k, err := seal.GenerateKey()
	if err != nil {
		return fmt.Errorf("share: %w", err)
	}
	l.Key = k
	for _, s := range []*string{&l.WatchLink, &l.DriveLink} {
		if *s != "" {
			*s += "." + k.Encode()
		}
	}
	return nil
}

// Share is a room on a relay, ready to carry one session.
type Share struct {
	// Links are the room's viewer links.
	Links Links

	cfg       Config
	attachURL string // what the host dials

	controls *attachclient.HostControls // the host's kick, pen_take and read_only
	revoker  Revoker

	mu   sync.Mutex
	gate *approval.Gate // Config.Approve's; set by Carry

	stopRelay context.CancelFunc // nil without an embedded relay
	relayDone chan error
	closeOnce sync.Once
	issued    *issued // nil: not through a relay in issuer mode

	// rekey carries Rekey's new keys to Carry's host (sealed rooms only);
	// keyMu guards links, the links under the newest key.
	rekey chan *seal.Key
	keyMu sync.Mutex
	links Links
}

// Start checks cfg, starts the embedded relay when cfg has no RelayURL,
// and mints the links.
func Start(cfg Config) (*Share, error) {
	if cfg.RelayURL != "" && cfg.Key == nil {
		return startIssued(cfg)
	}
	base, err := cfg.check()
	if err != nil {
		return nil, err
	}
	s := &Share{cfg: cfg, controls: &attachclient.HostControls{}}
	if base == nil {
		if base, err = s.startRelay(); err != nil {
			return nil, err
		}
	}
	s.attachURL = base.JoinPath("v1", "rooms", s.cfg.Room).String()
	if err := s.mintLinks(base); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// check validates c, fills its defaults, and returns the relay's base URL
// (nil for an embedded relay).
func (c *Config) check() (*url.URL, error) {
	switch {
	case c.RelayURL != "" && c.Key == nil:
		return nil, fmt.Errorf("%w: a relay URL needs the relay's signing key", ErrConfig)
	case c.RelayURL == "" && c.Key != nil:
		return nil, fmt.Errorf("%w: a key is for a relay URL; the embedded relay makes its own", ErrConfig)
	case c.RelayURL != "" && c.Port != 0:
		return nil, fmt.Errorf("%w: a port is for the embedded relay, not a relay URL", ErrConfig)
	case c.Port < 0 || c.Port > 65535:
		return nil, fmt.Errorf("%w: port %d is not in 0..65535", ErrConfig, c.Port)
	case c.LinkTTL < 0 || c.LinkTTL > MaxLinkTTL:
		return nil, fmt.Errorf("%w: link TTL %v is not in 0..%v", ErrConfig, c.LinkTTL, MaxLinkTTL)
	case c.FinalScreenWindow < 0:
		return nil, fmt.Errorf("%w: negative final-screen window", ErrConfig)
	case !roomID(c.Room):
		return nil, fmt.Errorf("%w: room %q: want 1 to 128 letters, digits, '-', '_', '.' or '~'", ErrConfig, c.Room)
	}
	if c.LinkTTL == 0 {
		c.LinkTTL = DefaultLinkTTL
	}
	if c.Org == "" {
		c.Org = DefaultOrg
	}
	if c.Room == "" {
		var b [6]byte
		rand.Read(b[:]) // never fails (crypto/rand's contract)
		c.Room = "share-" + hex.EncodeToString(b[:])
	}
	if c.RelayURL == "" {
		return nil, nil
	}
	return relayBase(c.RelayURL)
}

// roomID reports whether s is a room id that goes into a URL path as it
// is (URL-unreserved characters only); empty asks for a random one.
func roomID(s string) bool {
	if len(s) > 128 {
		return false
	}
	for _, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.~", r)
		if !ok {
			return false
		}
	}
	return s != "." && s != ".."
}

// relayBase parses a relay's URL (the forms package link reads) into its
// ws:// or wss:// base, without the room path.
func relayBase(raw string) (*url.URL, error) {
	l, err := link.Parse(raw)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%w: relay URL %s", ErrConfig, strings.TrimPrefix(err.Error(), link.ErrURL.Error()+": "))
	case l.Room != "" || l.Fragment != nil:
		return nil, fmt.Errorf("%w: relay URL %q: want the relay's address, not a room's link", ErrConfig, link.Redacted(raw))
	}
	return l.Base, nil
}

// startRelay runs an embedded relay on 127.0.0.1 with a fresh key and
// returns its base URL once it listens.
func (s *Share) startRelay() (*url.URL, error) {
	pub, priv, err := token.GenerateKey()
	if err != nil {
		return nil, fmt.Errorf("share: %w", err)
	}
	s.cfg.Key = priv
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan net.Addr, 1)
	s.relayDone = make(chan error, 1)
	go func() {
		s.relayDone <- relay.ListenAndServe(ctx, relay.Config{
			PublicKeys: []ed25519.PublicKey{pub},
			Logger:     slog.New(slog.NewTextHandler(io.Discard, nil)),
		}, relay.ServeOptions{
			Addr:         net.JoinHostPort("127.0.0.1", fmt.Sprint(s.cfg.Port)),
			DrainTimeout: time.Second,
			Ready:        func(a net.Addr, _ bool) { ready <- a },
		})
	}()
	select {
	case a := <-ready:
		s.stopRelay = cancel
		return &url.URL{Scheme: "ws", Host: a.String()}, nil
	case err := <-s.relayDone:
		cancel()
		return nil, fmt.Errorf("share: embedded relay: %w", err)
	}
}

// mintLinks mints the viewer and driver tokens and the links' URLs.
func (s *Share) mintLinks(base *url.URL) error {
	page := *base
	page.Scheme = map[string]string{"ws": "http", "wss": "https"}[base.Scheme]
	now := time.Now()
	l := Links{
		Room:      s.cfg.Room,
		AttachURL: s.attachURL,
		PageURL:   page.JoinPath("v1", "rooms", s.cfg.Room, "view").String(),
		Expires:   now.Add(s.cfg.LinkTTL),
		Embedded:  s.stopRelay != nil,
	}
	rv := &tokenRevoker{jtis: map[string]string{}, hc: s.controls, done: map[string]bool{}}
	for _, t := range []struct {
		dst   *string
		role  attachwire.Role
		user  string
		id    string
		label string
	}{
		{&l.ViewerToken, attachwire.RoleViewer, ViewerUser, "watch", "watch in a terminal"},
		{&l.DriverToken, attachwire.RoleDriver, DriverUser, "drive", "drive in a terminal"},
		{&l.PageViewerToken, attachwire.RoleViewer, PageViewerUser, "page-watch", "watch in a browser"},
		{&l.PageDriverToken, attachwire.RoleDriver, PageDriverUser, "page-drive", "drive in a browser"},
	} {
		tok, jti, err := s.mintID(t.role, t.user, now, s.cfg.LinkTTL)
		if err != nil {
			return err
		}
		*t.dst = tok
		rv.links = append(rv.links, RevocableLink{ID: t.id, Label: t.label, Role: t.role})
		rv.jtis[t.id] = jti
	}
	if err := l.sealLinks(s.cfg); err != nil {
		return err
	}
	s.Links = l
	s.initRekey()
	s.revoker = rv
	return nil
}

// Controls returns the host's controls (kick, take the pen, read-only),
// which reach the relay while Carry has a leg up.
func (s *Share) Controls() *attachclient.HostControls { return s.controls }

// Revoker returns what revokes the links Start handed out.
func (s *Share) Revoker() Revoker { return s.revoker }

// mint signs a token for the room: a host token (carrying the epoch) when
// role is host, else one for user.
func (s *Share) mint(role attachwire.Role, user string, now time.Time, ttl time.Duration) (string, error) {
	tok, _, err := s.mintID(role, user, now, ttl)
	return tok, err
}

// mintID is mint that also returns the token's jti.
func (s *Share) mintID(role attachwire.Role, user string, now time.Time, ttl time.Duration) (string, string, error) {
	c := token.Claims{
		SessionID: s.cfg.Room, RoomID: s.cfg.Room, UserID: user, Role: role, OrgID: s.cfg.Org,
		IssuedAt: now.Unix(), ExpiresAt: now.Add(ttl).Unix(), Audience: token.Audience,
		Propose: s.cfg.Approve && role == attachwire.RoleDriver,
	}
	if role == attachwire.RoleHost {
		e := s.cfg.Epoch
		c.Epoch = &e
	}
	jti, err := token.NewJTI()
	if err != nil {
		return "", "", fmt.Errorf("share: %w", err)
	}
	c.JTI = jti
	if err := c.Validate(); err != nil {
		return "", "", fmt.Errorf("%w: %v", ErrConfig, err)
	}
	tok, err := token.Mint(s.cfg.Key, c)
	if err != nil {
		return "", "", fmt.Errorf("share: %w", err)
	}
	return tok, jti, nil
}

// Carry runs the host leg for sess until the session has exited and the
// final-screen window has passed (nil), ctx ends (ctx.Err()), or the
// relay ends the leg for good (attachclient's errors). sess must stamp
// Config.Epoch in its snapshots. logger receives the carrier's logs (nil:
// none).
func (s *Share) Carry(ctx context.Context, sess agent.InteractiveSession, logger *slog.Logger) error {
	room, link := s.cfg.OnRoom, s.cfg.OnLink
	if s.cfg.Approve {
		g := s.newGate(sess, logger)
		defer g.Close()
		room, link = s.gated(ctx, g, logger)
	}
	return attachclient.RunHost(ctx, attachclient.HostConfig{
		AttachURL: s.attachURL,
		TokenSource: func(ctx context.Context) (string, error) {
			if s.issued != nil {
				return s.issued.hostToken(ctx)
			}
			return s.mint(attachwire.RoleHost, "", time.Now(), HostTokenTTL)
		},
		Session:           sess,
		Logger:            logger,
		FinalScreenWindow: s.cfg.FinalScreenWindow,
		Record:            s.cfg.RelayRecord,
		Room:              room,
		Link:              link,
		Controls:          s.controls,
		Key:               s.Links.Key,
		Rekey:             s.rekey,
	})
}

// StopReason is why Carry ended, in the words a sharer reads: the
// relay's own message when it stopped the host.
func StopReason(err error) string {
	var stop *attachclient.RelayStopError
	if errors.As(err, &stop) {
		return stop.Control.Message
	}
	return err.Error()
}

// FinalScreenWindow is how long Carry serves the final screen after the
// session's exit.
func (s *Share) FinalScreenWindow() time.Duration {
	if s.cfg.FinalScreenWindow == 0 {
		return attachclient.DefaultFinalScreenWindow
	}
	return s.cfg.FinalScreenWindow
}

// Close stops the embedded relay, if Start started one, and waits for it.
// It is idempotent; a Share carrying a session should be closed after
// Carry returned.
func (s *Share) Close() error {
	var err error
	s.closeOnce.Do(func() {
		if s.stopRelay != nil {
			s.stopRelay()
			err = <-s.relayDone
		}
	})
	return err
}
