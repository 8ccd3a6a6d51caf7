package relay

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/ptyhost/ptyhost/attachwire"
)

// The cluster's names in NATS (docs/relay.md, "Cluster").
const (
	clusterBucket = "ptyhost_relay_rooms"
	subjectPrefix = "ptyhost.relay."
)

// clusterTimeout bounds every request one node makes of NATS or of another
// node: a KV read or write, a liveness question, a join, a fetch. Past it the
// other side counts as unavailable.
const clusterTimeout = 2 * time.Second

// ErrClusterUnavailable reports that the relay could not reach NATS (or its
// key-value bucket) to register a room: the host is refused (rate-limited,
// retryable) so that it dials another node; rooms already held keep running.
var ErrClusterUnavailable = errors.New("relay: cluster unavailable")

var nodeNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// ownerRecord is a room's ownership entry in the bucket, changed only by
// compare-and-swap on the entry's revision.
type ownerRecord struct {
	Epoch uint64 `json:"epoch"`
	Node  string `json:"node"`
	rev   uint64 // the entry's revision (not stored: the bucket's own)
}

// cluster is one relay node's part in a cluster: the ownership bucket, its
// watcher, the node's own subjects, and the legs it stands in for or has
// registered elsewhere. Safe for concurrent use.
type cluster struct {
	rl         *Relay
	nc         *nats.Conn
	node       string
	kv         jetstream.KeyValue
	maxPayload int

	watch    jetstream.KeyWatcher
	unwatch  context.CancelFunc // ends the watch (and nats.go's goroutine waiting on it)
	stop     chan struct{}      // closed by close: the watcher returns
	done     chan struct{}      // closed when the watcher has returned
	nodeSubs []*nats.Subscription

	nextID atomic.Uint64
	// drains counts the goroutines carrying out rooms' outboxes; Close
	// sets drained (under drainsMu, a leaf lock) and joins them, and no
	// outbox starts one after that.
	drains   sync.WaitGroup
	drainsMu sync.Mutex
	drained  bool
	// stall, set only by tests (export_test.go), holds every publish of
	// the rooms' traffic until the channel is closed: a NATS connection
	// whose writes block.
	stall atomic.Pointer[chan struct{}]

	mu sync.Mutex // a leaf lock: taken under room.mu
	// remotes are the members standing in, on this node, for legs of other
	// nodes in rooms this node owns: "<node>/<leg id>" → member.
	remotes map[string]*leg
	// locals are this node's legs registered with another node's room.
	locals map[string]*leg
	// beats holds when each node was last heard beating.
	beats map[string]time.Time
	// reconnects is the connection's reconnect count when the watcher
	// last looked (only the watcher's goroutine reads or writes it).
	reconnects uint64

	published prometheus.Counter // output messages (or parts) an owner published
	applied   prometheus.Counter // output messages (or parts) a mirror received
	gaps      prometheus.Counter // gaps a mirror saw on an output subject
	takeovers prometheus.Counter // entries this node took from another node
}

// beatEvery is how often a node says it is alive; a node unheard for
// ownerSilence is taken for dead by the mirrors of its rooms, which tell
// their viewers host-reconnecting until a node takes the room over.
const (
	beatEvery    = 500 * time.Millisecond
	ownerSilence = 2 * time.Second
)

// newCluster joins rl to the cluster its config names.
func newCluster(rl *Relay) (*cluster, error) {
	node := rl.cfg.Node
	if node == "" {
		var b [6]byte
		rand.Read(b[:])
		node = "n" + hex.EncodeToString(b[:])
	}
	if !nodeNameRE.MatchString(node) {
		return nil, fmt.Errorf("relay: node name %q: want 1 to 64 of A-Z a-z 0-9 _ -", node)
	}
	c := &cluster{rl: rl, nc: rl.cfg.NATS, node: node, stop: make(chan struct{}), done: make(chan struct{}),
		remotes: make(map[string]*leg), locals: make(map[string]*leg), beats: make(map[string]time.Time)}
	c.maxPayload = int(max(c.nc.MaxPayload(), 4096))
	c.reconnects = c.nc.Stats().Reconnects
	counter := func(name, help string) prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{Name: "ptyhost_relay_cluster_" + name, Help: help})
	}
	c.published = counter("published_total", "Output messages (or parts of one) this node published as a room's owner.")
	c.applied = counter("received_total", "Output messages (or parts of one) this node received as a room's mirror.")
	c.gaps = counter("gaps_total", "Gaps this node saw on a room's output subject (cut and resynced).")
	c.takeovers = counter("takeovers_total", "Rooms this node took over from another node.")
	for _, m := range []prometheus.Collector{c.published, c.applied, c.gaps, c.takeovers} {
		if err := rl.cfg.Metrics.Register(m); err != nil {
			return nil, fmt.Errorf("relay: register metrics: %w", err)
		}
	}
	js, err := jetstream.New(c.nc)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrClusterUnavailable, err)
	}
	c.kv, err = openBucket(js, rl.cfg.NATSReplicas)
	if err != nil {
		return nil, fmt.Errorf("%w: key-value bucket: %w", ErrClusterUnavailable, err)
	}
	wctx, unwatch := context.WithCancel(context.Background())
	c.unwatch = unwatch
	c.watch, err = c.kv.WatchAll(wctx, jetstream.UpdatesOnly())
	if err != nil {
		unwatch()
		return nil, fmt.Errorf("%w: watch: %w", ErrClusterUnavailable, err)
	}
	for sub, h := range map[string]nats.MsgHandler{
		nodeSubject(node, "host"): c.answerHost,
		nodeSubject(node, "legs"): c.deliver,
		subjectPrefix + "beat":    c.heard,
	} {
		s, err := c.nc.Subscribe(sub, h)
		if err != nil {
			close(c.done) // no watcher was started
			c.close()
			return nil, fmt.Errorf("%w: subscribe: %w", ErrClusterUnavailable, err)
		}
		c.nodeSubs = append(c.nodeSubs, s)
	}
	go c.watchOwners()
	return c, nil
}

