package relay_test

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/nats-io/nats.go"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relay/natsembed"
	"github.com/ptyhost/ptyhost/relaytest"
)

// natsServer starts an embedded NATS server with JetStream on a loopback
// ephemeral port, stored in a temporary directory, and stops it when the
// test ends.
func natsServer(t testing.TB) *natsembed.Server {
	t.Helper()
	return natsServerWith(t, natsembed.Options{})
}

// natsServerWith is natsServer with opts (their StoreDir replaced).
func natsServerWith(t testing.TB, opts natsembed.Options) *natsembed.Server {
	t.Helper()
	opts.StoreDir = t.TempDir()
	ns, err := natsembed.Start("127.0.0.1:0", opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Close() })
	return ns
}

// node is one relay of a test cluster with its own NATS connection.
type node struct {
	*relaytest.Server
	nc *nats.Conn
}

// kill stops the node as a crash would: its NATS connection goes first,
// so it tells the cluster nothing, then the relay.
func (n *node) kill() {
	n.nc.Close()
	n.Close()
}

// cluster starts len(names) relay nodes joined through ns. Every node
// accepts the first node's key, so the first node's token helpers mint
// tokens for all of them.
func startCluster(t testing.TB, ns *natsembed.Server, names ...string) []*node {
	t.Helper()
	cfg := quiet()
	cfg.SnapshotRetry = 200 * time.Millisecond
	return startClusterWith(t, ns, cfg, names...)
}

// startClusterWith is startCluster with every node configured by cfg.
func startClusterWith(t testing.TB, ns *natsembed.Server, base relay.Config, names ...string) []*node {
	t.Helper()
	servers := make([]*natsembed.Server, len(names))
	for i := range servers {
		servers[i] = ns
	}
	return startClusterOn(t, servers, base, names...)
}

// startClusterOn starts a node for each name, the i-th connected to
// servers[i]. Where the servers differ (a NATS cluster), a node fails over
// to the others when its own is lost, as the CLI's connection does.
func startClusterOn(t testing.TB, servers []*natsembed.Server, base relay.Config, names ...string) []*node {
	t.Helper()
	urls := make([][]string, len(names))
	for i := range names {
		urls[i] = []string{servers[i].ClientURL()}
		for _, o := range servers {
			if o != servers[i] && !slices.Contains(urls[i], o.ClientURL()) {
				urls[i] = append(urls[i], o.ClientURL())
			}
		}
	}
	return startClusterVia(t, urls, false, base, names...)
}

