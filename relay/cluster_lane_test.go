package relay_test

import (
	"net/http"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
)

// TestClusterLaneDriverOnAMirror: a driver on the degraded lane (SSE down,
// POST up) dialled to a node that does not hold the host follows the
// owner's room, as a WebSocket driver there does: it sees the room live,
// the host's screen and output, and the pen the owner grants it; its keys
// go to the owner and reach the host in order, once, however often a
// batch is sent again.
func TestClusterLaneDriverOnAMirror(t *testing.T) {
	nodes := startCluster(t, natsServer(t), "a", "b")
	a, b := nodes[0], nodes[1]
	h := dialHost(t, a.Server, 1)
	h.snapshot("hi")
	dtok := a.DriverToken(t, room, "alice")
	d := openLaneViewer(t, b.Server, dtok, "")
	if st := expectSSE[attachwire.RoomState](t, d); st.State != attachwire.RoomLive {
		t.Fatalf("the lane driver on the mirror sees room_state %q, want live", st.State)
	}
	grant := expectSSE[attachwire.PenGranted](t, d)
	if _, scr := snapshotOf(t, nextSSEOf(t, d, attachwire.TypeSnapshot)); text(scr) != "hi" {
		t.Fatalf("snapshot %q", text(scr))
	}
	h.output("after")
	if got := outputOf(t, nextSSEOf(t, d, attachwire.TypeOutput)); got != "after" {
		t.Fatalf("output %q", got)
	}

	batch := attachwire.ViewerBatch{BatchID: "d1", FirstInputSeq: u64(1), LastInputSeq: u64(2),
		Inputs: []string{inputB64(t, 1, grant.PenGeneration, "k1"), inputB64(t, 2, grant.PenGeneration, "k2")}}
	if a := viewerAnswer(t, postLane(t, b.Server, "/input", dtok, batch), http.StatusOK); a.AckInputSeq != 2 {
		t.Fatalf("ackInputSeq %d, want 2", a.AckInputSeq)
	}
	// The same keys again, as a client that lost the answer sends them.
	batch.BatchID = "d2"
	if a := viewerAnswer(t, postLane(t, b.Server, "/input", dtok, batch), http.StatusOK); a.AckInputSeq != 2 {
		t.Fatalf("ackInputSeq %d after the repeat, want 2", a.AckInputSeq)
	}
	batch = attachwire.ViewerBatch{BatchID: "d3", FirstInputSeq: u64(3), LastInputSeq: u64(3),
		Inputs: []string{inputB64(t, 3, grant.PenGeneration, "k3")}}
	if a := viewerAnswer(t, postLane(t, b.Server, "/input", dtok, batch), http.StatusOK); a.AckInputSeq != 3 {
		t.Fatalf("ackInputSeq %d, want 3", a.AckInputSeq)
	}
	for _, want := range []string{"k1", "k2", "k3"} {
		in, err := attachwire.DecodeInput(untilFrame(t, h.c, attachwire.TypeInput).Payload)
		if err != nil {
			t.Fatal(err)
		}
		if string(in.Data) != want || in.UserID != "alice" {
			t.Fatalf("the host got %q from %q, want %q from alice", in.Data, in.UserID, want)
		}
	}
}
