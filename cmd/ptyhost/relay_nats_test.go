//go:build ptyhost_natsembedded

package main

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
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