// startClusterVia starts a node for each name, the i-th connected to NATS
// at urls[i] (tried in order). A node with one URL gives up when it loses
// it, unless retry is set: then every node redials for ever.
func startClusterVia(t testing.TB, urls [][]string, retry bool, base relay.Config, names ...string) []*node {
	t.Helper()
	var nodes []*node
	var key ed25519.PublicKey
	for i, name := range names {
		reconnects := nats.MaxReconnects(0)
		if retry || len(urls[i]) > 1 {
			reconnects = nats.MaxReconnects(-1)
		}
		nc, err := nats.Connect(strings.Join(urls[i], ","), reconnects, nats.DontRandomize(), nats.ReconnectWait(100*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		cfg := base
		cfg.NATS, cfg.Node = nc, name
		if key != nil {
			cfg.PublicKeys = []ed25519.PublicKey{key}
		}
		s := relaytest.NewServer(t, cfg)
		if key == nil {
			key = s.Key.Public().(ed25519.PublicKey)
		}
		nodes = append(nodes, &node{Server: s, nc: nc})
	}
	return nodes
}

// hostOn binds a host leg of epoch on node n with a token from minter.
//
// A node that cannot settle the room's owner in time (after an owner's
// death, its liveness question can time out on a loaded machine) refuses
// the host as rate-limited and retryable (1013); hostOn then dials again,
// as a host does (attachclient), until relaytest.Timeout.
func hostOn(t testing.TB, minter, n *relaytest.Server, epoch uint64) *host {
	t.Helper()
	return hostOnRoom(t, minter, n, room, epoch)
}

// hostOnRoom is hostOn for the room named id.
func hostOnRoom(t testing.TB, minter, n *relaytest.Server, id string, epoch uint64) *host {
	t.Helper()
	deadline := time.Now().Add(relaytest.Timeout)
	for {
		c := relaytest.MustDial(t, n.RoomURL(id), minter.HostToken(t, id, epoch),
			attachwire.Subscribe{SessionID: id, AsRole: attachwire.RoleHost, Epoch: u64(epoch)})
		ctx, cancel := context.WithTimeout(context.Background(), relaytest.Timeout)
		r, err := relaytest.NextControl[attachwire.SnapshotRequest](ctx, c)
		cancel()
		var ce websocket.CloseError
		if errors.As(err, &ce) && ce.Code == websocket.StatusTryAgainLater && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if err != nil {
			t.Fatalf("host leg on %s: waiting for snapshot_request: %v", n.URL, err)
		}
		if r.Reason != attachwire.SnapshotResync {
			t.Fatalf("first snapshot_request reason %q, want resync", r.Reason)
		}
		return &host{t: t, c: c, epoch: epoch}
	}
}

// untilFrame skips frames until one of type typ arrives.
func untilFrame(t testing.TB, c *relaytest.Conn, typ attachwire.FrameType) attachwire.Frame {
	t.Helper()
	for {
		if f := relaytest.NextFrame(t, c); f.Type == typ {
			return f
		}
	}
}

// TestClusterAcrossNodes: host on A, a viewer on B, a driver on C. Output,
// the snapshot a joiner needs, presence, the pen, Input, Resize, Exit and
// the post-Exit snapshot all cross nodes.
func TestClusterAcrossNodes(t *testing.T) {
	ns := natsServer(t)
	nodes := startCluster(t, ns, "a", "b", "c")
	a, b, c := nodes[0], nodes[1], nodes[2]
	h := hostOn(t, a.Server, a.Server, 1)
	h.output("one")

	v := relaytest.MustDial(t, b.RoomURL(room), a.ViewerToken(t, room, "vic"),
		attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer})
	if rs := relaytest.ExpectControl[attachwire.RoomState](t, v); rs.State != attachwire.RoomLive {
		t.Fatalf("viewer on B: room_state %q, want live (decided on A)", rs.State)
	}
	// B asks A for a snapshot; A asks its host.
	if r := relaytest.ExpectControl[attachwire.SnapshotRequest](t, h.c); r.Reason == "" {
		t.Fatal("empty snapshot reason")
	}
	snapSeq := h.snapshot("hi")
	f := relaytest.NextFrame(t, v)
	if _, scr := snapshotOf(t, f); f.Seq != snapSeq || text(scr) != "hi" {
		t.Fatalf("viewer on B got %s seq %d, want the snapshot at %d", f.Type, f.Seq, snapSeq)
	}
	seq := h.output("two")
	if f := relaytest.NextFrame(t, v); f.Type != attachwire.TypeOutput || f.Seq != seq || string(f.Payload) != "two" {
		t.Fatalf("viewer on B got %s seq %d %q, want Output %d two", f.Type, f.Seq, f.Payload, seq)
	}
	if p, r := metric(t, a.Server, "ptyhost_relay_cluster_published_total"), metric(t, b.Server, "ptyhost_relay_cluster_received_total"); p < 3 || r < 2 {
		t.Errorf("published on A %v, received on B %v: want the frames counted", p, r)
	}

	d := relaytest.MustDial(t, c.RoomURL(room), a.DriverToken(t, room, "dan"),
		attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleDriver,
			Viewport: &attachwire.Viewport{Cols: 100, Rows: 30}})
	g := relaytest.ExpectControl[attachwire.PenGranted](t, d)
	if g.UserID != "dan" {
		t.Fatalf("pen granted to %q, want dan", g.UserID)
	}
	// The pen is granted at once, the join comes with the room's next
	// presence update (the viewer's own first list may come before it,
	// or hold dan already): in any order.
	var joined, granted bool
	for !joined || !granted {
		switch c := nextControl(t, v).(type) {
		case attachwire.Presence:
			for _, m := range c.Members {
				joined = joined || c.Op != attachwire.PresenceLeave && m.UserID == "dan"
			}
			if !joined && c.Op != attachwire.PresenceList {
				t.Fatalf("viewer on B: presence %+v, want dan's join", c)
			}
		case attachwire.PenGranted:
			if granted = c.UserID == "dan" && c.PenGeneration == g.PenGeneration; !granted {
				t.Fatalf("viewer on B: pen_granted %+v, want dan's", c)
			}
		}
	}
	if rs := untilFrame(t, h.c, attachwire.TypeResize); true {
		r, err := attachwire.DecodeResize(rs.Payload)
		if err != nil || r.Cols != 100 || r.Rows != 30 {
			t.Fatalf("host got resize %+v %v, want the driver's 100x30", r, err)
		}
	}

	in := attachwire.Input{InputSeq: 1, PenGeneration: g.PenGeneration, Data: []byte("ls\r")}
	if err := d.Send(ctxT(t), in.Frame(0, 0)); err != nil {
		t.Fatal(err)
	}
	if ack := relaytest.ExpectControl[attachwire.InputAck](t, d); ack.AckInputSeq != 1 {
		t.Fatalf("driver on C: ack %d, want 1", ack.AckInputSeq)
	}
	got := untilFrame(t, h.c, attachwire.TypeInput)
	gin, err := attachwire.DecodeInput(got.Payload)
	if err != nil || string(gin.Data) != "ls\r" || gin.UserID != "dan" {
		t.Fatalf("host got Input %+v %v, want dan's ls", gin, err)
	}
	rsz, _ := attachwire.Resize{Cols: 90, Rows: 20}.Frame(0, 0)
	if err := d.Send(ctxT(t), rsz); err != nil {
		t.Fatal(err)
	}
	if r, _ := attachwire.DecodeResize(untilFrame(t, h.c, attachwire.TypeResize).Payload); r.Cols != 90 || r.Rows != 20 {
		t.Fatalf("host got resize %+v, want 90x20", r)
	}

	exitSeq := h.exit(0)
	if f := untilFrame(t, v, attachwire.TypeExit); f.Seq != exitSeq {
		t.Fatalf("viewer on B: Exit seq %d, want %d", f.Seq, exitSeq)
	}
	if f := untilFrame(t, d, attachwire.TypeExit); f.Seq != exitSeq {
		t.Fatalf("driver on C: Exit seq %d, want %d", f.Seq, exitSeq)
	}
	relaytest.ExpectControl[attachwire.SnapshotRequest](t, h.c)
	sn, err := attachwire.NewSnapshot(exitSeq, screen(1, "bye"))
	if err != nil {
		t.Fatal(err)
	}
	sf, err := sn.Frame(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	h.send(sf)
	late := relaytest.MustDial(t, c.RoomURL(room), a.ViewerToken(t, room, "lee"),
		attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer})
	f = untilFrame(t, late, attachwire.TypeSnapshot)
	if sn, scr := snapshotOf(t, f); sn.AtSeq != exitSeq-1 || text(scr) != "bye" {
		t.Fatalf("late viewer on C: snapshot at %d %q, want the final screen at %d", sn.AtSeq, text(scr), exitSeq-1)
	}
	expectExit(t, late, exitSeq, 0)
}

