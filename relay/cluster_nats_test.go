package relay_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/faultproxy"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relay/natsembed"
	"github.com/ptyhost/ptyhost/relaytest"
)

// TestClusterSurvivesTheLossOfAnyNode runs the documented topology: three
// relay nodes, each with its own NATS server, the servers clustered
// through routes and the cluster's bucket on all three. Losing any one
// node (relay and NATS server together, as a crash of the machine does),
// or only the NATS server a node uses, leaves the cluster serving: every
// viewer still connected sees every frame, bridged by snapshots, up to
// the Exit, whether the lost node held the host, a viewer, or the
// bucket's leader; and a new room can still be opened.
func TestClusterSurvivesTheLossOfAnyNode(t *testing.T) {
	if testing.Short() {
		t.Skip("three clustered JetStream servers: not in -short")
	}
	for _, natsOnly := range []bool{false, true} {
		for lost := range 3 {
			name := fmt.Sprintf("node %c", 'a'+lost)
			if natsOnly {
				name = fmt.Sprintf("nats of %c", 'a'+lost)
			}
			t.Run(name, func(t *testing.T) { loseOne(t, lost, natsOnly) })
		}
	}
}

func loseOne(t *testing.T, lost int, natsOnly bool) {
	servers := natsTrio(t)
	cfg := quiet()
	cfg.SnapshotRetry = 200 * time.Millisecond
	cfg.NATSReplicas = 3
	nodes := startClusterOn(t, servers, cfg, "a", "b", "c")
	a := nodes[0]
	s := &stream{t: t, sent: map[uint64]string{}}
	h := hostOn(t, a.Server, a.Server, 1)
	h.snapshot("s")
	var viewers []*relaytest.Conn
	for i, n := range nodes {
		viewers = append(viewers, relaytest.MustDial(t, n.RoomURL(room), a.ViewerToken(t, room, fmt.Sprintf("v%d", i)),
			attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer}))
	}
	s.burst(h, 50)
	for _, v := range viewers {
		s.follow(v, h.seq)
	}

	servers[lost].Close()
	survivors := []int{(lost + 1) % 3, (lost + 2) % 3}
	if !natsOnly {
		nodes[lost].kill()
		if lost == 0 {
			seq := h.seq
			h = hostOn(t, a.Server, nodes[survivors[0]].Server, 1)
			h.seq = seq
		}
	} else {
		survivors = append(survivors, lost)
	}
	s.burst(h, 50)
	exit := h.exit(0)
	for _, i := range survivors {
		s.follow(viewers[i], exit-1)
		if f := untilFrame(t, viewers[i], attachwire.TypeExit); f.Seq != exit {
			t.Fatalf("viewer on %c: Exit at seq %d, want %d", 'a'+i, f.Seq, exit)
		}
	}

	// The bucket still takes a new room's owner (once its servers have
	// elected a leader again: until then the node refuses the host as
	// rate-limited and retryable, and hostOnRoom dials again).
	hostOnRoom(t, a.Server, nodes[survivors[0]].Server, "sess-new", 1)
}

// natsTrio starts three NATS servers clustered through routes, each
// given the whole route list.
func natsTrio(t testing.TB) []*natsembed.Server {
	t.Helper()
	var routes []string
	for range 3 {
		routes = append(routes, "nats://"+testkit.FreeAddr(t))
	}
	var trio []*natsembed.Server
	for i, r := range routes {
		trio = append(trio, natsServerWith(t, natsembed.Options{Name: fmt.Sprintf("nats-%c", 'a'+i),
			ClusterAddr: r[len("nats://"):], Routes: routes}))
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, s := range trio {
		if err := s.WaitCluster(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return trio
}

// TestMirrorCatchesUpAfterNATSReconnect: a mirror node whose connection to
// NATS breaks while the owner publishes the rest of the stream, its Exit
// included, fetches what it missed once the connection is back, though no
// later frame ever arrives to show it the gap.
func TestMirrorCatchesUpAfterNATSReconnect(t *testing.T) {
	ns := natsServer(t)
	p, err := faultproxy.New(strings.TrimPrefix(ns.ClientURL(), "nats://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	cfg := quiet()
	cfg.SnapshotRetry = 200 * time.Millisecond
	nodes := startClusterVia(t, [][]string{{ns.ClientURL()}, {"nats://" + p.Addr()}}, true, cfg, "a", "b")
	a, b := nodes[0], nodes[1]
	s := &stream{t: t, sent: map[uint64]string{}}
	h := hostOn(t, a.Server, a.Server, 1)
	h.snapshot("s")
	va := relaytest.MustDial(t, a.RoomURL(room), a.ViewerToken(t, room, "va"),
		attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer})
	vb := relaytest.MustDial(t, b.RoomURL(room), a.ViewerToken(t, room, "vb"),
		attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer})
	s.burst(h, 10)
	s.follow(va, h.seq)
	s.follow(vb, h.seq)

	// Node b's path to NATS breaks, and its redials find nothing until
	// the owner has published the whole rest of the stream.
	p.SetTarget(testkit.FreeAddr(t))
	p.CutAfter(faultproxy.Upstream, 0)
	testkit.Eventually(t, "node b to lose NATS", func() bool { return !b.nc.IsConnected() })
	s.burst(h, 30)
	exit := h.exit(0)
	if f := untilFrame(t, va, attachwire.TypeExit); f.Seq != exit {
		t.Fatalf("viewer on a: Exit at seq %d, want %d", f.Seq, exit)
	}
	p.SetTarget(strings.TrimPrefix(ns.ClientURL(), "nats://"))

	s.follow(vb, exit-1)
	if f := untilFrame(t, vb, attachwire.TypeExit); f.Seq != exit {
		t.Fatalf("viewer on b: Exit at seq %d, want %d", f.Seq, exit)
	}
}
