package relay_test

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
)

// burstPayload is frame seq's Output: printable, which the sanitizer
// passes as it is, of a length that varies from frame to frame.
func burstPayload(seq uint64) string {
	return strings.Repeat(string(rune('a'+seq%26)), 1+int(seq*797%8192))
}

// A burst of frames reaches a viewer that stopped reading meanwhile, and
// one that joins behind it as a backlog, exactly: every seq, in order,
// every byte. The joining viewer's backlog leaves in batches, far fewer
// writes than frames; a frame sent once both have caught up reaches them
// with nothing after it to push it out.
func TestBurstToSlowViewerExactAndBatched(t *testing.T) {
	cfg := quiet()
	cfg.RingBytes, cfg.ViewerQueueBytes = 64<<20, 32<<20
	cfg.WriteTimeout = time.Minute // the slow viewer reads nothing until the burst is in
	cfg.PingInterval, cfg.SilenceTimeout = time.Hour, 2*time.Hour
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cl := &relay.CountingListener{Listener: ln}
	s := relaytest.NewServerOn(t, cfg, cl)
	h := dialHost(t, s, 1)
	h.snapshot("")
	slow := dialViewer(t, s, s.ViewerToken(t, room, "slow"), attachwire.RoleViewer, attachwire.Subscribe{})
	snapshotOf(t, relaytest.NextFrame(t, slow))
	n := 3000
	if raceEnabled {
		n = 600
	}
	first := h.seq + 1
	for range n {
		h.output(burstPayload(h.seq + 1))
	}
	last := h.seq
	testkit.Eventually(t, "the burst in the ring", func() bool {
		return relay.HeadSeq(s.Relay, relaytest.DefaultOrg, room) == last
	})
	late := dialViewer(t, s, s.ViewerToken(t, room, "late"), attachwire.RoleViewer,
		attachwire.Subscribe{ResumeFrom: u64(first - 1), ResumeEpoch: u64(1)})
	lateSock := cl.Last()
	for _, v := range []*relaytest.Conn{slow, late} {
		readBurst(t, v, first, last)
	}
	t.Logf("the late viewer's %d frames: %d writes", n, lateSock.Writes())
	if w := lateSock.Writes(); w > int64(n/4) {
		t.Errorf("the late viewer's %d frames took %d writes, want at most %d", n, w, n/4)
	}
	seq := h.output("k")
	for _, v := range []*relaytest.Conn{slow, late} {
		if f := relaytest.NextFrame(t, v); f.Seq != seq || outputOf(t, f) != "k" {
			t.Fatalf("after the burst: frame %v seq %d, want Output k at %d", f.Type, f.Seq, seq)
		}
	}
}

// readBurst reads v's Output frames first…last and checks each.
func readBurst(t *testing.T, v *relaytest.Conn, first, last uint64) {
	t.Helper()
	for want := first; want <= last; want++ {
		f := relaytest.NextFrame(t, v)
		if f.Type != attachwire.TypeOutput || f.Seq != want {
			t.Fatalf("got %v seq %d, want Output seq %d", f.Type, f.Seq, want)
		}
		if got := outputOf(t, f); got != burstPayload(want) {
			t.Fatalf("seq %d: %s", want, describePayload(got, burstPayload(want)))
		}
	}
}

func describePayload(got, want string) string {
	return fmt.Sprintf("got %d bytes starting %q, want %d of %q", len(got), got[:min(len(got), 8)], len(want), want[:1])
}
