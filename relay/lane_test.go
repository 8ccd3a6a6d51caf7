package relay_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/token"
)

// laneHost is a host on the degraded lane: SSE down, batches up.
type laneHost struct {
	t     testing.TB
	s     *relaytest.Server
	sse   *relaytest.SSE
	tok   string
	epoch uint64
	seq   uint64
	n     int // batches sent, for batchIds
}

// openLaneHost binds a lane host for room and returns it after the
// relay's resync request and an accepted subscribe batch.
func openLaneHost(t testing.TB, s *relaytest.Server, epoch uint64) *laneHost {
	t.Helper()
	tok := s.HostToken(t, room, epoch)
	sse, resp, err := relaytest.DialSSE(ctxT(t), relaytest.LaneURL(s.RoomURL(room), fmt.Sprintf("/host/sse?epoch=%d", epoch)), tok)
	if err != nil {
		t.Fatalf("host sse: %v (%v)", err, resp)
	}
	t.Cleanup(sse.Close)
	h := &laneHost{t: t, s: s, sse: sse, tok: tok, epoch: epoch}
	if r := expectSSE[attachwire.SnapshotRequest](t, sse); r.Reason != attachwire.SnapshotResync {
		t.Fatalf("first snapshot_request %q, want resync", r.Reason)
	}
	sub := relaytest.B64Control(t, attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleHost, Epoch: u64(epoch)})
	if a := h.ok(attachwire.HostBatch{BatchID: h.id(), OutOfSeq: []string{sub}}); a.AckSeq != 0 {
		t.Fatalf("subscribe batch acked %d", a.AckSeq)
	}
	return h
}

func (h *laneHost) id() string { h.n++; return fmt.Sprintf("h%d", h.n) }

func (h *laneHost) post(b attachwire.HostBatch) relaytest.PostResult {
	h.t.Helper()
	return postLane(h.t, h.s, "/host/output", h.tok, b)
}

func postLane(t testing.TB, s *relaytest.Server, ep, tok string, b any) relaytest.PostResult {
	t.Helper()
	r, err := relaytest.Post(ctxT(t), relaytest.LaneURL(s.RoomURL(room), ep), tok, b)
	if err != nil {
		t.Fatalf("POST %s: %v", ep, err)
	}
	return r
}

// ok posts b and wants a 200.
func (h *laneHost) ok(b attachwire.HostBatch) attachwire.HostBatchAnswer {
	h.t.Helper()
	r := h.post(b)
	if r.Status != http.StatusOK {
		h.t.Fatalf("host batch %s: status %d %s", b.BatchID, r.Status, r.Body)
	}
	var a attachwire.HostBatchAnswer
	if err := json.Unmarshal(r.Body, &a); err != nil || a.BatchID != b.BatchID {
		h.t.Fatalf("host batch answer %s: %v", r.Body, err)
	}
	return a
}

// frames makes a batch of frames (numbered by their own seqs).
func (h *laneHost) frames(fs ...attachwire.Frame) attachwire.HostBatch {
	b := attachwire.HostBatch{BatchID: h.id(), FirstSeq: fs[0].Seq, LastSeq: fs[len(fs)-1].Seq}
	for _, f := range fs {
		b.Frames = append(b.Frames, relaytest.B64(h.t, f))
	}
	return b
}

func (h *laneHost) output(p string) attachwire.Frame {
	h.seq++
	return attachwire.NewOutputFrame(h.seq, h.seq, []byte(p))
}

func (h *laneHost) snapshotFrame(text string, seq, atSeq uint64) attachwire.Frame {
	h.t.Helper()
	sn, err := attachwire.NewSnapshot(atSeq, screen(h.epoch, text))
	if err != nil {
		h.t.Fatal(err)
	}
	f, err := sn.Frame(seq, seq)
	if err != nil {
		h.t.Fatal(err)
	}
	return f
}