// A room's owner whose NATS connection stops taking writes keeps serving
// the room's own legs: no room lock is held across a publish, so the host's
// next frames, the driver's Input and its ack go on while the frames for
// the other node wait, and reach it once NATS takes them again.
func TestClusterStalledNATSDoesNotStallTheRoom(t *testing.T) {
	a, h, v := ownerAndMirror(t, natsServer(t))
	d, gen := driverWithPen(t, a.Server, "alice")

	release := relay.StallClusterPublishes(a.Relay)
	t.Cleanup(release)
	h.output("one")
	last := h.output("two")
	untilSeq(t, d, attachwire.TypeOutput, last)
	input(t, d, 1, gen, "", "k")
	if in := hostInput(t, h); string(in.Data) != "k" {
		t.Fatalf("host got %q, want k", in.Data)
	}
	if a := relaytest.ExpectControl[attachwire.InputAck](t, d); a.AckInputSeq != 1 {
		t.Fatalf("driver's ack %d, want 1", a.AckInputSeq)
	}

	release()
	untilSeq(t, v, attachwire.TypeOutput, last)
}

// ownerAndMirror starts nodes a and b on ns, binds a host of epoch 1 on
// a and a viewer on b, and returns once that viewer has its first
// snapshot.
func ownerAndMirror(t *testing.T, ns *natsembed.Server) (*node, *host, *relaytest.Conn) {
	t.Helper()
	nodes := startCluster(t, ns, "a", "b")
	h, v := hostAndViewer(t, nodes[0], nodes[1])
	return nodes[0], h, v
}

