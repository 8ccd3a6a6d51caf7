package relay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/ptyhost/ptyhost/token"
)

// Relay is the reference relay: an http.Handler serving the attach
// endpoint /v1/rooms/<roomId> (WebSocket, every role), /healthz, /readyz
// and /metrics, and the degraded lane under each room (…/host/sse,
// …/host/output, …/sse, …/input, and …/sse-ticket for browsers; see
// lane.go).
//
// A Relay is safe for concurrent use. Its legs run in the goroutines of the
// requests that opened them; Shutdown and Close end them and wait for them.
type Relay struct {
	cfg      Config
	log      *slog.Logger
	verifier *token.Verifier
	metrics  *metrics
	limiter  *dialLimiter
	// reads limits the history's requests per client address: a page
	// scrubbing its timeline or searching asks many times a second, far
	// past a dial's rate (historyReadsPerDial times it).
	reads   *dialLimiter
	mux     *http.ServeMux
	lane    *laneState // the degraded lane's legs, tickets and tid store
	cluster *cluster   // nil: standalone
	rec     *recorders // nil: no recording
	invites *invites   // nil: no issuer mode
	// corkBufs holds the buffers of corked legs (wsconn.go), shared: a
	// leg takes one for a batch of writes and gives it back after.
	corkBufs *sync.Pool

	ctx    context.Context // cancelled by Close: every leg is torn down
	cancel context.CancelFunc
	legs   sync.WaitGroup // one per leg, from admission to teardown
	// keepers pings every WebSocket leg (keepalive.go).
	keepers keepalives
	// histories counts the rooms' history writers (history.go), which
	// Close joins once every room is closed.
	histories sync.WaitGroup

	// draining is set by Shutdown and Close before the rooms are told; a
	// room checks it under its own lock when a leg joins, so a leg admitted
	// during the announcement is refused rather than missed.
	draining atomic.Bool
	timers   sync.WaitGroup // one per pending room timer

	timersMu sync.Mutex // a leaf lock: taken under room.mu and rl.mu
	pending  map[*timer]struct{}

	mu    sync.Mutex
	rooms map[roomKey]*room
	jtis  map[string]*jtiRecord
	// jtiSweep is the size of jtis at which admission next sweeps it for
	// expired records: twice what the last sweep left, so a sweep's cost
	// is spread over as many admissions as it looked at.
	jtiSweep int
	kicked   map[kickKey]time.Time // jtis a host removed, until their tokens expire
	closed   bool
}

// New returns a Relay configured by cfg (see Config for the defaults).
// It fails without a public key or when the metrics cannot be registered.
func New(cfg Config) (*Relay, error) {
	cfg.PublicKeys = issuerPublicKeys(cfg)
	if len(cfg.PublicKeys) == 0 {
		return nil, errors.New("relay: no public key to verify tokens with")
	}
	cfg = cfg.withDefaults()
	v, err := token.NewVerifier(cfg.PublicKeys, token.VerifierOptions{Leeway: 5 * time.Second, Now: cfg.Now,
		MaxLifetime: cfg.MaxTokenTTL})
	if err != nil {
		return nil, fmt.Errorf("relay: %w", err)
	}
	m, err := newMetrics(cfg.Metrics)
	if err != nil {
		return nil, fmt.Errorf("relay: register metrics: %w", err)
	}
	rl := &Relay{
		cfg:      cfg,
		log:      cfg.Logger,
		verifier: v,
		metrics:  m,
		limiter:  newDialLimiter(cfg.DialsPerSecond, cfg.Now),
		reads:    newDialLimiter(cfg.DialsPerSecond*historyReadsPerDial, cfg.Now),
		rooms:    make(map[roomKey]*room),
		jtis:     make(map[string]*jtiRecord),
		pending:  make(map[*timer]struct{}),
		corkBufs: newCorkPool(),
	}
	rl.ctx, rl.cancel = context.WithCancel(context.Background())
	if rl.rec, err = newRecorders(rl, cfg.Record); err != nil {
		rl.cancel()
		return nil, err
	}
	if cfg.NATS != nil {
		if rl.cluster, err = newCluster(rl); err != nil {
			rl.cancel()
			return nil, err
		}
	}
	rl.mux = http.NewServeMux()
	rl.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { io200(w, "ok") })
	rl.mux.HandleFunc("GET /readyz", rl.readyz)
	rl.mux.Handle("GET /metrics", promhttp.HandlerFor(cfg.Metrics, promhttp.HandlerOpts{}))
	rl.mux.HandleFunc("/v1/rooms/", rl.serveAttach)
	rl.routeViewer()
	rl.routeHistory()
	rl.routeRecord()
	if err := rl.routeLane(); err != nil {
		return nil, err
	}
	if err := rl.startIssuer(); err != nil {
		rl.Close()
		return nil, err
	}
	return rl, nil
}

