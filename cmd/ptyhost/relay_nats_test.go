package main

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/token"
)

// ptyhost relay --nats embedded starts a NATS server in the process, says
// where, joins it as a cluster node, serves a host and a viewer, and stops
// both when its context ends.
func TestRelayCommandNATSEmbedded(t *testing.T) {
	pub, _, err := token.WriteKeyFiles(filepath.Join(t.TempDir(), "relay"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out lockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- relayCmd(ctx, []string{"--listen", "127.0.0.1:0", "--public-key", pub, "--restart-after", "1s",
			"--nats", "embedded", "--nats-listen", "127.0.0.1:0", "--nats-store", t.TempDir(), "--node", "seed"}, nil, &out)
	}()
	natsLine := regexp.MustCompile(`embedded NATS at nats://127\.0\.0\.1:\d+`)
	line := regexp.MustCompile(`ptyhost relay listening on ws://(127\.0\.0\.1:\d+)/v1/rooms/`)
	var addr string
	deadline := time.Now().Add(20 * time.Second)
	for addr == "" {
		if m := line.FindStringSubmatch(out.String()); m != nil {
			addr = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("no startup line; output %q", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !natsLine.MatchString(out.String()) {
		t.Errorf("no embedded NATS line in %q", out.String())
	}
	keyPath := strings.TrimSuffix(pub, ".pub") + ".key"
	mint := func(args ...string) string {
		var tok bytes.Buffer
		if err := tokenCmd(ctx, append([]string{"--key", keyPath, "--room", "s1"}, args...), nil, &tok); err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(tok.String())
	}
	h := relaytest.MustDial(t, "ws://"+addr+"/v1/rooms/s1", mint("--role", "host", "--epoch", "1"),
		attachwire.Subscribe{SessionID: "s1", AsRole: attachwire.RoleHost, Epoch: new(uint64(1))})
	relaytest.ExpectControl[attachwire.SnapshotRequest](t, h) // bound: the node registered the room in NATS
	v := relaytest.MustDial(t, "ws://"+addr+"/v1/rooms/s1", mint("--role", "viewer", "--user", "ann"),
		attachwire.Subscribe{SessionID: "s1", AsRole: attachwire.RoleViewer})
	if st := relaytest.ExpectControl[attachwire.RoomState](t, v); st.State != attachwire.RoomLive {
		t.Fatalf("room_state %q, want live", st.State)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("relay returned %v after a drain", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the relay did not stop")
	}
}
