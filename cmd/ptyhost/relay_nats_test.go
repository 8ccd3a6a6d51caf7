//go:build ptyhost_natsembedded

package main

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relaytest"
)

// ptyhost relay --nats embedded (in a build with the ptyhost_natsembedded
// tag) starts a NATS server in the process, says where, joins it as a
// cluster node, serves a host and a viewer, and stops both when its
// context ends.
func TestRelayCommandNATSEmbedded(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := startRelayCmd(t, ctx, 20*time.Second,
		"--nats", "embedded", "--nats-listen", "127.0.0.1:0", "--nats-store", t.TempDir(), "--node", "seed")
	if natsLine := regexp.MustCompile(`embedded NATS at nats://127\.0\.0\.1:\d+`); !natsLine.MatchString(r.out.String()) {
		t.Errorf("no embedded NATS line in %q", r.out.String())
	}
	mint := func(args ...string) string { return r.mint(t, ctx, append([]string{"--room", "s1"}, args...)...) }
	h := relaytest.MustDial(t, "ws://"+r.addr+"/v1/rooms/s1", mint("--role", "host", "--epoch", "1"),
		attachwire.Subscribe{SessionID: "s1", AsRole: attachwire.RoleHost, Epoch: new(uint64(1))})
	relaytest.ExpectControl[attachwire.SnapshotRequest](t, h) // bound: the node registered the room in NATS
	v := relaytest.MustDial(t, "ws://"+r.addr+"/v1/rooms/s1", mint("--role", "viewer", "--user", "ann"),
		attachwire.Subscribe{SessionID: "s1", AsRole: attachwire.RoleViewer})
	if st := relaytest.ExpectControl[attachwire.RoomState](t, v); st.State != attachwire.RoomLive {
		t.Fatalf("room_state %q, want live", st.State)
	}
	cancel()
	r.awaitStop(t, 30*time.Second)
}

// Three relays, each with its embedded NATS server clustered with the
// others' through routes and the ownership bucket on all three, start
// together (each waits for the cluster's JetStream leader) and serve one
// room across nodes: a host on the first, a viewer on the third.
func TestRelayCommandNATSEmbeddedCluster(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var routes []string
	for range 3 {
		routes = append(routes, "--nats-route", "nats://"+testkit.FreeAddr(t))
	}
	var nodes []*relayRun
	for i := range 3 {
		args := append([]string{"--nats", "embedded", "--nats-listen", "127.0.0.1:0", "--nats-store", t.TempDir(),
			"--node", fmt.Sprintf("n%d", i), "--nats-cluster", strings.TrimPrefix(routes[2*i+1], "nats://"),
			"--nats-replicas", "3"}, routes...)
		nodes = append(nodes, launchRelayCmd(t, ctx, args...))
	}
	for _, n := range nodes {
		n.listening(t, 2*time.Minute)
	}
	a, c := nodes[0], nodes[2]
	h := relaytest.MustDial(t, "ws://"+a.addr+"/v1/rooms/s1", a.mint(t, ctx, "--room", "s1", "--role", "host", "--epoch", "1"),
		attachwire.Subscribe{SessionID: "s1", AsRole: attachwire.RoleHost, Epoch: new(uint64(1))})
	relaytest.ExpectControl[attachwire.SnapshotRequest](t, h)
	v := relaytest.MustDial(t, "ws://"+c.addr+"/v1/rooms/s1", c.mint(t, ctx, "--room", "s1", "--role", "viewer", "--user", "ann"),
		attachwire.Subscribe{SessionID: "s1", AsRole: attachwire.RoleViewer})
	if st := relaytest.ExpectControl[attachwire.RoomState](t, v); st.State != attachwire.RoomLive {
		t.Fatalf("viewer on the third node: room_state %q, want live (the host is on the first)", st.State)
	}
	cancel()
	for _, n := range nodes {
		n.awaitStop(t, 30*time.Second)
	}
}