func (h *laneHost) snapshot(text string) attachwire.Frame {
	h.seq++
	return h.snapshotFrame(text, h.seq, h.seq-1)
}

// nextSSECtx returns the next frame on an SSE leg, failing at ctx's end.
func nextSSECtx(t testing.TB, ctx context.Context, s *relaytest.SSE) attachwire.Frame {
	t.Helper()
	f, err := s.NextFrame(ctx)
	if err != nil {
		t.Fatalf("sse: %v", err)
	}
	return f
}

// expectSSE skips frames until a control of type T.
func expectSSE[T attachwire.Control](t testing.TB, s *relaytest.SSE) T {
	t.Helper()
	ctx := ctxT(t)
	for {
		f := nextSSECtx(t, ctx, s)
		if f.Type != attachwire.TypeControl {
			continue
		}
		c, err := attachwire.DecodeControl(f.Payload)
		if err != nil {
			t.Fatalf("sse control: %v", err)
		}
		if v, ok := c.(T); ok {
			return v
		}
	}
}

// nextSSEOf skips controls until a frame of type typ.
func nextSSEOf(t testing.TB, s *relaytest.SSE, typ attachwire.FrameType) attachwire.Frame {
	t.Helper()
	ctx := ctxT(t)
	for {
		f := nextSSECtx(t, ctx, s)
		if f.Type == typ {
			return f
		}
		if f.Type != attachwire.TypeControl {
			t.Fatalf("sse: got %s seq %d, want %s", f.Type, f.Seq, typ)
		}
	}
}

// openLaneViewer opens a viewer SSE leg with the attach token in the header.
func openLaneViewer(t testing.TB, s *relaytest.Server, tok, query string) *relaytest.SSE {
	t.Helper()
	sse, resp, err := relaytest.DialSSE(ctxT(t), relaytest.LaneURL(s.RoomURL(room), "/sse"+query), tok)
	if err != nil {
		t.Fatalf("viewer sse: %v (%v)", err, resp)
	}
	t.Cleanup(sse.Close)
	return sse
}

func inputB64(t testing.TB, seq, gen uint64, data string) string {
	return relaytest.B64(t, attachwire.Input{InputSeq: seq, PenGeneration: gen, Data: []byte(data)}.Frame(0, 0))
}

func viewerAnswer(t testing.TB, r relaytest.PostResult, want int) attachwire.ViewerBatchAnswer {
	t.Helper()
	if r.Status != want {
		t.Fatalf("viewer batch: status %d %s, want %d", r.Status, r.Body, want)
	}
	var a attachwire.ViewerBatchAnswer
	if err := json.Unmarshal(r.Body, &a); err != nil {
		t.Fatalf("viewer batch answer %s: %v", r.Body, err)
	}
	return a
}

