package relay_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relaytest"
)

// finalSnapshot sends the post-Exit snapshot: seq 0, atSeq = the Exit seq.
func (h *host) finalSnapshot(exitSeq uint64, text string) {
	h.t.Helper()
	sn, err := attachwire.NewSnapshot(exitSeq, screen(h.epoch, text))
	if err != nil {
		h.t.Fatal(err)
	}
	f, err := sn.Frame(0, 0)
	if err != nil {
		h.t.Fatal(err)
	}
	h.send(f)
}

// A viewer joining after Exit, once the host has gone, is served the cached
// post-Exit snapshot's screen, at the seq before Exit, and the Exit frame
// as its tail: it learns the session's status, and the stream it sees is
// contiguous (snapshot at atSeq A, then A+1).
func TestPostExitLateJoinGetsCachedFinalSnapshot(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := dialHost(t, s, 2)
	h.snapshot("run")
	h.output("bye")
	exitSeq := h.exit(0)
	relaytest.ExpectControl[attachwire.SnapshotRequest](t, h.c) // asked at Exit
	h.finalSnapshot(exitSeq, "final")
	// Probe viewers prove the final snapshot is cached before the host
	// leaves: one that joins before the relay has taken it in starts
	// from the ring instead, so probe until one starts from the cache.
	testkit.Eventually(t, "the final snapshot cached", func() bool {
		return finalCached(t, dialViewer(t, s, s.ViewerToken(t, room, "p"), attachwire.RoleViewer, attachwire.Subscribe{}))
	})
	h.c.Close()
	waitHostGone(t, s)
	v := dialViewer(t, s, s.ViewerToken(t, room, "late"), attachwire.RoleViewer, attachwire.Subscribe{})
	if st := relaytest.ExpectControl[attachwire.RoomState](t, v); st.State != attachwire.RoomEnded {
		t.Fatalf("late joiner's room_state %q, want ended", st.State)
	}
	expectFinal(t, v, exitSeq, 0, "final")
}

// expectFinal reads the final screen (a seq-0 snapshot at exitSeq-1 showing
// text) and then the Exit frame at exitSeq with code.
func expectFinal(t testing.TB, c *relaytest.Conn, exitSeq uint64, code uint32, want string) {
	t.Helper()
	f := relaytest.NextFrame(t, c)
	if f.Type != attachwire.TypeSnapshot {
		t.Fatalf("got %v at seq %d, want the final snapshot", f.Type, f.Seq)
	}
	if sn, scr := snapshotOf(t, f); f.Seq != 0 || sn.AtSeq != exitSeq-1 || text(scr) != want {
		t.Fatalf("snapshot seq %d atSeq %d %q, want seq 0 atSeq %d %q", f.Seq, sn.AtSeq, text(scr), exitSeq-1, want)
	}
	expectExit(t, c, exitSeq, code)
}

// finalCached reports whether a viewer joining now starts from the cached
// final screen (a seq-0 snapshot) rather than an in-ring one.
func finalCached(t testing.TB, c *relaytest.Conn) bool {
	t.Helper()
	defer c.Close()
	f := relaytest.NextFrame(t, c)
	return f.Type == attachwire.TypeSnapshot && f.Seq == 0
}

// expectExit reads the next frame and fails unless it is the Exit frame at
// seq with code.
func expectExit(t testing.TB, c *relaytest.Conn, seq uint64, code uint32) {
	t.Helper()
	f := relaytest.NextFrame(t, c)
	if f.Type != attachwire.TypeExit {
		t.Fatalf("got %v at seq %d, want Exit at %d", f.Type, f.Seq, seq)
	}
	ex, err := attachwire.DecodeExit(f.Payload)
	if err != nil || f.Seq != seq || ex.Code != code {
		t.Fatalf("Exit at seq %d code %d (%v), want seq %d code %d", f.Seq, ex.Code, err, seq, code)
	}
}

