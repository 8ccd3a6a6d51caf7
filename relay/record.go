package relay

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/ptyhost/ptyhost/internal/castchain"
	"github.com/ptyhost/ptyhost/token"
)

// RecordConfig turns on relay-side recording (docs/relay.md,
// "Recording"): each recorded room's stream is written as a signed
// asciicast v3 file under Dir, one file per room life and epoch.
type RecordConfig struct {
	// Dir is where recordings are written; it must exist. Empty: the relay
	// records nothing.
	Dir string
	// All records every room. False: only a room whose host's subscribe
	// carries "record": true.
	All bool
	// MaxAge and MaxBytes bound what Dir keeps: files older than MaxAge,
	// then the oldest files while the total is over MaxBytes, are removed
	// (a file still being written never is), at start, every
	// RetentionEvery and after each recording closes. Zero: no bound.
	MaxAge   time.Duration
	MaxBytes int64
	// RetentionEvery is the period of the retention sweep. Zero: 1 min.
	RetentionEvery time.Duration
	// Key signs each recording's hash chain. Nil: the chain is unsigned,
	// which shows accidents but proves nothing against whoever can write
	// Dir.
	Key ed25519.PrivateKey
	// QueueEvents and QueueBytes bound a room's events waiting for its
	// recording's writer; past either the recording stops and is marked
	// failed, and the room goes on. Zero: 4096 events, 8 MiB.
	QueueEvents int
	QueueBytes  int64
	// CheckpointEvery is the longest a recorded line waits for a signed
	// checkpoint while the room is quiet. Zero: 10 s.
	CheckpointEvery time.Duration
	// FinishWait bounds how long a recording's writer may take to write
	// what was queued once the recording ends; past it the file is closed
	// under it (a disk that stalls) and the recording marked failed.
	// Zero: 10 s.
	FinishWait time.Duration
}

// recordSuffix ends every file the relay records; retention considers no
// other file in Dir.
const recordSuffix = ".cast"

func (c RecordConfig) withDefaults() RecordConfig {
	if c.QueueEvents <= 0 {
		c.QueueEvents = 4096
	}
	if c.QueueBytes <= 0 {
		c.QueueBytes = 8 << 20
	}
	if c.CheckpointEvery <= 0 {
		c.CheckpointEvery = 10 * time.Second
	}
	if c.FinishWait <= 0 {
		c.FinishWait = 10 * time.Second
	}
	if c.RetentionEvery <= 0 {
		c.RetentionEvery = time.Minute
	}
	return c
}

// recorders is the relay's recording side: the files being written, the
// retention sweeps, and the writers' goroutines, which Close joins.
type recorders struct {
	rl   *Relay
	cfg  RecordConfig
	open func(path string) (io.WriteCloser, error)

	started, failed, removed prometheus.Counter
	active                   prometheus.Gauge

	wg   sync.WaitGroup // one per writer, plus the sweeper
	stop chan struct{}

	mu      sync.Mutex
	writing map[string]struct{} // paths being written: never removed
	closed  bool
}

// newRecorders sets up recording for rl, or returns nil when Dir is empty.
// It checks Dir and sweeps it once before the relay takes rooms.
func newRecorders(rl *Relay, cfg RecordConfig) (*recorders, error) {
	if cfg.Dir == "" {
		return nil, nil
	}
	if fi, err := os.Stat(cfg.Dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("relay: record dir %q: not a directory (%v)", cfg.Dir, err)
	}
	if cfg.Key != nil && len(cfg.Key) != ed25519.PrivateKeySize {
		return nil, errors.New("relay: record key is not an Ed25519 private key")
	}
	cfg = cfg.withDefaults()
	if cfg.Key != nil {
		rl.log.Info("relay: recordings are signed", "key", castchain.Fingerprint(cfg.Key.Public().(ed25519.PublicKey)))
	}
	rs := &recorders{
		rl:  rl,
		cfg: cfg,
		open: func(path string) (io.WriteCloser, error) {
			return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		},
		started: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "ptyhost_relay_recordings_started_total", Help: "Room recordings started."}),
		failed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "ptyhost_relay_recordings_failed_total", Help: "Room recordings stopped early: queue overflow or a write error."}),
		removed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "ptyhost_relay_recordings_removed_total", Help: "Recording files removed by retention."}),
		active: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "ptyhost_relay_recordings_active", Help: "Room recordings being written."}),
		stop:    make(chan struct{}),
		writing: make(map[string]struct{}),
	}
	for _, c := range []prometheus.Collector{rs.started, rs.failed, rs.removed, rs.active} {
		if err := rl.cfg.Metrics.Register(c); err != nil {
			return nil, fmt.Errorf("relay: register metrics: %w", err)
		}
	}
	rs.sweep()
	rs.wg.Add(1)
	go rs.sweeper()
	return rs, nil
}