// The whole session over the lane: a lane host and a lane driver see
// output, input (stamped), resize, snapshot, Exit and the post-Exit
// snapshot, while a WebSocket viewer sees room_state degraded.
func TestLaneSession(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	ws := dialViewer(t, s, s.ViewerToken(t, room, "wendy"), attachwire.RoleViewer, attachwire.Subscribe{})
	if st := relaytest.ExpectControl[attachwire.RoomState](t, ws); st.State != attachwire.RoomHostReconnecting {
		t.Fatalf("room_state %q before the host", st.State)
	}
	h := openLaneHost(t, s, 1)
	if st := relaytest.ExpectControl[attachwire.RoomState](t, ws); st.State != attachwire.RoomDegraded {
		t.Fatalf("room_state %q with a lane host, want degraded", st.State)
	}
	if a := h.ok(h.frames(h.snapshot("hi"), h.output("hello"))); a.AckSeq != 2 {
		t.Fatalf("ack %d, want 2", a.AckSeq)
	}

	dtok := s.DriverToken(t, room, "alice")
	d := openLaneViewer(t, s, dtok, "")
	if st := expectSSE[attachwire.RoomState](t, d); st.State != attachwire.RoomDegraded {
		t.Fatalf("lane driver sees room_state %q", st.State)
	}
	grant := expectSSE[attachwire.PenGranted](t, d)
	snap := nextSSEOf(t, d, attachwire.TypeSnapshot)
	if _, scr := snapshotOf(t, snap); text(scr) != "hi" {
		t.Fatalf("snapshot %q", text(scr))
	}
	if got := outputOf(t, nextSSEOf(t, d, attachwire.TypeOutput)); got != "hello" {
		t.Fatalf("output %q", got)
	}

	// Up: a resize (the pen holder's viewport) and two keystrokes.
	rs, _ := attachwire.Resize{Cols: 100, Rows: 30}.Frame(0, 0)
	a := viewerAnswer(t, postLane(t, s, "/input", dtok, attachwire.ViewerBatch{BatchID: "d1",
		FirstInputSeq: u64(1), LastInputSeq: u64(2),
		Inputs:   []string{inputB64(t, 1, grant.PenGeneration, "l"), inputB64(t, 2, grant.PenGeneration, "s")},
		Controls: []string{relaytest.B64(t, rs)}}), http.StatusOK)
	if a.AckInputSeq != 2 {
		t.Fatalf("ackInputSeq %d, want 2", a.AckInputSeq)
	}
	got := nextSSEOf(t, h.sse, attachwire.TypeResize)
	if r, _ := attachwire.DecodeResize(got.Payload); r.Cols != 100 || r.Rows != 30 {
		t.Fatalf("host resize %+v", r)
	}
	var keys string
	for range 2 {
		in, err := attachwire.DecodeInput(nextSSEOf(t, h.sse, attachwire.TypeInput).Payload)
		if err != nil || in.UserID != "alice" {
			t.Fatalf("host input %+v %v, want stamped alice", in, err)
		}
		keys += string(in.Data)
	}
	if keys != "ls" {
		t.Fatalf("host got %q", keys)
	}

	// Exit, then the post-Exit snapshot the relay asks for.
	exit := h.seq + 1
	h.seq = exit
	h.ok(h.frames(attachwire.Exit{Code: 0}.Frame(exit, exit)))
	if f := nextSSEOf(t, d, attachwire.TypeExit); f.Seq != exit {
		t.Fatalf("exit seq %d", f.Seq)
	}
	if st := relaytest.ExpectControl[attachwire.RoomState](t, ws); st.State != attachwire.RoomEnded {
		t.Fatalf("room_state %q after Exit", st.State)
	}
	expectSSE[attachwire.SnapshotRequest](t, h.sse)
	final := h.snapshotFrame("bye", 0, exit)
	h.ok(attachwire.HostBatch{BatchID: h.id(), OutOfSeq: []string{relaytest.B64(t, final)}})
	testkit.Eventually(t, "a late lane viewer gets the final screen, then the Exit", func() bool {
		v := openLaneViewer(t, s, s.ViewerToken(t, room, "late"), "")
		defer v.Close()
		f := nextSSECtx(t, ctxT(t), v)
		for f.Type == attachwire.TypeControl {
			f = nextSSECtx(t, ctxT(t), v)
		}
		if f.Type != attachwire.TypeSnapshot || f.Seq != 0 {
			return false // the final snapshot is not cached yet: an in-ring one came
		}
		if sn, scr := snapshotOf(t, f); sn.AtSeq != exit-1 || text(scr) != "bye" {
			t.Fatalf("late lane viewer's final screen: atSeq %d %q, want %d \"bye\"", sn.AtSeq, text(scr), exit-1)
		}
		f = nextSSEOf(t, v, attachwire.TypeExit)
		ex, err := attachwire.DecodeExit(f.Payload)
		return err == nil && f.Seq == exit && ex.Code == 0
	})
}

