package relay_test

import (
	"testing"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/relaytest"
)

// A viewer joining with resumeFrom null starts from the ring's snapshot and
// then gets every later frame in order, sanitized.
func TestViewerJoinGetsSnapshotThenTail(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := dialHost(t, s, 7)
	h.output("before")
	snapSeq := h.snapshot("hello")
	v := dialViewer(t, s, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer, attachwire.Subscribe{})
	sn, scr := snapshotOf(t, relaytest.NextFrame(t, v))
	if sn.AtSeq != snapSeq-1 || text(scr) != "hello" || scr.Epoch != 7 {
		t.Fatalf("join snapshot atSeq %d text %q epoch %d", sn.AtSeq, text(scr), scr.Epoch)
	}
	h.output("a\x1b]52;c;aGk=\x07b") // OSC 52 is stripped on ingest
	f := relaytest.NextFrame(t, v)
	if got := outputOf(t, f); got != "ab" || f.Seq != snapSeq+1 {
		t.Fatalf("tail frame seq %d %q, want seq %d \"ab\"", f.Seq, got, snapSeq+1)
	}
}

// CAS row 1: no live host, E < E_cur → epoch-stale, not retryable.
func TestHostCASVacantLowerEpochRefused(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := dialHost(t, s, 5)
	h.c.Close()
	waitHostGone(t, s)
	old := dialHostNoWait(t, s, 4)
	cl := expectClosed(t, old.c, websocket.StatusPolicyViolation, attachwire.CodeEpochStale)
	if cl.Err != nil && cl.Err.Retryable {
		t.Error("E < E_cur refusal is retryable")
	}
}

// CAS row 2: no live host, E == E_cur → the same stream resumes; seq
// continues and the ring is kept.
func TestHostCASVacantEqualEpochResumes(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := dialHost(t, s, 5)
	h.snapshot("one")
	h.output("x")
	h.c.Close()
	waitHostGone(t, s)
	h2 := dialHost(t, s, 5)
	h2.seq = h.seq
	h2.output("y")
	// A viewer resuming after the first snapshot replays x then y: the ring
	// was kept across the rebind.
	v := dialViewer(t, s, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer,
		attachwire.Subscribe{ResumeFrom: u64(1), ResumeEpoch: u64(5)})
	if got := outputOf(t, relaytest.NextFrame(t, v)) + outputOf(t, relaytest.NextFrame(t, v)); got != "xy" {
		t.Fatalf("replay %q, want xy", got)
	}
}

// CAS row 3: no live host, E > E_cur → new generation: ring discarded.
func TestHostCASVacantHigherEpochNewGeneration(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := dialHost(t, s, 5)
	h.snapshot("old")
	h.output("x")
	h.c.Close()
	waitHostGone(t, s)
	h2 := dialHost(t, s, 6)
	h2.output("new")
	// Resuming against epoch 5 is a miss now; the viewer waits for a
	// snapshot of epoch 6.
	v := dialViewer(t, s, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer,
		attachwire.Subscribe{ResumeFrom: u64(1), ResumeEpoch: u64(5)})
	relaytest.ExpectControl[attachwire.SnapshotRequest](t, h2.c)
	h2.snapshot("fresh")
	_, scr := snapshotOf(t, relaytest.NextFrame(t, v))
	if scr.Epoch != 6 || text(scr) != "fresh" {
		t.Fatalf("snapshot epoch %d %q", scr.Epoch, text(scr))
	}
}

// CAS row 4: live host, E > E_cur → supersede: the old leg is closed, a new
// generation starts and every viewer is forced to a snapshot with a
// room_state.
func TestHostCASLiveHigherEpochSupersedes(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := dialHost(t, s, 5)
	h.snapshot("old")
	v := dialViewer(t, s, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer, attachwire.Subscribe{})
	snapshotOf(t, relaytest.NextFrame(t, v))
	h2 := dialHost(t, s, 9)
	expectClosed(t, h.c, websocket.StatusPolicyViolation, attachwire.CodeEpochStale)
	if st := relaytest.ExpectControl[attachwire.RoomState](t, v); st.State != attachwire.RoomLive {
		t.Fatalf("room_state %q after supersede", st.State)
	}
	h2.snapshot("new")
	_, scr := snapshotOf(t, relaytest.NextFrame(t, v))
	if scr.Epoch != 9 || text(scr) != "new" {
		t.Fatalf("forced snapshot epoch %d %q", scr.Epoch, text(scr))
	}
}

