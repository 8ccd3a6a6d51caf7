package chaos

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/relaytest"
)

// Hostile peers in rooms of their own (a host sending a 65535×65535
// Resize, a driver asking for that viewport, a host flooding output to a
// viewer that never reads, a driver flooding input to a host that never
// reads) while a real session runs in another room: that session's viewer
// follows it to the Exit on the host's final screen, the hostile host is
// closed with a framing error, the driver's size reaches its host clamped
// to the relay's bound, and the relay's memory stays bounded.
func TestHostilePeers(t *testing.T) {
	flood := 3 * time.Second
	ticks := 80
	if full() {
		flood, ticks = 30*time.Second, 700
	}
	k := newKeys(t)
	r := newRelay(t, k)
	ctx := waitCtx(t)

	h := startHost(t, k, func() string { return r.roomURL("calm") }, "calm", ticker(ticks), hostOptions{})
	v := watch(t, k, "calm", r.roomURL("calm"), "calm", watchOptions{})
	v.awaitSeq(t, 2)
	v.resetGap()

	// A host's Resize past the bound is its framing error.
	big := rawHost(t, k, r, "big")
	rs, err := attachwire.Resize{Cols: 65535, Rows: 65535}.Frame(1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Send(ctx, rs); err != nil {
		t.Fatal(err)
	}
	closed := relaytest.ExpectClose(t, big)
	if closed.Status != websocket.StatusProtocolError {
		t.Errorf("host Resize 65535×65535: closed %d %q, want a framing error (%d)", closed.Status, closed.Reason, websocket.StatusProtocolError)
	}

	// A driver's viewport past the bound reaches the host clamped.
	wide := rawHost(t, k, r, "wide")
	if err := wide.Send(ctx, attachwire.NewOutputFrame(1, 1, []byte("wide"))); err != nil {
		t.Fatal(err)
	}
	drv := relaytest.MustDial(t, r.roomURL("wide"), k.mustMint(t, "wide", attachwire.RoleDriver, "dee"),
		attachwire.Subscribe{SessionID: "wide", AsRole: attachwire.RoleDriver, Viewport: &attachwire.Viewport{Cols: 65535, Rows: 65535}})
	defer drv.Close()
	var clamped attachwire.Resize
	for {
		f, err := wide.Next(ctx)
		if err != nil {
			t.Fatalf("the wide room's host: %v before a Resize", err)
		}
		if f.Type == attachwire.TypeResize {
			if clamped, err = attachwire.DecodeResize(f.Payload); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if clamped.Cols > 4096 || clamped.Rows > 4096 {
		t.Errorf("driver viewport 65535×65535 reached the host as %d×%d, past the bound 4096", clamped.Cols, clamped.Rows)
	}

	// Floods, with the relay's resident memory sampled throughout.
	var peak atomic.Int64
	stopSample := make(chan struct{})
	var sampled sync.WaitGroup
	sampled.Go(func() {
		for {
			if n := r.rss(); n > peak.Load() {
				peak.Store(n)
			}
			select {
			case <-stopSample:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	})
	out := rawHost(t, k, r, "flood-out")
	deaf := relaytest.MustDial(t, r.roomURL("flood-out"), k.mustMint(t, "flood-out", attachwire.RoleViewer, "deaf"),
		attachwire.Subscribe{SessionID: "flood-out", AsRole: attachwire.RoleViewer})
	defer deaf.Close() // never read: the relay must bound what it queues for it
	inHost := rawHost(t, k, r, "flood-in")
	if err := inHost.Send(ctx, attachwire.NewOutputFrame(1, 1, []byte("$ "))); err != nil {
		t.Fatal(err)
	}
	typist := relaytest.MustDial(t, r.roomURL("flood-in"), k.mustMint(t, "flood-in", attachwire.RoleDriver, "tess"),
		attachwire.Subscribe{SessionID: "flood-in", AsRole: attachwire.RoleDriver})
	defer typist.Close()
	gen := penGeneration(t, typist)

	var sentOut, sentIn atomic.Int64
	// A flood ends at its deadline even while a send is blocked: the
	// relay pushing back on the flooder is what it should do.
	until := time.Now().Add(flood)
	floodCtx, stopFlood := context.WithDeadline(ctx, until)
	defer stopFlood()
	var floods sync.WaitGroup
	floods.Go(func() {
		chunk := make([]byte, 32<<10)
		for i := range chunk {
			chunk[i] = 'a' + byte(i%26)
		}
		for seq := uint64(1); time.Now().Before(until); seq++ {
			if out.Send(floodCtx, attachwire.NewOutputFrame(seq, seq, chunk)) != nil {
				return
			}
			sentOut.Add(int64(len(chunk)))
		}
	})
	floods.Go(func() {
		data := make([]byte, 16<<10)
		for i := range data {
			data[i] = 'x'
		}
		for n := uint64(1); time.Now().Before(until); n++ {
			f := attachwire.Input{InputSeq: n, PenGeneration: gen, UserID: "tess", Data: data}.Frame(0, 0)
			if typist.Send(floodCtx, f) != nil {
				return
			}
			sentIn.Add(int64(len(data)))
		}
	})
	floods.Wait()
	close(stopSample)
	sampled.Wait()

	f := v.finish(t, h, h.waitExit(t))
	if !r.running() {
		t.Fatal("the relay died under the floods")
	}
	const bound = 1 << 30
	if peak.Load() > bound {
		t.Errorf("relay RSS peaked at %d MiB under the floods, past %d MiB", peak.Load()>>20, bound>>20)
	}
	report(t, "host Resize 65535×65535 closed %d; driver viewport 65535×65535 reached the host as %d×%d; floods for %v: host output %d MiB to a viewer that never reads, driver input %d MiB to a host that never reads; relay RSS peak %d MiB, after %d MiB; other room %v",
		closed.Status, clamped.Cols, clamped.Rows, flood, sentOut.Load()>>20, sentIn.Load()>>20, peak.Load()>>20, r.rss()>>20, f)
}

// rawHost is a hand-driven host leg in room on r, subscribed and asked
// for its first snapshot.
func rawHost(t testing.TB, k *keys, r *relayNode, room string) *relaytest.Conn {
	t.Helper()
	tok, err := k.mint(room, attachwire.RoleHost, "", 1)
	if err != nil {
		t.Fatal(err)
	}
	epoch := uint64(1)
	c := relaytest.MustDial(t, r.roomURL(room), tok, attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleHost, Epoch: &epoch})
	t.Cleanup(func() { c.Close() })
	relaytest.ExpectControl[attachwire.SnapshotRequest](t, c)
	return c
}

// penGeneration reads a driver leg's controls until it is granted the
// pen, and returns the pen's generation.
func penGeneration(t testing.TB, c *relaytest.Conn) uint64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	defer cancel()
	for {
		f, err := c.Next(ctx)
		if err != nil {
			t.Fatalf("no pen for the driver: %v", err)
		}
		if f.Type != attachwire.TypeControl {
			continue
		}
		ctl, err := attachwire.DecodeControl(f.Payload)
		var unknown *attachwire.UnknownControlError
		if errors.As(err, &unknown) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if g, ok := ctl.(attachwire.PenGranted); ok {
			return g.PenGeneration
		}
	}
}