// hostAndViewer binds a host of epoch 1 on hn and a viewer on vn, and
// returns once that viewer has its first snapshot.
func hostAndViewer(t *testing.T, hn, vn *node) (*host, *relaytest.Conn) {
	t.Helper()
	h := hostOn(t, hn.Server, hn.Server, 1)
	v := relaytest.MustDial(t, vn.RoomURL(room), hn.ViewerToken(t, room, "vic"),
		attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer})
	relaytest.ExpectControl[attachwire.SnapshotRequest](t, h.c)
	h.snapshot("hi")
	untilFrame(t, v, attachwire.TypeSnapshot)
	return h, v
}

// untilSeq skips frames until one of type typ at seq arrives.
func untilSeq(t testing.TB, c *relaytest.Conn, typ attachwire.FrameType, seq uint64) {
	t.Helper()
	for untilFrame(t, c, typ).Seq != seq {
	}
}

// A viewer joining an ended room on a node that never followed it (its
// ring is filled by the fetch alone, with no snapshot in the owner's ring
// to carry a tail) still gets the final screen and then the Exit frame,
// as on the owner.
func TestClusterLateJoinerOnAMirrorGetsTheExit(t *testing.T) {
	ns := natsServer(t)
	nodes := startCluster(t, ns, "a", "b")
	a, b := nodes[0], nodes[1]
	h := hostOn(t, a.Server, a.Server, 1)
	h.output("one")
	exitSeq := h.exit(7)
	relaytest.ExpectControl[attachwire.SnapshotRequest](t, h.c)
	h.finalSnapshot(exitSeq, "bye")
	testkit.Eventually(t, "the owner caches the final snapshot", func() bool {
		return finalCached(t, relaytest.MustDial(t, a.RoomURL(room), a.ViewerToken(t, room, "probe"),
			attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer}))
	})
	late := relaytest.MustDial(t, b.RoomURL(room), a.ViewerToken(t, room, "lee"),
		attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer})
	if rs := relaytest.ExpectControl[attachwire.RoomState](t, late); rs.State != attachwire.RoomEnded {
		t.Fatalf("late viewer on B: room_state %q, want ended", rs.State)
	}
	expectFinal(t, late, exitSeq, 7, "bye")
}

// stream checks a viewer's stream against what the host sent: every Output
// is the host's for its seq, and seqs are contiguous except where a
// snapshot bridges (a Snapshot at seq s shows everything up to s-1). It
// also checks the reassembly rule: within each stretch between
// snapshots, the sha256 of the Output the viewer concatenates equals that
// of the bytes the host sent for those seqs. The per-seq check already
// implies it; the hash is the form a viewer without the host's per-frame
// record (a recording, a log) can check.
type stream struct {
	t    testing.TB
	sent map[uint64]string
	// hashed counts the stretches whose sha256 matched, so a test can see
	// the check ran.
	hashed int
}