func io200(w http.ResponseWriter, s string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte(s + "\n"))
}

// ServeHTTP routes a request.
func (rl *Relay) ServeHTTP(w http.ResponseWriter, r *http.Request) { rl.mux.ServeHTTP(w, r) }

func (rl *Relay) readyz(w http.ResponseWriter, _ *http.Request) {
	rl.mu.Lock()
	ready := !rl.draining.Load() && !rl.closed
	rl.mu.Unlock()
	if !ready {
		http.Error(w, "draining", http.StatusServiceUnavailable)
		return
	}
	io200(w, "ready")
}

// restartAfter is the redial hint, at least a second (attachwire rounds
// it up to whole seconds).
func (rl *Relay) restartAfter() time.Duration {
	return max(rl.cfg.RestartAfter, time.Second)
}

// Shutdown performs a planned restart: new dials get 503 with Retry-After;
// every host leg gets error relay-restarting ("redial after Ns") and close
// 1012; every viewer gets room_state host-reconnecting and close 1012.
// It waits for every leg to end, or for ctx, whose error it then returns.
// The Relay stays usable for /healthz; call Close to release the rest.
func (rl *Relay) Shutdown(ctx context.Context) error {
	rl.mu.Lock()
	rl.draining.Store(true)
	rooms := make([]*room, 0, len(rl.rooms))
	for _, rm := range rl.rooms {
		rooms = append(rooms, rm)
	}
	rl.mu.Unlock()
	after := rl.restartAfter()
	for _, rm := range rooms {
		rm.announceRestart(after)
	}
	done := make(chan struct{})
	go func() {
		rl.legs.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		// The waiter goroutine ends when Close tears the legs down.
		return ctx.Err()
	}
}

// Close tears every leg down at once (no announcement), stops the rooms'
// timers and waits for all of it. It is idempotent.
func (rl *Relay) Close() error {
	rl.mu.Lock()
	rl.closed = true
	rl.draining.Store(true)
	rooms := make([]*room, 0, len(rl.rooms))
	for _, rm := range rl.rooms {
		rooms = append(rooms, rm)
	}
	rl.mu.Unlock()
	rl.cancel()
	rl.stopIssuer()
	if rl.cluster != nil {
		rl.cluster.close()
	}
	for _, rm := range rooms {
		rm.close(1001, "relay closing")
	}
	rl.legs.Wait()
	rl.keepers.loop.Wait()
	rl.histories.Wait()
	if rl.cluster != nil {
		rl.cluster.wait()
	}
	rl.stopTimers()
	rl.timers.Wait()
	rl.rec.close()
	return nil
}

// afterFunc runs f after d unless stopped. Close stops every pending timer
// and waits for a running f; after Close nothing is scheduled.
func (rl *Relay) afterFunc(d time.Duration, f func()) *timer {
	rl.timersMu.Lock()
	defer rl.timersMu.Unlock()
	if rl.ctx.Err() != nil {
		return nil
	}
	t := &timer{rl: rl}
	rl.timers.Add(1)
	rl.pending[t] = struct{}{}
	t.t = time.AfterFunc(d, func() {
		defer rl.timers.Done()
		rl.timersMu.Lock()
		delete(rl.pending, t)
		rl.timersMu.Unlock()
		if rl.ctx.Err() == nil {
			f()
		}
	})
	return t
}

// stopTimers stops every pending timer (Close, after cancelling rl.ctx).
func (rl *Relay) stopTimers() {
	rl.timersMu.Lock()
	pending := make([]*timer, 0, len(rl.pending))
	for t := range rl.pending {
		pending = append(pending, t)
	}
	rl.timersMu.Unlock()
	for _, t := range pending {
		t.stop()
	}
}

// roomFor returns the room for key, creating it if the relay has room for
// one more. It returns nil at MaxRooms.
func (rl *Relay) roomFor(key roomKey) *room {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if rm := rl.rooms[key]; rm != nil {
		return rm
	}
	if len(rl.rooms) >= rl.cfg.MaxRooms || rl.closed {
		return nil
	}
	rm := newRoom(rl, key)
	rl.rooms[key] = rm
	rl.metrics.rooms.Set(float64(len(rl.rooms)))
	return rm
}

// forget drops a closed room.
func (rl *Relay) forget(rm *room) {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if rl.rooms[rm.key] == rm {
		delete(rl.rooms, rm.key)
		rl.metrics.rooms.Set(float64(len(rl.rooms)))
	}
}

// roomPath splits "/v1/rooms/<id>" and reports whether the path is the
// attach endpoint of a room. Sub-paths (the degraded lane) are not.
func roomPath(p string) (string, bool) {
	id, ok := strings.CutPrefix(p, "/v1/rooms/")
	if !ok || id == "" || strings.Contains(id, "/") {
		return "", false
	}
	return id, true
}
