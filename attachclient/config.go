package attachclient

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/ptyhost/ptyhost/agent"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
)

// Subprotocol is the WebSocket subprotocol the host offers and the relay
// must echo.
const Subprotocol = attachwire.Subprotocol

// Defaults of the HostConfig fields, as their comments state.
const (
	DefaultBackoffMin             = 250 * time.Millisecond
	DefaultBackoffMax             = 30 * time.Second
	DefaultDialTimeout            = 15 * time.Second
	DefaultWriteTimeout           = 10 * time.Second
	DefaultReadLimit              = 16 << 20
	DefaultFinalScreenWindow      = 60 * time.Second
	DefaultEpochStaleMaxRetries   = 8
	DefaultEpochStaleRetryWindow  = 2 * time.Minute
	DefaultEpochStaleStableWindow = 30 * time.Second
	DefaultLaneFallbackAfter      = 3
	DefaultUpgradeProbeInterval   = 30 * time.Second
	DefaultLaneSilenceTimeout     = 45 * time.Second
	DefaultPingInterval           = 10 * time.Second
	DefaultSilenceTimeout         = 25 * time.Second
)

// HostConfig configures RunHost, which copies it. A zero field takes the
// default its comment names; AttachURL, TokenSource and Session are
// required.
type HostConfig struct {
	// AttachURL is the room's URL, "wss://relay.example/v1/rooms/<id>"
	// (ws:// for development). Required.
	AttachURL string
	// TokenSource returns the host's attach token; it is called before
	// every dial, so it can re-mint an expiring token. The token's
	// sessionId and epoch are what the host subscribes with: its epoch
	// must equal the session's (its snapshots' Epoch). It must be safe for
	// concurrent use. Required.
	TokenSource func(ctx context.Context) (string, error)
	// Session is the session carried. Required.
	Session agent.InteractiveSession
	// Logger receives the carrier's logs (never a token). Nil: discarded.
	Logger *slog.Logger
	// Kill ends the session when the relay sends kill; it is called at
	// most once per RunHost, with RunHost's context, the reason and the
	// requested signal name (empty: host's choice). Nil: Session.Stop.
	Kill func(ctx context.Context, reason attachwire.KillReason, signal string) error
	// HTTPClient performs the WebSocket handshake and the lane's
	// requests; its Timeout must be 0 (DialTimeout bounds the handshake).
	// Nil: a client whose transport is http.DefaultTransport's settings
	// without keep-alive, so that every attempt is a new connection (a
	// refused handshake's connection to a draining relay is never
	// reused), and for the lane's POSTs one with keep-alive, closed when
	// RunHost returns.
	HTTPClient *http.Client
	// BackoffMin and BackoffMax bound the wait between attempts: it
	// doubles from BackoffMin to BackoffMax, each wait drawn from
	// [d/2, d] (equal jitter), and starts over once an attempt was
	// admitted. Zero: 250 ms and 30 s.
	BackoffMin, BackoffMax time.Duration
	// DialTimeout bounds a WebSocket handshake. Zero: 15 s.
	DialTimeout time.Duration
	// WriteTimeout bounds one message written to the relay; a write that
	// takes longer ends the leg. Zero: 10 s.
	WriteTimeout time.Duration
	// ReadLimit is the largest message accepted from the relay, in bytes.
	// Zero: 16 MiB.
	ReadLimit int64
	// FinalScreenWindow is how long after Exit the host keeps serving the
	// final screen (answering snapshot requests) before it closes the leg
	// and RunHost returns nil. Zero: 60 s.
	FinalScreenWindow time.Duration
	// Key, when not nil, seals the room under it (docs/protocol.md,
	// section 8): the subscribe states its key id, every frame's private
	// part is sealed (Output sanitized with the Driver profile first, as
	// the relay cannot), and Input is opened before it is typed; Input
	// that does not open is dropped. The relay then admits only viewers
	// that hold the same key. Nil: a plain room.
	Key *seal.Key
	// Rekey, when not nil, delivers new room keys for a sealed room (key
	// rotation): on each, the host seals under the new key from then on
	// and redials at once; the relay starts a new generation of the room
	// and turns away every leg holding the old key, so old links stop.
	// A key for a room without Key is ignored.
	Rekey <-chan *seal.Key
	// Record asks the relay to record the room (subscribe "record": true);
	// a relay that records on request does, others ignore it. A host on
	// the degraded lane cannot ask. False: the relay's own policy.
	Record bool
	// EpochStaleMaxRetries is how many epoch-stale refusals are retried
	// within EpochStaleRetryWindow before RunHost returns ErrEpochStale;
	// the count is cleared once a leg has stayed admitted for
	// EpochStaleStableWindow. Zero: 8, 2 min and 30 s.
	EpochStaleMaxRetries   int
	EpochStaleRetryWindow  time.Duration
	EpochStaleStableWindow time.Duration
	// LaneFallbackAfter is how many WebSocket dials in a row must fail
	// (planned restarts do not count) before the host moves to the
	// degraded lane (SSE down, POST up), for paths that break WebSocket.
	// The same number of failed lane GETs in a row, or one 404, sends it
	// back to WebSocket dials. Zero: 3.
	LaneFallbackAfter int
	// UpgradeProbeInterval is how often a host on the lane tries a
	// WebSocket handshake (closed at once, 1000 "upgrade probe"); one
	// that succeeds moves the host back to WebSocket. Zero: 30 s.
	UpgradeProbeInterval time.Duration
	// LaneSilenceTimeout ends a lane leg whose SSE stream brought nothing
	// (not even the relay's 15 s heartbeat) for this long: the lane has
	// no ping, and a dead path would otherwise hold the leg forever.
	// Zero: 45 s.
	LaneSilenceTimeout time.Duration
	// PingInterval and SilenceTimeout are the WebSocket leg's keepalive,
	// the relay's own rule from the host's side: a ping every
	// PingInterval, and a leg from which nothing (frame or pong) arrived
	// for SilenceTimeout is closed and redialled, so that a path that
	// went silent without closing (a black hole) costs the viewers one
	// timeout, not the minutes TCP takes to give up. Zero: 10 s and 25 s.
	PingInterval, SilenceTimeout time.Duration
	// Room, when not nil, receives what the relay tells the host of the
	// room's people, in the order it arrives: presence (the list at each
	// bind, then joins and leaves) and the pen's controls (pen_state at
	// each bind, then pen_granted and pen_revoked), and the input
	// proposals' controls: the pen holder's decide (for an
	// approval.Gate's Decide) and a proposing driver's propose (for its
	// Propose). It is called on a leg's reader goroutine
	// and must not block.
	Room func(attachwire.Control)
	// Link, when not nil, is told when a leg is admitted (true) and when
	// an attempt failed or a leg ended before RunHost redials (false), so
	// a sharer can say the relay is unreachable meanwhile. Called from
	// RunHost's goroutines, one call at a time; must not block.
	Link func(up bool)
	// Controls, when not nil, is bound to each leg while it is up, so
	// that its methods reach the relay.
	Controls *HostControls
}