// Every status of the host's POST-up: 200, an idempotent replay, 409 at a
// gap with the ack to resend from, gapFrom accepted (ring truncated, a
// resync asked), 400, 401, 410 for a token of no live leg.
func TestLaneHostPostStatuses(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := openLaneHost(t, s, 1)
	h.ok(h.frames(h.snapshot("a")))
	b := h.frames(h.output("x"), h.output("y"))
	if a := h.ok(b); a.AckSeq != 3 {
		t.Fatalf("ack %d", a.AckSeq)
	}
	v := openLaneViewer(t, s, s.ViewerToken(t, room, "v"), "?resume_from=1&epoch=1")
	if got := outputOf(t, nextSSEOf(t, v, attachwire.TypeOutput)); got != "x" {
		t.Fatalf("resumed at %q", got)
	}
	nextSSEOf(t, v, attachwire.TypeOutput)
	// Replay: same batchId, same answer, nothing twice.
	if a := h.ok(b); a.AckSeq != 3 {
		t.Fatalf("replay ack %d", a.AckSeq)
	}
	// Replay of the same seqs under a new batchId: dropped by seq.
	b.BatchID = h.id()
	h.ok(b)
	if a := h.ok(h.frames(h.output("z"))); a.AckSeq != 4 {
		t.Fatalf("ack %d", a.AckSeq)
	}
	if got := outputOf(t, nextSSEOf(t, v, attachwire.TypeOutput)); got != "z" {
		t.Fatalf("viewer got %q after the replays, want z", got)
	}

	// A gap: 409 with the ack, nothing applied, batchId not consumed.
	h.seq = 9
	gap := h.frames(h.output("late"))
	r := h.post(gap)
	var ans attachwire.HostBatchAnswer
	if r.Status != http.StatusConflict || json.Unmarshal(r.Body, &ans) != nil || ans.AckSeq != 4 || ans.BatchID != gap.BatchID {
		t.Fatalf("gap: %d %s, want 409 ackSeq 4", r.Status, r.Body)
	}
	// The host cannot rewind: the same batch with gapFrom.
	gap.GapFrom = u64(10)
	if a := h.ok(gap); a.AckSeq != 10 {
		t.Fatalf("gapFrom ack %d, want 10", a.AckSeq)
	}
	// The request is coalesced: the viewer left behind the gap may have
	// asked (ring-miss) over the relay's own resync.
	if req := expectSSE[attachwire.SnapshotRequest](t, h.sse); req.Reason != attachwire.SnapshotResync && req.Reason != attachwire.SnapshotRingMiss {
		t.Fatalf("after gapFrom: snapshot_request %q", req.Reason)
	}
	// The viewer is past the gap: it waits for a snapshot, which the host sends.
	h.ok(h.frames(h.snapshot("b")))
	if f := nextSSEOf(t, v, attachwire.TypeSnapshot); f.Seq != 11 {
		t.Fatalf("viewer snapshot seq %d", f.Seq)
	}

	if r := h.post(attachwire.HostBatch{BatchID: "bad", FirstSeq: 12, LastSeq: 13, Frames: []string{"!!"}}); r.Status != http.StatusBadRequest {
		t.Errorf("bad batch: %d", r.Status)
	}
	if r := postLane(t, s, "/host/output", "nope", attachwire.HostBatch{BatchID: "x"}); r.Status != http.StatusUnauthorized {
		t.Errorf("bad token: %d", r.Status)
	}
	if r := postLane(t, s, "/host/output", s.HostToken(t, room, 1), attachwire.HostBatch{BatchID: "x"}); r.Status != http.StatusGone {
		t.Errorf("token of no live leg: %d, want 410", r.Status)
	}
	// A stale epoch on the SSE GET: 409.
	_, resp, err := relaytest.DialSSE(ctxT(t), relaytest.LaneURL(s.RoomURL(room), "/host/sse"), s.HostToken(t, room, 0))
	if err == nil || resp.StatusCode != http.StatusConflict {
		t.Errorf("stale host sse: %v %v, want 409", err, resp)
	}
}

