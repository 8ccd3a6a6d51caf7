package relay_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
)

// resumeRoom binds a host of epoch 3 that sent a snapshot (seq 1) and
// outputs "a".."e" (seqs 2-6).
func resumeRoom(t *testing.T, cfg relay.Config) (*relaytest.Server, *host) {
	s := relaytest.NewServer(t, cfg)
	h := dialHost(t, s, 3)
	h.snapshot("s1")
	for _, p := range []string{"a", "b", "c", "d", "e"} {
		h.output(p)
	}
	waitIngested(t, s, h)
	return s, h
}

// waitIngested returns once the relay has taken every frame h sent. A
// viewer dialled right after the host's sends may otherwise reach the
// relay before those frames do, and its resume would be "ahead": a miss.
func waitIngested(t testing.TB, s *relaytest.Server, h *host) {
	t.Helper()
	testkit.Eventually(t, "the host's frames ingested", func() bool {
		return relay.HeadSeq(s.Relay, relaytest.DefaultOrg, room) >= h.seq
	})
}

func resumeSub(from, epoch *uint64) attachwire.Subscribe {
	return attachwire.Subscribe{ResumeFrom: from, ResumeEpoch: epoch}
}

// A ring hit replays from seq+1, with no snapshot.
func TestResumeHitReplaysFromNextSeq(t *testing.T) {
	s, _ := resumeRoom(t, quiet())
	v := dialViewer(t, s, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer, resumeSub(u64(3), u64(3)))
	for _, want := range []string{"c", "d", "e"} {
		f := relaytest.NextFrame(t, v)
		if got := outputOf(t, f); got != want {
			t.Fatalf("replay %q, want %q", got, want)
		}
	}
}

// A resume from the head is a hit with nothing to replay: the next frame is
// the next live one.
func TestResumeHitAtHeadWaitsForLive(t *testing.T) {
	s, h := resumeRoom(t, quiet())
	v := dialViewer(t, s, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer, resumeSub(u64(6), u64(3)))
	relaytest.ExpectControl[attachwire.PenState](t, v) // joined
	h.output("live")
	if got := outputOf(t, relaytest.NextFrame(t, v)); got != "live" {
		t.Fatalf("got %q, want live", got)
	}
}

// missCases are the resume requests that must be served a snapshot + tail.
func TestResumeMissServesSnapshotThenTail(t *testing.T) {
	for _, tc := range []struct {
		name string
		sub  attachwire.Subscribe
	}{
		{"null", resumeSub(nil, nil)},
		{"zero", resumeSub(u64(0), u64(3))},
		{"ahead", resumeSub(u64(99), u64(3))},
		{"other-epoch", resumeSub(u64(3), u64(2))},
		{"absent-epoch", resumeSub(u64(3), nil)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, h := resumeRoom(t, quiet())
			v := dialViewer(t, s, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer, tc.sub)
			// The ring's snapshot (seq 1) is within the viewer's budget:
			// served, then the tail from its atSeq+1... which is itself
			// at seq 1; the tail continues at 2.
			sn, scr := snapshotOf(t, relaytest.NextFrame(t, v))
			if sn.AtSeq != 0 || text(scr) != "s1" {
				t.Fatalf("snapshot atSeq %d %q", sn.AtSeq, text(scr))
			}
			if f := relaytest.NextFrame(t, v); f.Seq != 2 || outputOf(t, f) != "a" {
				t.Fatalf("tail starts at seq %d", f.Seq)
			}
			_ = h
		})
	}
}