// follow reads c until the frame of seq last, checking each frame and
// each stretch between snapshots, and returns the number of snapshots it
// bridged with.
func (s *stream) follow(c *relaytest.Conn, last uint64) (snapshots int) {
	s.t.Helper()
	var prev, from uint64 // from: the first seq of the current stretch, 0 before one starts
	var got []byte
	endStretch := func() {
		s.t.Helper()
		if from == 0 {
			return
		}
		var want []byte
		for seq := from; seq <= prev; seq++ {
			want = append(want, s.sent[seq]...)
		}
		if g, w := sha256.Sum256(got), sha256.Sum256(want); g != w {
			s.t.Fatalf("seqs %d..%d: the viewer reassembled sha256 %x, the host sent %x", from, prev, g, w)
		}
		s.hashed++
		from, got = 0, got[:0]
	}
	for prev < last {
		f := relaytest.NextFrame(s.t, c)
		switch f.Type {
		case attachwire.TypeSnapshot:
			endStretch()
			snapshots++
		case attachwire.TypeOutput:
			if prev != 0 && f.Seq != prev+1 {
				s.t.Fatalf("Output seq %d after %d with no snapshot between", f.Seq, prev)
			}
			if want, ok := s.sent[f.Seq]; !ok || string(f.Payload) != want {
				s.t.Fatalf("Output seq %d is %q, the host sent %q", f.Seq, f.Payload, want)
			}
			if from == 0 {
				from = f.Seq
			}
			got = append(got, f.Payload...)
		default:
			s.t.Fatalf("unexpected %s seq %d", f.Type, f.Seq)
		}
		prev = f.Seq
	}
	endStretch()
	return snapshots
}

// burst sends n Output frames and a snapshot every 25, recording them.
func (s *stream) burst(h *host, n int) {
	for i := range n {
		if i%25 == 0 {
			h.snapshot("s")
			continue
		}
		p := "line " + string(rune('a'+i%26)) + "\r\n"
		s.sent[h.output(p)] = p
	}
}

// TestClusterOwnerDies kills the owner mid-stream: the viewers on B and
// C are told host-reconnecting once A is silent; the host re-binds on B
// with the same epoch (a takeover: A does not answer), they are told live
// and go on, one from the dead node resumes on C, every stream is whole
// with snapshots bridging; a stale host is refused after the takeover.
func TestClusterOwnerDies(t *testing.T) {
	ns := natsServer(t)
	nodes := startCluster(t, ns, "a", "b", "c")
	a, b, c := nodes[0], nodes[1], nodes[2]
	s := &stream{t: t, sent: map[uint64]string{}}
	h := hostOn(t, a.Server, a.Server, 1)
	h.snapshot("s")
	viewer := func(n *node, user string, sub attachwire.Subscribe) *relaytest.Conn {
		sub.SessionID, sub.AsRole = room, attachwire.RoleViewer
		return relaytest.MustDial(t, n.RoomURL(room), a.ViewerToken(t, room, user), sub)
	}
	vb, vc, va := viewer(b, "vb", attachwire.Subscribe{}), viewer(c, "vc", attachwire.Subscribe{}), viewer(a, "va", attachwire.Subscribe{})
	s.burst(h, 100)
	mid := h.seq
	followAll := func(last uint64, vs ...*relaytest.Conn) {
		t.Helper()
		for i, v := range vs {
			before := s.hashed
			s.follow(v, last)
			if s.hashed == before {
				t.Errorf("viewer %d up to seq %d: no stretch between snapshots was hashed", i, last)
			}
		}
	}
	followAll(mid, vb, vc, va)

	a.kill()
	relaytest.ExpectClose(t, va) // a crash: no close handshake to expect
	// B and C notice that A has gone silent and say so.
	for _, v := range []*relaytest.Conn{vb, vc} {
		untilState(t, v, attachwire.RoomHostReconnecting)
	}
	h2 := hostOn(t, a.Server, b.Server, 1)
	for _, v := range []*relaytest.Conn{vb, vc} {
		untilState(t, v, attachwire.RoomLive)
	}
	h2.seq = h.seq
	s.burst(h2, 100)
	vr := viewer(c, "va", attachwire.Subscribe{ResumeFrom: u64(mid), ResumeEpoch: u64(1)})
	followAll(h2.seq, vb, vc, vr)

	stale := relaytest.MustDial(t, c.RoomURL(room), a.HostToken(t, room, 1),
		attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleHost, Epoch: u64(1)})
	if cl := expectClosed(t, stale, 1008, attachwire.CodeEpochStale); cl.Err != nil && !cl.Err.Retryable {
		t.Errorf("equal epoch while B's host is bound: %+v, want retryable", cl.Err)
	}
}

