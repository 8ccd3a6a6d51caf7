package relay

import (
	"crypto/ed25519"
	"log/slog"
	"net/http"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
)

// Config configures a Relay. New copies it; a zero field takes the default
// its comment names, so the zero Config (plus PublicKeys) is a working relay.
type Config struct {
	// PublicKeys verify attach tokens (EdDSA). Several keys allow rotation:
	// a token signed by any of them is accepted. Required: New fails
	// without one.
	PublicKeys []ed25519.PublicKey

	// AllowedOrigins lists the browser origins ("https://app.example.com")
	// allowed besides the relay's own. A request without an Origin header
	// (a native client) is always allowed. Nil: only the relay's own origin.
	AllowedOrigins []string

	// Logger receives the relay's logs. They never hold a token or a query
	// string. Nil: slog.Default().
	Logger *slog.Logger

	// Metrics is the registry the relay's collectors are registered on and
	// /metrics serves. Nil: a new registry of the Relay's own (no globals).
	Metrics *prometheus.Registry

	// RingBytes bounds each room's ring of sanitized frames. Zero: 4 MiB.
	RingBytes int64
	// ViewerQueueBytes bounds how far a viewer may lag behind the head
	// before it is skipped to a snapshot. Zero: 1 MiB.
	ViewerQueueBytes int64
	// ViewerBytesPerSecond caps what the relay writes to one driver or
	// viewer leg (a token bucket whose burst is ViewerQueueBytes, or one
	// second's worth if that is more): a viewer held back by it lags and is
	// skipped to snapshots like a slow one. Zero: no cap.
	ViewerBytesPerSecond float64
	// HostQueueFrames bounds the per-room queue of Input waiting for the
	// host; when it is full the relay stops reading the driver's socket.
	// Zero: 256.
	HostQueueFrames int
	// ReplayInputs, ReplayBytes and ReplayAge bound each room's window of
	// Input already written to its host leg, which the relay writes again
	// to the next leg of the same epoch (the protocol has no Input ack, so
	// a leg that ends may have taken keys its host never applied):
	// whichever bound is reached first drops the oldest. ReplayInputs must
	// stay below a host's dedup set (attachclient: 4096). Zero: 256
	// frames, 64 KiB, 10 s.
	ReplayInputs int
	ReplayBytes  int64
	ReplayAge    time.Duration

	// MaxRooms caps the rooms alive at once. Zero: 10,000.
	MaxRooms int
	// MaxViewersPerRoom caps the driver and viewer legs of one room.
	// Zero: 1,000.
	MaxViewersPerRoom int
	// PresenceEvery is the least time between two presence updates of a
	// room (joins and leaves are coalesced; in a room of more than 500
	// members the interval grows with its size). Zero: 250 ms.
	PresenceEvery time.Duration
	// PresenceListMax is the room size past which a leg that reads
	// presence counts gets them and a bounded list instead of every join
	// and leave; it gets lists again at half this size. Zero: 64.
	PresenceListMax int
	// DialsPerSecond is the rate of dials one client address may make
	// (burst the same); past it the relay answers 429. Zero: 20.
	DialsPerSecond float64

	// HostReadLimit is the largest message a host leg may send. Zero: 16 MiB.
	HostReadLimit int64
	// ViewerReadLimit is the largest message a driver or viewer leg may
	// send. Zero: 1 MiB.
	ViewerReadLimit int64
	// MaxCols and MaxRows bound every terminal size in a room: the size the
	// pen holder asks for is clamped to them before it reaches the host,
	// and a host Resize beyond them is the host's framing error (a viewer
	// would otherwise allocate whatever it is told). Zero: 4096 each.
	MaxCols, MaxRows uint32

	// SubscribeTimeout is how long a leg has after the upgrade to send its
	// subscribe. Zero: 10 s.
	SubscribeTimeout time.Duration
	// WriteTimeout bounds every write to a leg. Zero: 10 s.
	WriteTimeout time.Duration
	// PingInterval is the keepalive ping period on every leg. Zero: 10 s.
	PingInterval time.Duration
	// SilenceTimeout closes a leg from which nothing (not even a pong) has
	// arrived for this long. Zero: 25 s.
	SilenceTimeout time.Duration
	// SSEHeartbeat is the period of the ": heartbeat" comment on every
	// degraded-lane SSE stream. Zero: 15 s.
	SSEHeartbeat time.Duration
	// SnapshotRetry is how long a viewer waiting for a snapshot waits before
	// the relay asks the host again. Zero: 1 s.
	SnapshotRetry time.Duration

	// PenCooldown is the time after a pen change before a grab is granted.
	// Zero: 1 s.
	PenCooldown time.Duration
	// PenGrace is how long the pen stays with a holder whose leg dropped,
	// for the same jti to reconnect and keep it. Zero: 5 s.
	PenGrace time.Duration
	// HostGoneAfter is how long a room waits in host-reconnecting before it
	// reports host-gone. Zero: 5 min.
	HostGoneAfter time.Duration
	// EndedFor is how long a room stays in ended after Exit before it
	// closes. Zero: 10 min.
	EndedFor time.Duration
	// RestartAfter is the redial hint Shutdown announces (rounded up to
	// whole seconds, at least 1). Zero: 5 s.
	RestartAfter time.Duration

	// MaxTokenTTL refuses an attach token whose exp lies more than this
	// after its iat, whoever signed it: the relay's own bound on the
	// lifetime its issuers may give a credential. Zero: no bound (the
	// issuer's exp alone decides; share's links live as long as their
	// session).
	MaxTokenTTL time.Duration

	// HistoryDir keeps each room's whole stream on disk, beyond the ring,
	// so that viewers can rewind and search it while the room lives
	// (docs/relay.md, "History and rewind"). The relay makes its own
	// directories under it, readable by its user only, and removes each
	// room's files when its stream ends. Empty: no history (rewinding
	// reaches no further than the ring).
	HistoryDir string
	// HistoryBytes bounds each room's history on disk; past it the oldest
	// part goes. Zero: 256 MiB.
	HistoryBytes int64
	// KeyframeBytes is how much output the history holds between key
	// frames (host snapshots the relay asks for and sends to no viewer): a
	// rewind applies at most about this much after its key frame. Zero:
	// 1 MiB.
	KeyframeBytes int64

	// Now is the clock every decision of the relay reads: tokens (exp,
	// iat), the jti and ticket stores, the dial rate, the pen's cooldown
	// and first generation, the input replay window's age, a leg's
	// silence, the byte cap's refill, the host-less resume throttle, the
	// host-lost instant and a cluster owner's silence. Socket deadlines,
	// requests to other nodes and the timers that fire (PenGrace,
	// HostGoneAfter, EndedFor, the periodic pings and beats) run on the
	// real clock; a test that moves Now by hand still waits for those.
	// Nil: time.Now.
	Now func() time.Time

	// NATS joins the relay to a cluster of relay nodes meeting through this
	// connection (docs/relay.md, "Cluster"): rooms are owned by the node
	// holding their host and followed by the nodes holding their viewers.
	// The relay does not close it. Nil: a standalone relay.
	NATS *nats.Conn
	// Node names this relay among the cluster's nodes (A-Z a-z 0-9 _ -, at
	// most 64); each node needs its own. Empty: a random name.
	Node string
	// NATSReplicas is how many NATS servers keep the cluster's key-value
	// bucket (who owns which room). With NATS itself a cluster of three,
	// 3 lets the relays go on after any one server is lost; it cannot
	// exceed the NATS cluster's JetStream servers. Zero: 1.
	NATSReplicas int

	// Record turns on relay-side recording of rooms (docs/relay.md,
	// "Recording"). Zero: nothing is recorded.
	Record RecordConfig

	// Issuer, when not nil, makes the relay its own issuer (issuer mode,
	// docs/relay.md): its key is added to PublicKeys, which may then be
	// empty. Nil: platform mode only.
	Issuer *IssuerConfig

	// Viewer serves the browser viewer's page (web.PagePattern) and files
	// (web.AssetPattern). Nil: web.Handler(), the page built into the
	// binary by `go generate ./web`, or one saying how to build it.
	Viewer http.Handler
}