// close stops the watcher and the node's subscriptions; wait joins the
// watcher. The NATS connection is the caller's.
func (c *cluster) close() {
	select {
	case <-c.stop:
		return
	default:
	}
	close(c.stop)
	c.watch.Stop()
	c.unwatch()
	for _, s := range c.nodeSubs {
		s.Unsubscribe()
	}
}

// wait joins the watcher, then the outboxes' goroutines: whatever the
// rooms queued before they closed is carried out; what a late NATS
// callback queues after that is dropped.
func (c *cluster) wait() {
	<-c.done
	c.drainsMu.Lock()
	c.drained = true
	c.drainsMu.Unlock()
	c.drains.Wait()
}

func nodeSubject(node, what string) string { return subjectPrefix + "node." + node + "." + what }

func roomSubject(name, what string) string { return subjectPrefix + "room." + name + "." + what }

// roomName is a room's name in NATS subjects and bucket keys: fixed length,
// never a wildcard or separator, distinct per (orgId, sessionId).
func roomName(k roomKey) string {
	h := sha256.Sum256([]byte(k.org + "\x00" + k.session))
	return "k" + hex.EncodeToString(h[:16])
}

// claim registers this node as the owner of the room for a host of epoch e,
// by compare-and-swap (the table in docs/relay.md): absent → create; e
// below the entry's epoch → stale; above → update; equal on this node → the
// local CAS decides; equal on another node → taken over only if that node
// says its host is not bound, or does not answer.
func (c *cluster) claim(key roomKey, e uint64) error {
	ctx, cancel := context.WithTimeout(c.rl.ctx, clusterTimeout)
	defer cancel()
	name := roomName(key)
	val, _ := json.Marshal(ownerRecord{Epoch: e, Node: c.node})
	for range 8 {
		ent, err := c.kv.Get(ctx, name)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			if _, err = c.kv.Create(ctx, name, val); err == nil {
				return nil
			}
			if errors.Is(err, jetstream.ErrKeyExists) {
				continue
			}
		}
		if err != nil {
			return fmt.Errorf("%w: %w", ErrClusterUnavailable, err)
		}
		var o ownerRecord
		if json.Unmarshal(ent.Value(), &o) != nil {
			o = ownerRecord{}
		}
		switch {
		case e < o.Epoch:
			return &errEpochStale{epoch: e, current: o.Epoch}
		case e == o.Epoch && o.Node == c.node:
			return nil
		case e == o.Epoch && c.hostBound(ctx, o.Node, name):
			return &errEpochStale{epoch: e, current: o.Epoch, bound: true}
		}
		if _, err = c.kv.Update(ctx, name, val, ent.Revision()); err == nil {
			if o.Node != c.node {
				c.takeovers.Inc()
			}
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%w: %w", ErrClusterUnavailable, err)
		}
		// Another node wrote first: read again.
	}
	return fmt.Errorf("%w: ownership of the room kept changing", ErrClusterUnavailable)
}

// owner returns the room's entry (a zero record if none).
func (c *cluster) owner(key roomKey) (ownerRecord, error) {
	ctx, cancel := context.WithTimeout(c.rl.ctx, clusterTimeout)
	defer cancel()
	ent, err := c.kv.Get(ctx, roomName(key))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return ownerRecord{}, nil
	}
	if err != nil {
		return ownerRecord{}, fmt.Errorf("%w: %w", ErrClusterUnavailable, err)
	}
	var o ownerRecord
	if err := json.Unmarshal(ent.Value(), &o); err != nil {
		return ownerRecord{}, nil
	}
	o.rev = ent.Revision()
	return o, nil
}

// forgetRoom deletes the room's entry when it closes for good here (ended,
// host gone): a later host starts a fresh room anywhere.
func (c *cluster) forgetRoom(name string) {
	ctx, cancel := context.WithTimeout(context.Background(), clusterTimeout)
	defer cancel()
	ent, err := c.kv.Get(ctx, name)
	if err != nil {
		return
	}
	var o ownerRecord
	if json.Unmarshal(ent.Value(), &o) == nil && o.Node == c.node {
		c.kv.Delete(ctx, name, jetstream.LastRevision(ent.Revision()))
	}
}