// Every way into an ended room tells the session's status. A viewer that
// needs a snapshot (a join, a resume of another epoch, an evicted or
// future seq) gets the final screen at the seq before Exit, the Exit
// frame, and nothing after it. A resume the ring still holds replays
// through Exit as usual; one from the Exit's own seq has already applied
// it and gets nothing more.
func TestPostExitJoinsAndResumesGetTheExitStatus(t *testing.T) {
	cfg := quiet()
	cfg.RingBytes = 1024
	s := relaytest.NewServer(t, cfg)
	h := dialHost(t, s, 4)
	h.snapshot("run")
	for i := range 30 {
		h.output(fmt.Sprintf("%02d%s", i, strings.Repeat(".", 40)))
	}
	exitSeq := h.exit(3)
	relaytest.ExpectControl[attachwire.SnapshotRequest](t, h.c) // asked at Exit
	h.finalSnapshot(exitSeq, "final")
	testkit.Eventually(t, "the final snapshot cached", func() bool {
		return finalCached(t, dialViewer(t, s, s.ViewerToken(t, room, "probe"), attachwire.RoleViewer, attachwire.Subscribe{}))
	})
	h.c.Close()
	waitHostGone(t, s)

	snapshotCases := []struct {
		name string
		sub  attachwire.Subscribe
	}{
		{"join", attachwire.Subscribe{}},
		{"resume of another epoch", resumeSub(u64(exitSeq-1), u64(3))},
		{"resume without an epoch", resumeSub(u64(exitSeq-1), nil)},
		{"resume evicted", resumeSub(u64(2), u64(4))},
		{"resume ahead", resumeSub(u64(exitSeq+5), u64(4))},
	}
	for i, tc := range snapshotCases {
		t.Run(tc.name, func(t *testing.T) {
			v := dialViewer(t, s, s.ViewerToken(t, room, fmt.Sprintf("s%d", i)), attachwire.RoleViewer, tc.sub)
			if st := relaytest.ExpectControl[attachwire.RoomState](t, v); st.State != attachwire.RoomEnded {
				t.Fatalf("room_state %q, want ended", st.State)
			}
			expectFinal(t, v, exitSeq, 3, "final")
			expectNothing(t, v)
		})
	}
	t.Run("resume before Exit in the ring", func(t *testing.T) {
		v := dialViewer(t, s, s.ViewerToken(t, room, "hit"), attachwire.RoleViewer, resumeSub(u64(exitSeq-2), u64(4)))
		if f := relaytest.NextFrame(t, v); f.Type != attachwire.TypeOutput || f.Seq != exitSeq-1 {
			t.Fatalf("replay began with %v at %d, want Output at %d", f.Type, f.Seq, exitSeq-1)
		}
		expectExit(t, v, exitSeq, 3)
		expectNothing(t, v)
	})
	t.Run("resume at Exit", func(t *testing.T) {
		v := dialViewer(t, s, s.ViewerToken(t, room, "at"), attachwire.RoleViewer, resumeSub(u64(exitSeq), u64(4)))
		relaytest.ExpectControl[attachwire.PenState](t, v) // joined
		expectNothing(t, v)
	})
}

// expectNothing fails if a frame other than a control arrives within a
// short wait. A busy machine can only make it pass wrongly, never fail.
func expectNothing(t testing.TB, c *relaytest.Conn) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	for {
		f, err := c.Next(ctx)
		if err != nil {
			return
		}
		if f.Type != attachwire.TypeControl {
			t.Fatalf("unexpected %v at seq %d", f.Type, f.Seq)
		}
	}
}

// room_state follows the host: a viewer before any host waits in
// host-reconnecting; bind → live; drop → host-reconnecting; rebind → live;
// Exit → ended; HostGoneAfter without a host → host-gone; EndedFor after
// Exit → the room closes (1000).
func TestRoomStateSequenceOnHostDropRebindAndExit(t *testing.T) {
	cfg := quiet()
	cfg.EndedFor = 300 * time.Millisecond
	s := relaytest.NewServer(t, cfg)
	v := dialViewer(t, s, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer, attachwire.Subscribe{})
	want := func(st attachwire.RoomStatus) {
		t.Helper()
		if got := relaytest.ExpectControl[attachwire.RoomState](t, v); got.State != st {
			t.Fatalf("room_state %q, want %q", got.State, st)
		}
	}
	want(attachwire.RoomHostReconnecting)
	h := dialHost(t, s, 1)
	want(attachwire.RoomLive)
	h.c.Close()
	want(attachwire.RoomHostReconnecting)
	h = dialHost(t, s, 1)
	want(attachwire.RoomLive)
	h.exit(0)
	want(attachwire.RoomEnded)
	expectClosed(t, v, websocket.StatusNormalClosure, "")
}