// Every status of a viewer's POST-up: 200, replay, 409 at a gap, 429 with
// Retry-After when the host's input queue is full (and the retry resumes
// after what was queued), 401, 410.
func TestLaneViewerPostStatuses(t *testing.T) {
	cfg := quiet()
	cfg.HostQueueFrames = 2
	s := relaytest.NewServer(t, cfg)
	dtok := s.DriverToken(t, room, "alice")
	d := openLaneViewer(t, s, dtok, "")
	gen := expectSSE[attachwire.PenGranted](t, d).PenGeneration
	// A host binds epoch 1 and goes: input now queues for its return.
	h0 := openLaneHost(t, s, 1)
	for expectSSE[attachwire.RoomState](t, d).State != attachwire.RoomDegraded {
	}
	h0.sse.Close()
	for expectSSE[attachwire.RoomState](t, d).State != attachwire.RoomHostReconnecting {
	}
	batch := func(id string, first uint64, keys ...string) attachwire.ViewerBatch {
		b := attachwire.ViewerBatch{BatchID: id, FirstInputSeq: u64(first), LastInputSeq: u64(first + uint64(len(keys)) - 1)}
		for i, k := range keys {
			b.Inputs = append(b.Inputs, inputB64(t, first+uint64(i), gen, k))
		}
		return b
	}
	post := func(b attachwire.ViewerBatch) relaytest.PostResult { return postLane(t, s, "/input", dtok, b) }

	one := batch("b1", 1, "a")
	if a := viewerAnswer(t, post(one), http.StatusOK); a.AckInputSeq != 1 {
		t.Fatalf("ack %d", a.AckInputSeq)
	}
	if a := viewerAnswer(t, post(one), http.StatusOK); a.AckInputSeq != 1 {
		t.Fatalf("replay ack %d", a.AckInputSeq)
	}
	if a := viewerAnswer(t, post(batch("b2", 5, "e")), http.StatusConflict); a.AckInputSeq != 1 {
		t.Fatalf("gap ack %d, want 1", a.AckInputSeq)
	}
	// No host takes input: the queue (2) fills at the third key.
	three := batch("b3", 2, "b", "c", "d")
	r := post(three)
	if r.Status != http.StatusTooManyRequests || r.RetryAfter == "" {
		t.Fatalf("full queue: %d Retry-After %q, want 429 with one", r.Status, r.RetryAfter)
	}
	// The host is back (same epoch: the queue is kept) and drains it: the
	// retry of the same batch resumes after the queued key.
	// Until the host has drained the queue the retry may still meet 429,
	// and a client then waits and retries, as here.
	h := openLaneHost(t, s, 1)
	retry := post(three)
	for deadline := time.Now().Add(relaytest.Timeout); retry.Status == http.StatusTooManyRequests && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		retry = post(three)
	}
	if a := viewerAnswer(t, retry, http.StatusOK); a.AckInputSeq != 4 {
		t.Fatalf("retry ack %d, want 4", a.AckInputSeq)
	}
	var keys string
	for range 4 {
		in, _ := attachwire.DecodeInput(nextSSEOf(t, h.sse, attachwire.TypeInput).Payload)
		keys += string(in.Data)
	}
	if keys != "abcd" {
		t.Fatalf("host got %q, want abcd (no key lost or doubled)", keys)
	}
	if r := postLane(t, s, "/input", "nope", one); r.Status != http.StatusUnauthorized {
		t.Errorf("bad token: %d", r.Status)
	}
	if r := postLane(t, s, "/input", s.DriverToken(t, room, "alice"), one); r.Status != http.StatusGone {
		t.Errorf("another jti than the SSE leg's: %d, want 410", r.Status)
	}
}