// sweeper runs the periodic retention sweep until close.
func (rs *recorders) sweeper() {
	defer rs.wg.Done()
	t := time.NewTicker(rs.cfg.RetentionEvery)
	defer t.Stop()
	for {
		select {
		case <-rs.stop:
			return
		case <-t.C:
			rs.sweep()
		}
	}
}

// close stops the sweeper and waits for every writer. Rooms have been
// closed first, so every recording is finishing; each is bounded by
// FinishWait.
func (rs *recorders) close() {
	if rs == nil {
		return
	}
	rs.mu.Lock()
	if !rs.closed {
		rs.closed = true
		close(rs.stop)
	}
	rs.mu.Unlock()
	rs.wg.Wait()
}

// begin registers a new file; it reports false once the relay is closing.
func (rs *recorders) begin(path string) bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.closed {
		return false
	}
	rs.writing[path] = struct{}{}
	rs.wg.Add(1)
	rs.started.Inc()
	rs.active.Inc()
	return true
}

// end unregisters a file whose writer is done and sweeps: a closed file
// may put the directory over its bounds.
func (rs *recorders) end(path string) {
	rs.mu.Lock()
	delete(rs.writing, path)
	rs.mu.Unlock()
	rs.active.Dec()
	rs.sweep()
}

type recordFile struct {
	path string
	size int64
	mod  time.Time
}

// sweep applies MaxAge and MaxBytes to Dir's recordings, oldest first.
func (rs *recorders) sweep() {
	if rs.cfg.MaxAge <= 0 && rs.cfg.MaxBytes <= 0 {
		return
	}
	ents, err := os.ReadDir(rs.cfg.Dir)
	if err != nil {
		rs.rl.log.Warn("relay: recording retention: read dir", "err", err)
		return
	}
	var files []recordFile
	var total int64
	for _, e := range ents {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), recordSuffix) && !strings.HasSuffix(e.Name(), sealedRecordSuffix) {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		files = append(files, recordFile{path: filepath.Join(rs.cfg.Dir, e.Name()), size: fi.Size(), mod: fi.ModTime()})
		total += fi.Size()
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod.Before(files[j].mod) })
	now := time.Now()
	for _, f := range files {
		old := rs.cfg.MaxAge > 0 && now.Sub(f.mod) > rs.cfg.MaxAge
		big := rs.cfg.MaxBytes > 0 && total > rs.cfg.MaxBytes
		if !old && !big {
			continue
		}
		rs.mu.Lock()
		_, busy := rs.writing[f.path]
		rs.mu.Unlock()
		if busy {
			continue
		}
		if err := os.Remove(f.path); err != nil {
			rs.rl.log.Warn("relay: recording retention: remove", "path", f.path, "err", err)
			continue
		}
		total -= f.size
		rs.removed.Inc()
	}
}

// recordFileName names a room's recording: org, room and epoch, escaped
// for any filesystem, and the start time, so names sort by room and never
// collide for one room.
func recordFileName(key roomKey, epoch uint64, start time.Time) string {
	return fmt.Sprintf("%s_%s_e%d_%s%s", fileSafe(key.org), fileSafe(key.session), epoch,
		start.UTC().Format("20060102T150405.000000000Z"), recordSuffix)
}

// fileSafe escapes s to letters, digits, '-' and '%XX', at most 96 bytes
// (a longer id is cut and ends in a hash of the whole, so it stays
// unique); empty becomes "-".
func fileSafe(s string) string {
	const max = 96
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	out := b.String()
	if out == "" {
		return "-"
	}
	if len(out) > max {
		out = fmt.Sprintf("%s~%08x", out[:max-9], fnv32(s))
	}
	return out
}

func fnv32(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

// RecordingKeyPath serves the public half of RecordConfig.Key (PKIX PEM),
// for `ptyhost verify --key`; 404 when recordings are not signed.
const RecordingKeyPath = "/v1/recording-key"

// routeRecord serves RecordingKeyPath.
func (rl *Relay) routeRecord() {
	rl.mux.HandleFunc("GET "+RecordingKeyPath, func(w http.ResponseWriter, _ *http.Request) {
		if rl.rec == nil || rl.rec.cfg.Key == nil {
			http.NotFound(w, nil)
			return
		}
		b, err := token.MarshalPublicKeyPEM(rl.rec.cfg.Key.Public().(ed25519.PublicKey))
		if err != nil {
			http.Error(w, "no key", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/x-pem-file")
		w.Write(b)
	})
}