// TestClusterSupersede: a host of a higher epoch on C takes the room from
// B, whose host leg is closed epoch-stale; the old host redialling B is
// refused as stale for good.
func TestClusterSupersede(t *testing.T) {
	ns := natsServer(t)
	nodes := startCluster(t, ns, "b", "c")
	b, c := nodes[0], nodes[1]
	h1 := hostOn(t, b.Server, b.Server, 1)
	v := relaytest.MustDial(t, b.RoomURL(room), b.ViewerToken(t, room, "v"),
		attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer})
	relaytest.ExpectControl[attachwire.RoomState](t, v)
	h2 := hostOn(t, b.Server, c.Server, 2)
	expectClosed(t, h1.c, 1008, attachwire.CodeEpochStale)
	h2.snapshot("two")
	f := untilFrame(t, v, attachwire.TypeSnapshot)
	if _, scr := snapshotOf(t, f); text(scr) != "two" {
		t.Fatalf("viewer on B: snapshot %q, want epoch 2's", text(scr))
	}
	old := relaytest.MustDial(t, b.RoomURL(room), b.HostToken(t, room, 1),
		attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleHost, Epoch: u64(1)})
	if cl := expectClosed(t, old, 1008, attachwire.CodeEpochStale); cl.Err != nil && cl.Err.Retryable {
		t.Errorf("a lower epoch: %+v, want not retryable", cl.Err)
	}
}

// TestClusterNATSOutage: a node that loses NATS refuses a host for a room
// it cannot register (rate-limited, retryable: dial another node) and
// keeps the room it holds running for its own viewers.
func TestClusterNATSOutage(t *testing.T) {
	ns := natsServer(t)
	d := startCluster(t, ns, "d")[0]
	h, v := hostAndViewer(t, d, d)

	d.nc.Close()
	other := "sess-2"
	nh := relaytest.MustDial(t, d.RoomURL(other), d.HostToken(t, other, 1),
		attachwire.Subscribe{SessionID: other, AsRole: attachwire.RoleHost, Epoch: u64(1)})
	if cl := expectClosed(t, nh, 1013, attachwire.CodeRateLimited); cl.Err != nil && !cl.Err.Retryable {
		t.Errorf("refusal %+v, want retryable", cl.Err)
	}
	seq := h.output("still here")
	if f := relaytest.NextFrame(t, v); f.Seq != seq || string(f.Payload) != "still here" {
		t.Fatalf("local viewer got %s seq %d %q, want the Output at %d", f.Type, f.Seq, f.Payload, seq)
	}
}

// TestClusterChunksLargeFrames: a frame larger than the NATS server's max
// payload crosses nodes in parts and arrives whole.
func TestClusterChunksLargeFrames(t *testing.T) {
	_, h, v := ownerAndMirror(t, natsServerWith(t, natsembed.Options{MaxPayload: 8 << 10}))
	big := strings.Repeat("0123456789abcdef", 2000) // 32,000 bytes: four parts
	seq := h.output(big)
	if f := relaytest.NextFrame(t, v); f.Seq != seq || string(f.Payload) != big {
		t.Fatalf("viewer on B got %s seq %d with %d bytes, want Output %d with %d", f.Type, f.Seq, len(f.Payload), seq, len(big))
	}
	seq = h.output("after")
	if f := relaytest.NextFrame(t, v); f.Seq != seq || string(f.Payload) != "after" {
		t.Fatalf("viewer on B got %s seq %d %q after the large frame", f.Type, f.Seq, f.Payload)
	}
}

