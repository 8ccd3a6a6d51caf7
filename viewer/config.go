package viewer

import (
	"net/http"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
	"github.com/ptyhost/ptyhost/web/engine"
)

// Subprotocol is the WebSocket subprotocol of interactive-attach-v1.
const Subprotocol = attachwire.Subprotocol

// Defaults of the Config fields left zero.
const (
	DefaultBackoffMin      = 250 * time.Millisecond
	DefaultBackoffMax      = 30 * time.Second
	DefaultDialTimeout     = 15 * time.Second
	DefaultReadLimit       = 16 << 20
	DefaultMaxPendingInput = 1 << 20
	DefaultPingInterval    = 10 * time.Second
	DefaultFallbackAfter   = 3
	DefaultProbeInterval   = 30 * time.Second
)

// Config configures a Client. Dial copies it; every field's zero value is
// documented with it. A Config is a plain value.
type Config struct {
	// URL is the room's attach URL, ws:// or wss://…/v1/rooms/<roomId>.
	// Required. A fragment (#token=…) is ignored: the token is Token.
	URL string
	// Token is the attach token, sent in the Authorization header.
	// Required.
	Token string
	// SessionID is the subscribe's sessionId. Empty: the token's sessionId
	// claim, else the URL's last path segment.
	SessionID string
	// Key is the room key of a sealed room (docs/protocol.md, section 8),
	// from the link's fragment: the Client states its key id, opens every
	// sealed frame before the mirror or OnEvent sees it (a frame that
	// does not open is dropped, reported as an EventNotice with code
	// "integrity", and a snapshot is asked for; failures that keep coming
	// end the leg with a *RefusedError) and seals its Input. Nil: a plain
	// room; a sealed room then refuses the Client (code "sealed"), saying
	// a link with the key is needed.
	Key *seal.Key
	// Role is the role asked for in subscribe (asRole): RoleDriver takes
	// the pen at once when it is free. Empty: the token's role, which
	// must be driver or viewer.
	Role attachwire.Role
	// Viewport is this terminal's size, advertised in subscribe. Zero:
	// none advertised.
	Viewport attachwire.Viewport
	// Scrollback is how many lines the mirror keeps above its screen.
	// Zero keeps none.
	Scrollback int
	// OnEvent receives what the Client learns, in stream order (see the
	// package doc for the rules). Nil: events are dropped; the mirror and
	// the accessors still follow the stream.
	OnEvent func(Event)
	// BackoffMin and BackoffMax bound the wait between reconnection
	// attempts. Zero: DefaultBackoffMin, DefaultBackoffMax.
	BackoffMin, BackoffMax time.Duration
	// DialTimeout bounds one dial and subscribe. Zero: DefaultDialTimeout.
	DialTimeout time.Duration
	// PingInterval is how often the Client pings the relay; a leg whose
	// ping is not answered within the interval is dropped and redialled.
	// Zero: DefaultPingInterval.
	PingInterval time.Duration
	// ReadLimit is the largest message accepted from the relay. Zero:
	// DefaultReadLimit.
	ReadLimit int64
	// MaxPendingInput bounds the Input bytes sent but not yet
	// acknowledged, up to engine.MaxPendingInputBytes (16 MiB). Zero:
	// DefaultMaxPendingInput.
	MaxPendingInput int
	// HTTPClient dials the WebSocket and carries the degraded lane's
	// requests. Nil: http.DefaultClient.
	HTTPClient *http.Client
	// FallbackAfter is how many WebSocket dials in a row must fail (no
	// answer, or not a WebSocket answer; refusals, 429 and 503 do not
	// count) before the Client rides the degraded lane: SSE down
	// (…/sse) and POST up (…/input). A relay answering the lane 404
	// sends it back to WebSocket dials. Zero: DefaultFallbackAfter;
	// negative: never.
	FallbackAfter int
	// PresenceCounts asks the relay for a large room's member count and a
	// bounded list instead of every join and leave (EventPresence's Total
	// above len(Members); docs/protocol.md, "Presence in large rooms").
	// Set it where what shows the members shows Total.
	PresenceCounts bool
	// ProbeInterval is how often a Client on the lane tries a WebSocket
	// handshake; the first that succeeds moves it back to WebSocket,
	// resuming. Zero: DefaultProbeInterval.
	ProbeInterval time.Duration
}

func (c Config) withDefaults() Config {
	if c.BackoffMin <= 0 {
		c.BackoffMin = DefaultBackoffMin
	}
	if c.BackoffMax <= 0 {
		c.BackoffMax = DefaultBackoffMax
	}
	c.BackoffMax = max(c.BackoffMax, c.BackoffMin)
	if c.DialTimeout <= 0 {
		c.DialTimeout = DefaultDialTimeout
	}
	if c.PingInterval <= 0 {
		c.PingInterval = DefaultPingInterval
	}
	if c.ReadLimit <= 0 {
		c.ReadLimit = DefaultReadLimit
	}
	if c.FallbackAfter == 0 {
		c.FallbackAfter = DefaultFallbackAfter
	}
	if c.ProbeInterval <= 0 {
		c.ProbeInterval = DefaultProbeInterval
	}
	if c.MaxPendingInput <= 0 {
		c.MaxPendingInput = DefaultMaxPendingInput
	}
	c.MaxPendingInput = min(c.MaxPendingInput, engine.MaxPendingInputBytes)
	return c
}