// A resume whose seq was evicted is a miss: the relay asks the host for a
// snapshot and serves it with the tail right after it.
func TestResumeEvictedServesFreshSnapshot(t *testing.T) {
	cfg := quiet()
	cfg.RingBytes = 2048
	s := relaytest.NewServer(t, cfg)
	h := dialHost(t, s, 3)
	h.snapshot("s1")
	for i := range 50 {
		h.output(fmt.Sprintf("%03d%s", i, strings.Repeat(".", 60)))
	}
	waitIngested(t, s, h) // s1 evicted: the viewer has to ask
	v := dialViewer(t, s, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer, resumeSub(u64(2), u64(3)))
	if r := relaytest.ExpectControl[attachwire.SnapshotRequest](t, h.c); r.Reason != attachwire.SnapshotRingMiss {
		t.Fatalf("snapshot_request reason %q, want ring-miss", r.Reason)
	}
	at := h.snapshot("s2")
	h.output("tail")
	sn, scr := snapshotOf(t, relaytest.NextFrame(t, v))
	if text(scr) != "s2" || sn.AtSeq != at-1 {
		t.Fatalf("served %q at %d", text(scr), sn.AtSeq)
	}
	if f := relaytest.NextFrame(t, v); f.Seq != at+1 || outputOf(t, f) != "tail" {
		t.Fatalf("tail at seq %d, want %d", f.Seq, at+1)
	}
}

// The snapshot+tail contiguity loop: while the host floods the room faster
// than the ring holds, a joining viewer is served only a snapshot whose
// tail is contiguous, and every frame after it arrives in order with no
// gap, however often the relay had to ask again.
func TestResumeContiguityLoopUnderEviction(t *testing.T) {
	cfg := quiet()
	cfg.RingBytes = 32 << 10
	cfg.ViewerQueueBytes = 16 << 10
	cfg.SnapshotRetry = 5_000_000 // 5 ms
	s := relaytest.NewServer(t, cfg)
	h := dialHost(t, s, 3)
	stop := make(chan struct{})
	hostDone := make(chan uint64)
	go func() {
		// The host answers every snapshot_request in-stream and floods in
		// between. Its reads run on this goroutine's sends' behalf.
		requests := make(chan struct{}, 64)
		go func() {
			for {
				f, err := h.c.Next(ctxT(t))
				if err != nil {
					close(requests)
					return
				}
				if f.Type == attachwire.TypeControl {
					select {
					case requests <- struct{}{}:
					default:
					}
				}
			}
		}()
		ctx := ctxT(t)
		for {
			h.seq++
			var f attachwire.Frame
			select {
			case <-stop:
				hostDone <- h.seq
				return
			case <-requests:
				sn, _ := attachwire.NewSnapshot(h.seq-1, screen(h.epoch, "snap"))
				f, _ = sn.Frame(h.seq, h.seq)
			default:
				f = attachwire.NewOutputFrame(h.seq, h.seq, []byte(strings.Repeat("x", 500)))
			}
			if h.c.Send(ctx, f) != nil {
				<-stop
				hostDone <- h.seq
				return
			}
		}
	}()
	v := dialViewer(t, s, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer, resumeSub(nil, nil))
	// A snapshot the viewer starts from is the in-stream frame S (atSeq
	// S-1): the frames after it are S+1, S+2, ... with no gap.
	first := relaytest.NextFrame(t, v)
	sn, _ := snapshotOf(t, first)
	if first.Seq != sn.AtSeq+1 {
		t.Fatalf("snapshot seq %d shows atSeq %d", first.Seq, sn.AtSeq)
	}
	next := first.Seq + 1
	for range 100 {
		f := relaytest.NextFrame(t, v)
		if f.Type == attachwire.TypeSnapshot && f.Seq != next {
			// A skip (the viewer lagged): it restarts from this snapshot.
			sn, _ = snapshotOf(t, f)
			if f.Seq != sn.AtSeq+1 {
				t.Fatalf("skip snapshot seq %d shows atSeq %d", f.Seq, sn.AtSeq)
			}
			next = f.Seq
		}
		if f.Seq != next {
			t.Fatalf("frame seq %d after a snapshot at %d, want %d", f.Seq, sn.AtSeq, next)
		}
		next++
	}
	close(stop)
	<-hostDone
	h.c.WS.CloseNow()
}