// TestClusterDriverAfterTakeover: a driver keeps typing across the
// owner's death, on a third node and on the node that takes the room
// over. After the takeover it is granted the pen by the new owner and its
// inputSeq goes on where the old owner left it (it brings its last queued
// inputSeq when it registers, or keeps it when its own node becomes the
// owner), so the next key reaches the host.
func TestClusterDriverAfterTakeover(t *testing.T) {
	for _, tc := range []struct {
		name   string
		driver int // index of the driver's node: 1 is b, which takes over
	}{{"driver on a third node", 2}, {"driver on the new owner", 1}} {
		t.Run(tc.name, func(t *testing.T) {
			ns := natsServer(t)
			nodes := startCluster(t, ns, "a", "b", "c")
			a, b := nodes[0], nodes[1]
			h := hostOn(t, a.Server, a.Server, 1)
			d := relaytest.MustDial(t, nodes[tc.driver].RoomURL(room), a.DriverToken(t, room, "dan"),
				attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleDriver})
			gen := relaytest.ExpectControl[attachwire.PenGranted](t, d).PenGeneration
			for i := uint64(1); i <= 2; i++ {
				input(t, d, i, gen, "", "k")
				if ack := relaytest.ExpectControl[attachwire.InputAck](t, d); ack.AckInputSeq != i {
					t.Fatalf("ack %d, want %d", ack.AckInputSeq, i)
				}
				hostInput(t, h)
			}

			a.kill()
			h2 := hostOn(t, a.Server, b.Server, 1)
			untilState(t, d, attachwire.RoomLive)
			g := relaytest.ExpectControl[attachwire.PenGranted](t, d)
			if g.PenGeneration <= gen {
				// The host dedups on (userId, penGeneration, inputSeq):
				// the new owner must not hand out an old generation.
				t.Fatalf("penGeneration %d after the takeover, want above %d", g.PenGeneration, gen)
			}
			input(t, d, 3, g.PenGeneration, "", "z")
			// The ack of 2 may come again first (the new owner or the
			// driver's node repeating where the driver stood, a harmless
			// repeat: acks only move forward); then 3 must follow.
			for {
				ack := relaytest.ExpectControl[attachwire.InputAck](t, d)
				if ack.AckInputSeq == 3 {
					break
				}
				if ack.AckInputSeq != 2 {
					t.Fatalf("ack %d after the takeover, want 3 (or a repeated 2 before it)", ack.AckInputSeq)
				}
			}
			if in := hostInput(t, h2); string(in.Data) != "z" {
				t.Fatalf("host on B got %q, want z", in.Data)
			}
		})
	}
}

// untilState skips frames and controls until a room_state of state st.
func untilState(t testing.TB, c *relaytest.Conn, st attachwire.RoomStatus) {
	t.Helper()
	for {
		if relaytest.ExpectControl[attachwire.RoomState](t, c).State == st {
			return
		}
	}
}

// TestClusterPlannedRestart: the owner node drains (Shutdown) and closes.
// Its host is told to redial and lands on B; the viewer on C is told
// host-reconnecting but stays connected, then sees live and goes on.
func TestClusterPlannedRestart(t *testing.T) {
	ns := natsServer(t)
	nodes := startCluster(t, ns, "a", "b", "c")
	a, b, c := nodes[0], nodes[1], nodes[2]
	h := hostOn(t, a.Server, a.Server, 1)
	h.snapshot("s")
	v := relaytest.MustDial(t, c.RoomURL(room), a.ViewerToken(t, room, "v"),
		attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer})
	untilFrame(t, v, attachwire.TypeSnapshot)

	if err := a.Relay.Shutdown(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	expectClosed(t, h.c, 1012, attachwire.CodeRelayRestarting)
	a.Close()
	untilState(t, v, attachwire.RoomHostReconnecting)
	h2 := hostOn(t, a.Server, b.Server, 1)
	h2.seq = h.seq
	untilState(t, v, attachwire.RoomLive)
	h2.snapshot("s2")
	seq := h2.output("after")
	if f := untilFrame(t, v, attachwire.TypeOutput); f.Seq != seq || string(f.Payload) != "after" {
		t.Fatalf("viewer on C got Output seq %d %q, want %d after", f.Seq, f.Payload, seq)
	}
}