// hostBound asks node whether its host leg for the room is bound. A node
// that does not answer (no responder: it is gone; or too slow) counts as
// not bound, so its host may be taken over.
func (c *cluster) hostBound(ctx context.Context, node, name string) bool {
	m, err := c.nc.RequestWithContext(ctx, nodeSubject(node, "host"), []byte(name))
	return err == nil && string(m.Data) == "bound"
}

// answerHost tells another node whether this node's host leg of a room is
// bound.
func (c *cluster) answerHost(m *nats.Msg) {
	ans := "vacant"
	if rm := c.rl.roomNamed(string(m.Data)); rm != nil {
		rm.mu.Lock()
		if rm.host != nil && rm.cl != nil && rm.cl.owner {
			ans = "bound"
		}
		rm.mu.Unlock()
	}
	m.Respond([]byte(ans))
}

// watchOwners follows the bucket: a room this node has (owned, or mirrored)
// whose entry now names another node follows that node. It returns when the
// cluster closes or the watch ends.
func (c *cluster) watchOwners() {
	defer close(c.done)
	beat := time.NewTicker(beatEvery)
	defer beat.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-beat.C:
			c.nc.Publish(subjectPrefix+"beat", []byte(c.node))
			c.checkOwners()
			if n := c.nc.Stats().Reconnects; n != c.reconnects {
				c.reconnects = n
				c.refetchMirrors()
			}
		case ent, ok := <-c.watch.Updates():
			if !ok {
				return
			}
			if ent == nil || ent.Operation() != jetstream.KeyValuePut {
				continue
			}
			var o ownerRecord
			if json.Unmarshal(ent.Value(), &o) != nil || o.Node == c.node {
				continue
			}
			o.rev = ent.Revision()
			if rm := c.rl.roomNamed(ent.Key()); rm != nil {
				c.follow(rm, o)
			}
		}
	}
}

// legID returns a new id for a leg of this node.
func (c *cluster) legID() string { return fmt.Sprintf("l%d", c.nextID.Add(1)) }

// roomNamed returns the room whose NATS name is name, or nil.
func (rl *Relay) roomNamed(name string) *room {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	for k, rm := range rl.rooms {
		if roomName(k) == name {
			return rm
		}
	}
	return nil
}

// refetchMirrors fills every mirror's ring from its owner again after the
// connection to NATS came back: what the owner published while this node
// was away never arrived, and a mirror notices a gap only at the next
// frame, which may never come (the stream's tail, its Exit).
func (c *cluster) refetchMirrors() {
	c.rl.mu.Lock()
	rooms := make([]*room, 0, len(c.rl.rooms))
	for _, rm := range c.rl.rooms {
		rooms = append(rooms, rm)
	}
	c.rl.mu.Unlock()
	n := 0
	for _, rm := range rooms {
		rm.mu.Lock()
		mirror := rm.cl != nil && !rm.cl.owner && rm.cl.ownerNode != "" && !rm.closed
		rm.mu.Unlock()
		if mirror {
			n++
			c.spawn(func() { c.fetch(rm) })
		}
	}
	c.rl.log.Info("relay: NATS connection came back; mirrors fetch what they missed", "mirrors", n)
}

// spawn runs f on a goroutine wait joins, unless the cluster has closed.
func (c *cluster) spawn(f func()) {
	c.drainsMu.Lock()
	defer c.drainsMu.Unlock()
	if c.drained {
		return
	}
	c.drains.Add(1)
	go func() {
		defer c.drains.Done()
		f()
	}()
}

// heard records another node's beat.
func (c *cluster) heard(m *nats.Msg) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.beats[string(m.Data)] = c.rl.cfg.Now()
}

// checkOwners tells the viewers of every mirror whose owner has gone
// silent that the host is away (host-reconnecting), once; the node that
// takes the room over sends live and a snapshot.
func (c *cluster) checkOwners() {
	c.rl.mu.Lock()
	rooms := make([]*room, 0, len(c.rl.rooms))
	for _, rm := range c.rl.rooms {
		rooms = append(rooms, rm)
	}
	c.rl.mu.Unlock()
	now := c.rl.cfg.Now()
	for _, rm := range rooms {
		rm.mu.Lock()
		cl := rm.cl
		if cl != nil && cl.ownerNode != "" && !cl.owner && !cl.ownerLost {
			c.mu.Lock()
			last, ok := c.beats[cl.ownerNode]
			c.mu.Unlock()
			if !ok || last.Before(cl.since) {
				last = cl.since
			}
			if now.Sub(last) > ownerSilence {
				cl.ownerLost = true
				rm.ring.setHostLost(now)
				rm.broadcastLocked(attachwire.RoomState{State: attachwire.RoomHostReconnecting})
			}
		}
		rm.mu.Unlock()
	}
}