// resume_from on a live leg repositions it: a hit replays from seq+1.
func TestResumeFromControlRepositions(t *testing.T) {
	s, _ := resumeRoom(t, quiet())
	v := dialViewer(t, s, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer, resumeSub(u64(6), u64(3)))
	relaytest.ExpectControl[attachwire.PenState](t, v)
	if err := v.SendControl(ctxT(t), attachwire.ResumeFrom{Seq: 4, Epoch: u64(3)}); err != nil {
		t.Fatal(err)
	}
	if got := outputOf(t, relaytest.NextFrame(t, v)); got != "d" {
		t.Fatalf("after resume_from 4 got %q, want d", got)
	}
}

// A resume while the room has no host, whose snapshot's tail is over the
// viewer's headroom, gets the newest snapshot, then only the newest frames
// that fit, then error host-lost "<loss instant> <truncated bytes>"; the
// same resume again, nothing changed, gets the same snapshot and
// host-still-absent with the same message; once the throttle's 30 s have
// passed (on the relay's clock, which the test moves), host-lost again.
func TestResumeHostLostAndStillAbsent(t *testing.T) {
	cfg := quiet()
	clock := newFakeClock()
	cfg.Now = clock.Now
	cfg.ViewerQueueBytes = 4 << 10
	s := relaytest.NewServer(t, cfg)
	h := dialHost(t, s, 3)
	snapSeq := h.snapshot("last")
	for range 20 {
		h.output(strings.Repeat("o", 1000))
	}
	h.c.Close()
	waitHostGone(t, s)
	v := dialViewer(t, s, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer, attachwire.Subscribe{})
	f := relaytest.NextFrame(t, v)
	if sn, scr := snapshotOf(t, f); text(scr) != "last" || sn.AtSeq != snapSeq-1 {
		t.Fatalf("host-less resume served %q at %d", text(scr), sn.AtSeq)
	}
	lost := relaytest.ExpectControl[attachwire.ErrorControl](t, v)
	var at string
	var truncated int
	if _, err := fmt.Sscanf(lost.Message, "%s %d", &at, &truncated); err != nil || lost.Code != attachwire.CodeHostLost {
		t.Fatalf("error %+v (%v)", lost, err)
	}
	if _, err := time.Parse(time.RFC3339, at); err != nil || truncated < 10_000 {
		t.Fatalf("host-lost message %q: instant %v, truncated %d", lost.Message, err, truncated)
	}
	tail := relaytest.NextFrame(t, v)
	if tail.Seq <= snapSeq+1 || tail.Seq > h.seq {
		t.Fatalf("tail starts at %d; snapshot %d, head %d", tail.Seq, snapSeq, h.seq)
	}
	if err := v.SendControl(ctxT(t), attachwire.ResumeFrom{Seq: 1, Epoch: u64(2)}); err != nil {
		t.Fatal(err)
	}
	f = relaytest.NextFrame(t, v)
	for f.Type == attachwire.TypeOutput { // the rest of the first tail
		f = relaytest.NextFrame(t, v)
	}
	if _, scr := snapshotOf(t, f); text(scr) != "last" {
		t.Fatalf("repeat served %q", text(scr))
	}
	again := relaytest.ExpectControl[attachwire.ErrorControl](t, v)
	if again.Code != attachwire.CodeHostStillAbsent || again.Message != lost.Message {
		t.Fatalf("repeat got %+v, want host-still-absent %q", again, lost.Message)
	}
	clock.Advance(31 * time.Second)
	if err := v.SendControl(ctxT(t), attachwire.ResumeFrom{Seq: 1, Epoch: u64(2)}); err != nil {
		t.Fatal(err)
	}
	if e := relaytest.ExpectControl[attachwire.ErrorControl](t, v); e.Code != attachwire.CodeHostLost || e.Message != lost.Message {
		t.Fatalf("resume past the throttle got %+v, want host-lost %q", e, lost.Message)
	}
}