// withDefaults returns c with every zero field set to its default.
func (c Config) withDefaults() Config {
	def := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Metrics == nil {
		c.Metrics = prometheus.NewRegistry()
	}
	if c.RingBytes <= 0 {
		c.RingBytes = 4 << 20
	}
	if c.HistoryBytes <= 0 {
		c.HistoryBytes = 256 << 20
	}
	if c.KeyframeBytes <= 0 {
		c.KeyframeBytes = 1 << 20
	}
	if c.ViewerQueueBytes <= 0 {
		c.ViewerQueueBytes = 1 << 20
	}
	if c.HostQueueFrames <= 0 {
		c.HostQueueFrames = 256
	}
	if c.ReplayInputs <= 0 {
		c.ReplayInputs = 256
	}
	if c.ReplayBytes <= 0 {
		c.ReplayBytes = 64 << 10
	}
	def(&c.ReplayAge, 10*time.Second)
	if c.MaxRooms <= 0 {
		c.MaxRooms = 10000
	}
	if c.MaxViewersPerRoom <= 0 {
		c.MaxViewersPerRoom = 1000
	}
	if c.DialsPerSecond <= 0 {
		c.DialsPerSecond = 20
	}
	def(&c.PresenceEvery, 250*time.Millisecond)
	if c.PresenceListMax <= 0 {
		c.PresenceListMax = 64
	}
	if c.HostReadLimit <= 0 {
		c.HostReadLimit = 16 << 20
	}
	if c.ViewerReadLimit <= 0 {
		c.ViewerReadLimit = 1 << 20
	}
	if c.MaxCols == 0 {
		c.MaxCols = 4096
	}
	if c.MaxRows == 0 {
		c.MaxRows = 4096
	}
	def(&c.SubscribeTimeout, 10*time.Second)
	def(&c.WriteTimeout, 10*time.Second)
	def(&c.PingInterval, 10*time.Second)
	def(&c.SilenceTimeout, 25*time.Second)
	def(&c.SnapshotRetry, time.Second)
	def(&c.SSEHeartbeat, 15*time.Second)
	def(&c.PenCooldown, time.Second)
	def(&c.PenGrace, 5*time.Second)
	def(&c.HostGoneAfter, 5*time.Minute)
	def(&c.EndedFor, 10*time.Minute)
	def(&c.RestartAfter, 5*time.Second)
	if c.Now == nil {
		c.Now = time.Now
	}
	c.PublicKeys = append([]ed25519.PublicKey(nil), c.PublicKeys...)
	c.AllowedOrigins = append([]string(nil), c.AllowedOrigins...)
	return c
}