// One live logical connection per jti across the two halves: a second SSE
// leg or a WebSocket dial with the token of a live SSE leg is refused;
// after the SSE leg ends its POSTs get 410 and the jti may reconnect.
func TestLaneOneLiveLegPerJTI(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	tok := s.ViewerToken(t, room, "v")
	v := openLaneViewer(t, s, tok, "")
	expectSSE[attachwire.RoomState](t, v)
	if _, resp, err := relaytest.DialSSE(ctxT(t), relaytest.LaneURL(s.RoomURL(room), "/sse"), tok); err == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("second SSE leg with one jti: %v %v, want 401", err, resp)
	}
	ws, _, err := relaytest.Dial(ctxT(t), s.RoomURL(room), tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	ws.SendControl(ctxT(t), attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer})
	expectClosed(t, ws, 1008, attachwire.CodeAuth)
	ctl := attachwire.ViewerBatch{BatchID: "c1", Controls: []string{relaytest.B64Control(t, attachwire.Grab{})}}
	if r := postLane(t, s, "/input", tok, ctl); r.Status != http.StatusOK {
		t.Fatalf("control-only batch: %d %s", r.Status, r.Body)
	}
	if e := expectSSE[attachwire.ErrorControl](t, v); e.Code != attachwire.CodePenDenied {
		t.Fatalf("a viewer's grab: %+v", e)
	}
	v.Close()
	testkit.Eventually(t, "the POST half is gone with the SSE half", func() bool {
		return postLane(t, s, "/input", tok, attachwire.ViewerBatch{BatchID: "c2"}).Status == http.StatusGone
	})
	// The jti is freed as the SSE leg's handler returns, a moment after
	// the POST half answers 410: the same token then reopens.
	var v2 *relaytest.SSE
	testkit.Eventually(t, "the same token to reopen the lane", func() bool {
		sse, _, err := relaytest.DialSSE(ctxT(t), relaytest.LaneURL(s.RoomURL(room), "/sse"), tok)
		v2 = sse
		return err == nil
	})
	t.Cleanup(v2.Close)
	expectSSE[attachwire.RoomState](t, v2)
}

// A browser trades its attach token for a ticket and opens the SSE leg
// with ?ticket=; the ticket works once, an attach token is no ticket, and
// neither reaches the logs.
func TestLaneTicket(t *testing.T) {
	var logs testkit.Buffer
	cfg := quiet()
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s := relaytest.NewServer(t, cfg)
	dtok := s.DriverToken(t, room, "alice")
	r := postLane(t, s, "/sse-ticket", dtok, struct{}{})
	var tr struct {
		Ticket    string `json:"ticket"`
		ExpiresAt int64  `json:"expiresAt"`
	}
	if r.Status != http.StatusOK || json.Unmarshal(r.Body, &tr) != nil || tr.Ticket == "" {
		t.Fatalf("sse-ticket: %d %s", r.Status, r.Body)
	}
	if ttl := tr.ExpiresAt - time.Now().Unix(); ttl > 31 || ttl < 20 {
		t.Errorf("ticket lives %d s", ttl)
	}
	url := relaytest.LaneURL(s.RoomURL(room), "/sse?ticket="+tr.Ticket)
	v, _, err := relaytest.DialSSE(ctxT(t), url, "")
	if err != nil {
		t.Fatalf("sse with ticket: %v", err)
	}
	defer v.Close()
	gen := expectSSE[attachwire.PenGranted](t, v).PenGeneration
	// The POSTs carry the attach token with the ticket's jti.
	b := attachwire.ViewerBatch{BatchID: "k", FirstInputSeq: u64(1), LastInputSeq: u64(1), Inputs: []string{inputB64(t, 1, gen, "q")}}
	viewerAnswer(t, postLane(t, s, "/input", dtok, b), http.StatusOK)

	if _, resp, err := relaytest.DialSSE(ctxT(t), url, ""); err == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("ticket reuse: %v %v, want 401", err, resp)
	}
	v.Close()
	// Still refused once the leg is gone: the tid is burned, not the jti.
	if _, resp, err := relaytest.DialSSE(ctxT(t), url, ""); err == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("ticket reuse after the leg: %v %v, want 401", err, resp)
	}
	if _, resp, err := relaytest.DialSSE(ctxT(t), relaytest.LaneURL(s.RoomURL(room), "/sse?ticket="+dtok), ""); err == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("attach token as a ticket: %v %v, want 401", err, resp)
	}
	// A ticket refused later (wrong room) is burned all the same.
	r = postLane(t, s, "/sse-ticket", dtok, nil)
	json.Unmarshal(r.Body, &tr)
	if _, resp, err := relaytest.DialSSE(ctxT(t), s.HTTPURL+"/v1/rooms/other/sse?ticket="+tr.Ticket, ""); err == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("ticket at another room: %v %v, want 403", err, resp)
	}
	if _, resp, err := relaytest.DialSSE(ctxT(t), relaytest.LaneURL(s.RoomURL(room), "/sse?ticket="+tr.Ticket), ""); err == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("ticket refused once, then presented right: %v %v, want 401 (burned)", err, resp)
	}
	other := s.Token(t, token.Claims{RoomID: "other", Role: attachwire.RoleViewer, UserID: "v"})
	if r := postLane(t, s, "/sse-ticket", other, nil); r.Status != http.StatusForbidden {
		t.Errorf("ticket for another room's token: %d", r.Status)
	}
	if r := postLane(t, s, "/sse-ticket", s.HostToken(t, room, 1), nil); r.Status != http.StatusForbidden {
		t.Errorf("ticket for a host token: %d", r.Status)
	}
	for _, secret := range []string{tr.Ticket, dtok, "ticket="} {
		if strings.Contains(logs.String(), secret[:min(len(secret), 40)]) {
			t.Errorf("the logs hold %q", secret[:min(len(secret), 40)])
		}
	}
}

