package relay_test

import (
	"bytes"
	"encoding/binary"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
)

// sealedFinal sends the sealed post-Exit snapshot of a room whose Exit
// is at exitSeq, showing text.
func (h *sealedHost) sealedFinal(exitSeq uint64, text string) {
	h.t.Helper()
	sn, err := attachwire.NewSnapshot(exitSeq, screen(h.epoch, text))
	if err != nil {
		h.t.Fatal(err)
	}
	f, err := sn.Frame(0, 0)
	if err != nil {
		h.t.Fatal(err)
	}
	sf, err := h.room.SealFinal(f, h.epoch)
	if err != nil {
		h.t.Fatal(err)
	}
	h.send(sf)
}

// sealedExit sends the sealed Exit frame with code and returns its seq.
func (h *sealedHost) sealedExit(code uint32) uint64 {
	h.seq++
	h.sendSealed(attachwire.Exit{Code: code}.Frame(h.seq, h.seq))
	return h.seq
}

// outputOfLen sends the next Output frame, sealed to at most n bytes on
// the wire (and at least n-8), and returns its length.
func (h *sealedHost) outputOfLen(n int) int {
	h.t.Helper()
	h.seq++
	for p := n; p > 0; p-- {
		sf, err := h.room.Seal(attachwire.NewOutputFrame(h.seq, h.seq, bytes.Repeat([]byte("x"), p)), h.epoch)
		if err != nil {
			h.t.Fatal(err)
		}
		if l := sf.EncodedLen(); l <= n {
			h.send(sf)
			return l
		}
	}
	h.t.Fatalf("no Output frame fits %d bytes", n)
	return 0
}

// sealedViewerOn dials a viewer holding k on n for room, with tokens
// from minter.
func sealedViewerOn(t testing.TB, minter *relaytest.Server, n *node, user string, k *seal.Key) *relaytest.Conn {
	t.Helper()
	return relaytest.MustDial(t, n.RoomURL(room), minter.ViewerToken(t, room, user),
		attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer, Sealed: k.ID().String()})
}

// sealedFinalCached reports whether a viewer holding k joining n now
// starts from the cached final screen.
func sealedFinalCached(t testing.TB, minter *relaytest.Server, n *node, k *seal.Key) bool {
	t.Helper()
	return finalCached(t, sealedViewerOn(t, minter, n, "probe", k))
}

// openedStream reads c until the Exit frame, opening every frame with vr
// at epoch: each must open (none fails its integrity check), and Output
// and snapshots must follow on from one another up to the Exit at
// exitSeq with code. It returns the frame before the Exit, opened.
func openedStream(t testing.TB, c *relaytest.Conn, vr *seal.Room, epoch, exitSeq uint64, code uint32) attachwire.Frame {
	t.Helper()
	var applied uint64
	var last attachwire.Frame
	for {
		f := relaytest.NextFrame(t, c)
		o, err := vr.Open(f, epoch)
		if err != nil {
			t.Fatalf("%v seq %d does not open: %v", f.Type, f.Seq, err)
		}
		switch o.Type {
		case attachwire.TypeSnapshot:
			sn, _ := snapshotOf(t, o)
			applied = max(applied, sn.AtSeq)
		case attachwire.TypeExit:
			if applied != exitSeq-1 || o.Seq != exitSeq {
				t.Fatalf("Exit at %d after seq %d, want it at %d right after %d", o.Seq, applied, exitSeq, exitSeq-1)
			}
			if ex, err := attachwire.DecodeExit(o.Payload); err != nil || ex.Code != code {
				t.Fatalf("Exit %+v %v, want code %d", ex, err, code)
			}
			return last
		default:
			if applied != 0 && o.Seq != applied+1 {
				t.Fatalf("%v seq %d after %d, with no snapshot between", o.Type, o.Seq, applied)
			}
			applied = o.Seq
		}
		last = o
	}
}

// expectFinalScreen fails unless f is the final screen (seq 0) showing
// want.
func expectFinalScreen(t testing.TB, f attachwire.Frame, want string) {
	t.Helper()
	if f.Type != attachwire.TypeSnapshot || f.Seq != 0 {
		t.Fatalf("the Exit follows %v seq %d, want the final screen", f.Type, f.Seq)
	}
	if _, scr := snapshotOf(t, f); text(scr) != want {
		t.Fatalf("final screen %q, want %q", text(scr), want)
	}
}