// withDefaults validates c and returns it with every zero field set.
func (c HostConfig) withDefaults() (HostConfig, error) {
	u, err := url.Parse(c.AttachURL)
	switch {
	case c.AttachURL == "":
		return c, configErr("AttachURL is required")
	case err != nil:
		return c, configErr("AttachURL: %v", err)
	case u.Scheme != "ws" && u.Scheme != "wss":
		return c, configErr("AttachURL scheme %q: want ws or wss", u.Scheme)
	case c.TokenSource == nil:
		return c, configErr("TokenSource is required")
	case c.Session == nil:
		return c, configErr("Session is required")
	case c.HTTPClient != nil && c.HTTPClient.Timeout != 0:
		return c, configErr("HTTPClient.Timeout must be 0 (DialTimeout bounds the handshake)")
	case c.BackoffMin < 0 || c.BackoffMax < 0 || c.DialTimeout < 0 || c.WriteTimeout < 0 ||
		c.ReadLimit < 0 || c.FinalScreenWindow < 0 || c.EpochStaleMaxRetries < 0 ||
		c.EpochStaleRetryWindow < 0 || c.EpochStaleStableWindow < 0 ||
		c.LaneFallbackAfter < 0 || c.UpgradeProbeInterval < 0 || c.LaneSilenceTimeout < 0 ||
		c.PingInterval < 0 || c.SilenceTimeout < 0:
		return c, configErr("negative limit")
	}
	def := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.BackoffMin, DefaultBackoffMin)
	def(&c.BackoffMax, DefaultBackoffMax)
	def(&c.DialTimeout, DefaultDialTimeout)
	def(&c.WriteTimeout, DefaultWriteTimeout)
	def(&c.FinalScreenWindow, DefaultFinalScreenWindow)
	def(&c.EpochStaleRetryWindow, DefaultEpochStaleRetryWindow)
	def(&c.EpochStaleStableWindow, DefaultEpochStaleStableWindow)
	def(&c.UpgradeProbeInterval, DefaultUpgradeProbeInterval)
	def(&c.LaneSilenceTimeout, DefaultLaneSilenceTimeout)
	def(&c.PingInterval, DefaultPingInterval)
	def(&c.SilenceTimeout, DefaultSilenceTimeout)
	if c.LaneFallbackAfter == 0 {
		c.LaneFallbackAfter = DefaultLaneFallbackAfter
	}
	if c.BackoffMin > c.BackoffMax {
		return c, configErr("BackoffMin %v is above BackoffMax %v", c.BackoffMin, c.BackoffMax)
	}
	if c.ReadLimit == 0 {
		c.ReadLimit = DefaultReadLimit
	}
	if c.EpochStaleMaxRetries == 0 {
		c.EpochStaleMaxRetries = DefaultEpochStaleMaxRetries
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if c.HTTPClient == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.DisableKeepAlives = true
		c.HTTPClient = &http.Client{Transport: tr}
	}
	if c.Kill == nil {
		s := c.Session
		c.Kill = func(ctx context.Context, _ attachwire.KillReason, _ string) error { return s.Stop(ctx) }
	}
	return c, nil
}

func configErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidConfig}, args...)...)
}