// The SSE stream carries ": heartbeat" comments.
func TestLaneHeartbeat(t *testing.T) {
	cfg := quiet()
	cfg.SSEHeartbeat = 20 * time.Millisecond
	s := relaytest.NewServer(t, cfg)
	v := openLaneViewer(t, s, s.ViewerToken(t, room, "v"), "")
	for {
		e, err := v.Next(ctxT(t))
		if err != nil {
			t.Fatalf("no heartbeat: %v", err)
		}
		if e.IsComment {
			if e.Comment != "heartbeat" {
				t.Fatalf("comment %q", e.Comment)
			}
			return
		}
	}
}

// The lane endpoints are served only with the right method; a bad
// resume_from is 400.
func TestLaneRefusals(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	if _, resp, err := relaytest.DialSSE(ctxT(t), relaytest.LaneURL(s.RoomURL(room), "/sse?resume_from=x"), s.ViewerToken(t, room, "v")); err == nil || resp.StatusCode != http.StatusBadRequest {
		t.Errorf("bad resume_from: %v %v", err, resp)
	}
	if _, resp, err := relaytest.DialSSE(ctxT(t), relaytest.LaneURL(s.RoomURL(room), "/host/sse"), s.ViewerToken(t, room, "v")); err == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("viewer token on host/sse: %v %v", err, resp)
	}
	if _, resp, err := relaytest.DialSSE(ctxT(t), relaytest.LaneURL(s.RoomURL(room), "/host/sse?epoch=2"), s.HostToken(t, room, 1)); err == nil || resp.StatusCode != http.StatusBadRequest {
		t.Errorf("?epoch= differing from the claim: %v %v", err, resp)
	}
	if code, _ := s.Get(t, "/v1/rooms/"+room+"/input"); code != http.StatusNotFound {
		t.Errorf("GET …/input: %d", code)
	}
}