// TestClusterSealedMirrorThatLostTheExit: the owner's NATS connection
// stops taking writes, and past RingBytes of queued output the owner drops
// what its mirror should get, the Exit frame among it; the post-Exit
// snapshot, queued after, is not dropped. Once NATS takes writes again,
// the viewer on the mirror, which was following the stream live, still
// gets the final screen and the Exit with its status, and every frame it
// gets opens with the room key.
func TestClusterSealedMirrorThatLostTheExit(t *testing.T) {
	cfg := quiet()
	cfg.SnapshotRetry = 200 * time.Millisecond
	cfg.RingBytes = 64 << 10
	nodes := startClusterWith(t, natsServer(t), cfg, "a", "b")
	a, b := nodes[0], nodes[1]
	k := newSealKey(t)
	h := dialSealedHost(t, a.Server, 1, k)
	v := sealedViewerOn(t, a.Server, b, "vic", k)
	relaytest.ExpectControl[attachwire.SnapshotRequest](t, h.c)
	h.snapshot("hi")
	h.output("live")
	untilSeq(t, v, attachwire.TypeOutput, h.seq)

	testkit.Eventually(t, "the owner's outbox empty", func() bool {
		return relay.ClusterQueuedBytes(a.Relay, relaytest.DefaultOrg, room) == 0
	})
	release := relay.StallClusterPublishes(a.Relay)
	t.Cleanup(release)
	// Two frames fill the owner's queue for B to within a few bytes of
	// RingBytes: the Exit frame does not fit and is dropped.
	n := h.outputOfLen(int(cfg.RingBytes / 2))
	h.outputOfLen(int(cfg.RingBytes) - n - 8)
	testkit.Eventually(t, "the owner takes the output", func() bool {
		return relay.HeadSeq(a.Relay, relaytest.DefaultOrg, room) == h.seq
	})
	queued := relay.ClusterQueuedBytes(a.Relay, relaytest.DefaultOrg, room)
	exitSeq := h.sealedExit(7)
	relaytest.ExpectControl[attachwire.SnapshotRequest](t, h.c) // asked at Exit
	if got := relay.ClusterQueuedBytes(a.Relay, relaytest.DefaultOrg, room); got != queued {
		t.Fatalf("the owner queued the Exit for B (%d bytes queued, %d before it): the case this test is for, a lost Exit, did not happen", got, queued)
	}
	h.sealedFinal(exitSeq, "bye")
	testkit.Eventually(t, "the owner caches the final screen", func() bool {
		return sealedFinalCached(t, a.Server, a, k)
	})
	release()

	// The viewer, live, gets the Exit after the last frame that reached B
	// (the final screen bridging any gap) or, if it fell behind, after
	// the final screen.
	if last := openedStream(t, v, seal.NewRoom(k, room), 1, exitSeq, 7); last.Type == attachwire.TypeSnapshot {
		expectFinalScreen(t, last, "bye")
	}
}

// TestClusterOwnerSendsTheExitAgainWithTheFinal: on the room's output
// subject, the message that carries the post-Exit snapshot carries the
// Exit frame too, byte for byte the one published before it, so a node
// that missed that one is not left without the session's status; and a
// late joiner on the mirror is served the final screen and the Exit,
// both opening with the key.
func TestClusterOwnerSendsTheExitAgainWithTheFinal(t *testing.T) {
	ns := natsServer(t)
	spy := spyOn(t, ns, "ptyhost.relay.room.*.out")
	nodes := startCluster(t, ns, "a", "b")
	a, b := nodes[0], nodes[1]
	k := newSealKey(t)
	h := dialSealedHost(t, a.Server, 1, k)
	v := sealedViewerOn(t, a.Server, b, "vic", k)
	relaytest.ExpectControl[attachwire.SnapshotRequest](t, h.c)
	h.snapshot("hi")
	exitSeq := h.sealedExit(3)
	relaytest.ExpectControl[attachwire.SnapshotRequest](t, h.c)
	h.sealedFinal(exitSeq, "end")
	exit := untilFrame(t, v, attachwire.TypeExit)
	exitWire, err := exit.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}

	var final []byte
	testkit.Eventually(t, "the final message on the output subject", func() bool {
		for _, m := range spy.seen() {
			m = m[bytes.IndexByte(m, ' ')+1:] // the subject
			if len(m) > relay.OutHeader && m[0] == relay.OutFinal && m[1] == 0 {
				final = m
				return true
			}
		}
		return false
	})
	n := binary.BigEndian.Uint64(final[10:18])
	body := final[relay.OutHeader:]
	if n == 0 || n > uint64(len(body)) || !bytes.Equal(body[:n], exitWire) {
		t.Fatalf("the final message's Exit part (%d of %d bytes) is not the Exit frame (%d bytes)", n, len(body), len(exitWire))
	}
	f, err := attachwire.DecodeFrame(body[n:])
	if err != nil || f.Type != attachwire.TypeSnapshot || f.Seq != 0 {
		t.Fatalf("after the Exit: %v seq %d (%v), want the post-Exit snapshot", f.Type, f.Seq, err)
	}

	testkit.Eventually(t, "the mirror caches the final screen", func() bool {
		return sealedFinalCached(t, a.Server, b, k)
	})
	late := sealedViewerOn(t, a.Server, b, "lee", k)
	expectFinalScreen(t, openedStream(t, late, seal.NewRoom(k, room), 1, exitSeq, 3), "end")
}
