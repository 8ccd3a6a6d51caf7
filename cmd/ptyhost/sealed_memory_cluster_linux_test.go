//go:build ptyhost_natsembedded

package main

import (
	"bytes"
	"context"
	"testing"
	"time"
)

// TestSealedClusterMemoryHoldsNoPlaintext is
// TestSealedRelayMemoryHoldsNoPlaintext for a cluster: two built relays
// as their own processes, the first running the embedded NATS server
// both join. The sealed room's host is on the first, its driver on the
// second, so every frame and the driver's Input cross NATS; then neither
// process's memory (the first's holding the NATS server's) holds any of
// the markers, while both hold the room's id. The control: a plain room
// across the same two, whose marker the scan finds in both.
func TestSealedClusterMemoryHoldsNoPlaintext(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	keys := newMemKeys(t)
	a := startRelayProcess(t, ctx, keys.pub, "--node", "a", "--nats", "embedded",
		"--nats-listen", "127.0.0.1:0", "--nats-store", t.TempDir())
	natsURL := a.await(t, ctx, `embedded NATS at (nats://127\.0\.0\.1:\d+)`)
	b := startRelayProcess(t, ctx, keys.pub, "--node", "b", "--nats", natsURL)
	tag := memTag()
	room := "memroom-" + tag
	markers := sealedMarkers(t, ctx, keys, room, tag, a.base, b.base)

	for name, r := range map[string]*relayProcess{"the owner (and NATS)": a, "the mirror": b} {
		mem := readMemory(t, r.pid())
		if !bytes.Contains(mem, []byte(room)) {
			t.Fatalf("%s's memory (%d bytes read) does not hold the room id: the scan reads nothing", name, len(mem))
		}
		for what, m := range markers {
			if bytes.Contains(mem, []byte(m)) {
				t.Errorf("%s's memory holds the %s marker %q", name, what, m)
			}
		}
		t.Logf("read %d bytes of %s's memory", len(mem), name)
	}

	plainMark := plainTraffic(t, ctx, keys, "plainroom-"+tag, tag, a.base, b.base)
	waitInMemory(t, a, plainMark)
	waitInMemory(t, b, plainMark)
}
