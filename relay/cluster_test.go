package relay_test

import (
	"crypto/ed25519"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/relaytest"
)

// natsServer starts an embedded NATS server with JetStream on a loopback
// ephemeral port, stored in a temporary directory, and stops it when the
// test ends.
func natsServer(t testing.TB) *server.Server {
	t.Helper()
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true,
		StoreDir: t.TempDir(), NoSigs: true, NoLog: true})
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(relaytest.Timeout) {
		t.Fatal("nats server not ready")
	}
	t.Cleanup(func() {
		ns.Shutdown()
		ns.WaitForShutdown()
	})
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
func startCluster(t testing.TB, ns *server.Server, names ...string) []*node {
	t.Helper()
	var nodes []*node
	var key ed25519.PublicKey
	for _, name := range names {
		nc, err := nats.Connect(ns.ClientURL(), nats.MaxReconnects(0))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		cfg := quiet()
		cfg.NATS, cfg.Node = nc, name
		cfg.SnapshotRetry = 200 * time.Millisecond
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
func hostOn(t testing.TB, minter, n *relaytest.Server, epoch uint64) *host {
	t.Helper()
	c := relaytest.MustDial(t, n.RoomURL(room), minter.HostToken(t, room, epoch),
		attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleHost, Epoch: u64(epoch)})
	h := &host{t: t, c: c, epoch: epoch}
	if r := relaytest.ExpectControl[attachwire.SnapshotRequest](t, c); r.Reason != attachwire.SnapshotResync {
		t.Fatalf("first snapshot_request reason %q, want resync", r.Reason)
	}
	return h
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

	d := relaytest.MustDial(t, c.RoomURL(room), a.DriverToken(t, room, "dan"),
		attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleDriver,
			Viewport: &attachwire.Viewport{Cols: 100, Rows: 30}})
	g := relaytest.ExpectControl[attachwire.PenGranted](t, d)
	if g.UserID != "dan" {
		t.Fatalf("pen granted to %q, want dan", g.UserID)
	}
	if p := relaytest.ExpectControl[attachwire.Presence](t, v); p.Op != attachwire.PresenceJoin || p.Members[0].UserID != "dan" {
		t.Fatalf("viewer on B: presence %+v, want dan's join", p)
	}
	if pg := relaytest.ExpectControl[attachwire.PenGranted](t, v); pg.UserID != "dan" || pg.PenGeneration != g.PenGeneration {
		t.Fatalf("viewer on B: pen_granted %+v, want dan's", pg)
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
	if sn, scr := snapshotOf(t, f); sn.AtSeq != exitSeq || text(scr) != "bye" {
		t.Fatalf("late viewer on C: snapshot at %d %q, want the final one at %d", sn.AtSeq, text(scr), exitSeq)
	}
}