func TestRoomStateHostGoneAfterGrace(t *testing.T) {
	cfg := quiet()
	cfg.HostGoneAfter = 100 * time.Millisecond
	s := relaytest.NewServer(t, cfg)
	v := dialViewer(t, s, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer, attachwire.Subscribe{})
	relaytest.ExpectControl[attachwire.RoomState](t, v) // host-reconnecting
	if got := relaytest.ExpectControl[attachwire.RoomState](t, v); got.State != attachwire.RoomHostGone {
		t.Fatalf("room_state %q, want host-gone", got.State)
	}
	h := dialHost(t, s, 1) // a host coming back revives the room
	_ = h
	if got := relaytest.ExpectControl[attachwire.RoomState](t, v); got.State != attachwire.RoomLive {
		t.Fatalf("room_state %q, want live", got.State)
	}
}

// Shutdown's planned-restart trio, in order: the host gets error
// relay-restarting "redial after 2s" then close 1012; a viewer gets
// room_state host-reconnecting then close 1012; a new dial gets 503 with
// Retry-After: 2 and /readyz turns 503.
func TestShutdownPlannedRestartTrio(t *testing.T) {
	cfg := quiet()
	cfg.RestartAfter = 1500 * time.Millisecond
	s := relaytest.NewServer(t, cfg)
	h := dialHost(t, s, 1)
	v := dialViewer(t, s, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer, attachwire.Subscribe{})
	relaytest.ExpectControl[attachwire.RoomState](t, v)
	done := make(chan error, 1)
	go func() { done <- s.Relay.Shutdown(ctxT(t)) }()
	hc := expectClosed(t, h.c, websocket.StatusServiceRestart, attachwire.CodeRelayRestarting)
	if hc.Err == nil || hc.Err.Message != "redial after 2s" || !hc.Err.Retryable {
		t.Errorf("host's error control %+v", hc.Err)
	}
	if hc.Reason != "relay-restarting: redial after 2s" {
		t.Errorf("host close reason %q", hc.Reason)
	}
	if st := relaytest.ExpectControl[attachwire.RoomState](t, v); st.State != attachwire.RoomHostReconnecting {
		t.Errorf("viewer room_state %q", st.State)
	}
	expectClosed(t, v, websocket.StatusServiceRestart, "")
	if err := <-done; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	_, resp, err := relaytest.Dial(ctxT(t), s.RoomURL(room), s.HostToken(t, room, 1), nil)
	if err == nil || resp == nil || resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "2" {
		t.Fatalf("dial while draining: %v %+v", err, resp)
	}
	if code, _ := s.Get(t, "/readyz"); code != 503 {
		t.Errorf("/readyz %d while draining", code)
	}
}

// A stream whose only frame is its Exit (seq 1) still ends a late
// joiner's view properly: the final screen at atSeq 0, then the Exit.
func TestPostExitWhenExitIsTheFirstFrame(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := dialHost(t, s, 5)
	exitSeq := h.exit(9)
	relaytest.ExpectControl[attachwire.SnapshotRequest](t, h.c)
	h.finalSnapshot(exitSeq, "empty")
	testkit.Eventually(t, "the final snapshot cached", func() bool {
		return finalCached(t, dialViewer(t, s, s.ViewerToken(t, room, "probe"), attachwire.RoleViewer, attachwire.Subscribe{}))
	})
	v := dialViewer(t, s, s.ViewerToken(t, room, "late"), attachwire.RoleViewer, attachwire.Subscribe{})
	expectFinal(t, v, exitSeq, 9, "empty")
}