// A planned restart reaches lane legs as it reaches WebSocket ones: the
// host's stream ends with error relay-restarting, viewers get room_state
// host-reconnecting, Shutdown joins the lane legs, and a new SSE GET gets
// 503 with Retry-After.
func TestLaneShutdown(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := openLaneHost(t, s, 1)
	v := openLaneViewer(t, s, s.ViewerToken(t, room, "v"), "")
	for expectSSE[attachwire.RoomState](t, v).State != attachwire.RoomDegraded {
	}
	done := make(chan error, 1)
	go func() { done <- s.Relay.Shutdown(ctxT(t)) }()
	if e := expectSSE[attachwire.ErrorControl](t, h.sse); e.Code != attachwire.CodeRelayRestarting || !e.Retryable {
		t.Fatalf("host got %+v", e)
	}
	if st := expectSSE[attachwire.RoomState](t, v); st.State != attachwire.RoomHostReconnecting {
		t.Fatalf("viewer got room_state %q", st.State)
	}
	if err := <-done; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if _, err := v.NextFrame(ctxT(t)); err == nil {
		t.Fatal("the viewer's stream is still open after Shutdown")
	}
	_, resp, err := relaytest.DialSSE(ctxT(t), relaytest.LaneURL(s.RoomURL(room), "/sse"), s.ViewerToken(t, room, "w"))
	if err == nil || resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("GET while draining: %v %v, want 503 with Retry-After", err, resp)
	}
}

// A WebSocket host of a newer epoch supersedes a lane host: the lane
// stream ends with error epoch-stale, its POSTs get 410, the room is live.
func TestLaneHostSuperseded(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	ws := dialViewer(t, s, s.ViewerToken(t, room, "w"), attachwire.RoleViewer, attachwire.Subscribe{})
	h := openLaneHost(t, s, 1)
	for relaytest.ExpectControl[attachwire.RoomState](t, ws).State != attachwire.RoomDegraded {
	}
	dialHost(t, s, 2)
	if e := expectSSE[attachwire.ErrorControl](t, h.sse); e.Code != attachwire.CodeEpochStale {
		t.Fatalf("lane host got %+v", e)
	}
	if st := relaytest.ExpectControl[attachwire.RoomState](t, ws); st.State != attachwire.RoomLive {
		t.Fatalf("room_state %q with a WebSocket host, want live", st.State)
	}
	testkit.Eventually(t, "the superseded lane host's POST is refused", func() bool {
		return h.post(h.frames(h.output("stale"))).Status == http.StatusGone
	})
}

// A ticket minted by the platform (its key, not the relay's) is accepted.
func TestLanePlatformTicket(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	now := time.Now().Unix()
	raw, err := token.MintSSETicket(s.Key, token.Ticket{SessionID: room, RoomID: room, UserID: "p",
		Role: attachwire.RoleViewer, OrgID: relaytest.DefaultOrg, IssuedAt: now, ExpiresAt: now + 30,
		Audience: token.TicketAudience, JTI: "platform-jti", TID: "platform-tid"})
	if err != nil {
		t.Fatal(err)
	}
	v, _, err := relaytest.DialSSE(ctxT(t), relaytest.LaneURL(s.RoomURL(room), "/sse?ticket="+raw), "")
	if err != nil {
		t.Fatalf("platform ticket: %v", err)
	}
	defer v.Close()
	expectSSE[attachwire.RoomState](t, v)
}

// The dial rate covers lane GETs too: past DialsPerSecond, 429 with
// Retry-After (a WebSocket dial and an SSE GET share the budget).
func TestLaneDialRateLimited(t *testing.T) {
	cfg := quiet()
	cfg.DialsPerSecond = 1
	s := relaytest.NewServer(t, cfg)
	openLaneViewer(t, s, s.ViewerToken(t, room, "a"), "")
	_, resp, err := relaytest.DialSSE(ctxT(t), relaytest.LaneURL(s.RoomURL(room), "/sse"), s.ViewerToken(t, room, "b"))
	if err == nil || resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("second GET: %v %v, want 429 with Retry-After", err, resp)
	}
}