// CAS row 5: live host, E == E_cur → epoch-stale, retryable (a half-open
// predecessor); E < E_cur → not retryable. The bound leg is untouched.
func TestHostCASLiveEqualOrLowerEpochRefused(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := dialHost(t, s, 5)
	for _, tc := range []struct {
		epoch     uint64
		retryable bool
	}{{5, true}, {4, false}} {
		dup := dialHostNoWait(t, s, tc.epoch)
		cl := expectClosed(t, dup.c, websocket.StatusPolicyViolation, attachwire.CodeEpochStale)
		if cl.Err != nil && cl.Err.Retryable != tc.retryable {
			t.Errorf("epoch %d: retryable %v, want %v", tc.epoch, cl.Err.Retryable, tc.retryable)
		}
	}
	h.snapshot("still")
	v := dialViewer(t, s, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer, attachwire.Subscribe{})
	if _, scr := snapshotOf(t, relaytest.NextFrame(t, v)); text(scr) != "still" {
		t.Fatalf("bound host's snapshot %q", text(scr))
	}
}

// A host that comes back within its epoch with a jump in seq truncates the
// ring at the gap: a resume from before the gap is a miss, and the relay
// asks for a resync snapshot.
func TestHostGapTruncatesRing(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := dialHost(t, s, 5)
	h.snapshot("a")
	h.output("1")
	h.output("2")
	h.c.Close()
	waitHostGone(t, s)
	h2 := dialHost(t, s, 5)
	h2.seq = h.seq + 10 // frames lost with the dropped leg
	h2.output("after")
	relaytest.ExpectControl[attachwire.SnapshotRequest](t, h2.c)
	v := dialViewer(t, s, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer,
		attachwire.Subscribe{ResumeFrom: u64(2), ResumeEpoch: u64(5)})
	snapSeq := h2.snapshot("b")
	sn, scr := snapshotOf(t, relaytest.NextFrame(t, v))
	if text(scr) != "b" || sn.AtSeq != snapSeq-1 {
		t.Fatalf("resume across the gap served %q at %d, want the post-gap snapshot", text(scr), sn.AtSeq)
	}
}

// Every host bind, the first included, is followed by snapshot_request
// resync (dialHost checks it).
func TestHostBindRequestsResync(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := dialHost(t, s, 1)
	h.c.Close()
	waitHostGone(t, s)
	dialHost(t, s, 1)
}

// A host replaying its ring after a reset sends seqs the relay already
// holds: they are dropped, and viewers see every seq once.
func TestHostDuplicateSeqsDropped(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := dialHost(t, s, 1)
	h.snapshot("s")
	h.output("a")
	h.output("b")
	waitIngested(t, s, h)
	v := dialViewer(t, s, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer,
		attachwire.Subscribe{ResumeFrom: u64(1), ResumeEpoch: u64(1)})
	h.seq = 1 // replay 2 and 3, then go on
	h.output("a")
	h.output("b")
	h.output("c")
	for _, want := range []struct {
		seq uint64
		out string
	}{{2, "a"}, {3, "b"}, {4, "c"}} {
		f := relaytest.NextFrame(t, v)
		if f.Seq != want.seq || outputOf(t, f) != want.out {
			t.Fatalf("got seq %d %q, want %d %q", f.Seq, f.Payload, want.seq, want.out)
		}
	}
}

// A host snapshot that does not validate (here: another epoch's screen)
// is never forwarded; an empty Output frame takes its seq so the stream
// stays contiguous.
func TestHostBadSnapshotBecomesEmptyOutput(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := dialHost(t, s, 1)
	h.snapshot("ok")
	waitIngested(t, s, h)
	v := dialViewer(t, s, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer,
		attachwire.Subscribe{ResumeFrom: u64(1), ResumeEpoch: u64(1)})
	h.seq++
	sn, err := attachwire.NewSnapshot(h.seq-1, screen(99, "wrong epoch"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := sn.Frame(h.seq, h.seq)
	if err != nil {
		t.Fatal(err)
	}
	h.send(f)
	h.output("after")
	got := relaytest.NextFrame(t, v)
	if got.Type != attachwire.TypeOutput || got.Seq != 2 || len(got.Payload) != 0 {
		t.Fatalf("got %s seq %d %q, want an empty Output at seq 2", got.Type, got.Seq, got.Payload)
	}
	if next := relaytest.NextFrame(t, v); next.Seq != 3 || outputOf(t, next) != "after" {
		t.Fatalf("then seq %d %q", next.Seq, next.Payload)
	}
}
