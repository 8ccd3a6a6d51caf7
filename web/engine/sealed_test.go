package engine

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
)

// sealedPair returns a sealed engine for room "s" and the host's sealer.
func sealedPair(t *testing.T) (*Engine, *seal.Room) {
	t.Helper()
	k, err := seal.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return New(Options{SessionID: "s", ConnID: me, Driver: true, Key: k}), seal.NewRoom(k, "s")
}

// sealMsg seals the encoded frame msg at epoch 5.
func sealMsg(t *testing.T, r *seal.Room, msg []byte) []byte {
	t.Helper()
	f, err := attachwire.DecodeFrame(msg)
	if err != nil {
		t.Fatal(err)
	}
	sf, err := r.Seal(f, 5)
	return wire(t, sf, err)
}

func integrityEvents(evs []Event) (lines int, final bool, resync bool) {
	for _, ev := range evs {
		switch {
		case ev.Kind == Error && ev.Text == CodeIntegrity && ev.Final:
			final = true
		case ev.Kind == Error && ev.Text == CodeIntegrity:
			lines++
		case ev.Kind == Send && ev.Frame.Type == attachwire.TypeControl:
			c, _ := attachwire.DecodeControl(ev.Frame.Payload)
			if r, ok := c.(attachwire.ResumeFrom); ok && r.Seq == 0 {
				resync = true
			}
		}
	}
	return lines, final, resync
}

// TestSealedStream: a sealed leg states its key id, opens and draws the
// host's sealed frames, and seals its Input.
func TestSealedStream(t *testing.T) {
	e, host := sealedPair(t)
	subs, err := e.Subscribe(80, 24)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := attachwire.DecodeControl(subs[0].Payload)
	if sub := c.(attachwire.Subscribe); sub.Sealed != host.Key().ID().String() {
		t.Fatalf("subscribe states %q", sub.Sealed)
	}
	apply(t, e, sealMsg(t, host, snapshotMsg(t, 0, 1, screen(t, 5, 10, 2, "hello"))))
	evs := apply(t, e, sealMsg(t, host, outputMsg(t, 2, "world")))
	if written(evs) != "world" {
		t.Fatalf("wrote %q", written(evs))
	}
	mk, _ := attachwire.Marker{Label: "$ make"}.Frame(3, 0)
	evs = apply(t, e, sealMsg(t, host, wire(t, mk, nil)))
	if len(evs) != 1 || evs[0].Kind != Marker || evs[0].Text != "$ make" {
		t.Fatalf("marker events %+v", evs)
	}
	apply(t, e, controlMsg(t, attachwire.PenGranted{UserID: "u", ConnID: me, PenGeneration: 1}))
	in, err := e.Input([]byte("secret"))
	if err != nil || len(in) != 1 {
		t.Fatalf("Input: %v %d", err, len(in))
	}
	if bytes.Contains(in[0].Payload, []byte("secret")) {
		t.Fatal("input sent in the clear")
	}
	opened, err := host.Open(in[0], 5)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := attachwire.DecodeInput(opened.Payload); string(d.Data) != "secret" {
		t.Errorf("host opens %q", d.Data)
	}
	x := attachwire.Exit{Code: 3}.Frame(4, 0)
	evs = apply(t, e, sealMsg(t, host, wire(t, x, nil)))
	if len(evs) != 1 || evs[0].Kind != Exit || evs[0].Code != 3 || !e.Ended() {
		t.Fatalf("exit events %+v", evs)
	}
}

// TestSealedTamper: a frame that fails to open (a flipped bit, a frame
// moved to another seq, a plain frame in a sealed leg, another room's
// frame) is never drawn; the engine says so in one line and asks for a
// snapshot, which repaints; the third failure in a row ends the leg.
func TestSealedTamper(t *testing.T) {
	e, host := sealedPair(t)
	apply(t, e, sealMsg(t, host, snapshotMsg(t, 0, 1, screen(t, 5, 10, 2, "hello"))))

	good := sealMsg(t, host, outputMsg(t, 2, "MARK-one"))
	flipped := bytes.Clone(good)
	flipped[len(flipped)-1] ^= 1
	evs := apply(t, e, flipped)
	if lines, final, resync := integrityEvents(evs); lines != 1 || final || !resync || written(evs) != "" {
		t.Fatalf("flipped: %+v", evs)
	}
	// Frames after the dropped one wait for the snapshot.
	if evs := apply(t, e, sealMsg(t, host, outputMsg(t, 3, "MARK-two"))); written(evs) != "" {
		t.Fatalf("a frame after the failure was drawn: %q", written(evs))
	}
	evs = apply(t, e, sealMsg(t, host, snapshotMsg(t, 0, 3, screen(t, 5, 10, 2, "fresh"))))
	if !bytes.Contains([]byte(written(evs)), []byte("fresh")) {
		t.Fatalf("the resync snapshot did not repaint: %q", written(evs))
	}

	// Another seq: the frame sealed for 2 replayed at 4.
	f, _ := attachwire.DecodeFrame(good)
	f.Seq = 4
	evs = apply(t, e, wire(t, f, nil))
	if lines, _, _ := integrityEvents(evs); lines != 1 || written(evs) != "" {
		t.Fatalf("replayed at another seq: %+v", evs)
	}
	apply(t, e, sealMsg(t, host, snapshotMsg(t, 0, 3, screen(t, 5, 10, 2, "fresh"))))
	// A plain frame, which a relay without the key could make up.
	evs = apply(t, e, outputMsg(t, 4, "MARK-plain"))
	lines, final, _ := integrityEvents(evs)
	if written(evs) != "" || lines != 0 || !final {
		t.Fatalf("third failure: %+v", evs)
	}

	// Another room under the same key: spliced frames fail too.
	e2, host2 := sealedPair(t)
	other := seal.NewRoom(host2.Key(), "other")
	apply(t, e2, sealMsg(t, host2, snapshotMsg(t, 0, 1, screen(t, 5, 10, 2, "x"))))
	evs = apply(t, e2, sealMsg(t, other, outputMsg(t, 2, "MARK-spliced")))
	if lines, _, _ := integrityEvents(evs); lines != 1 || written(evs) != "" {
		t.Fatalf("spliced: %+v", evs)
	}
	// A tampered snapshot is not painted either.
	snap := sealMsg(t, host2, snapshotMsg(t, 0, 1, screen(t, 5, 10, 2, "MARK-snap")))
	snap[len(snap)-3] ^= 0x40
	evs = apply(t, e2, snap)
	if lines, _, _ := integrityEvents(evs); lines != 1 || written(evs) != "" {
		t.Fatalf("tampered snapshot: %+v", evs)
	}
}

// TestSealedFailuresForgiven: failures far apart each cost a
// resynchronisation, not the leg.
func TestSealedFailuresForgiven(t *testing.T) {
	e, host := sealedPair(t)
	seq := uint64(1)
	apply(t, e, sealMsg(t, host, snapshotMsg(t, 0, 1, screen(t, 5, 10, 2, "x"))))
	seq = 2
	for round := range MaxOpenFailures + 2 {
		for range openedToForgive {
			if evs := apply(t, e, sealMsg(t, host, outputMsg(t, seq, "."))); written(evs) != "." {
				t.Fatalf("round %d seq %d: %+v", round, seq, evs)
			}
			seq++
		}
		evs := apply(t, e, outputMsg(t, seq, "plain"))
		if _, final, _ := integrityEvents(evs); final {
			t.Fatalf("round %d: a failure after %d good frames ended the leg", round, openedToForgive)
		}
		apply(t, e, sealMsg(t, host, snapshotMsg(t, 0, seq-1, screen(t, 5, 10, 2, "x"))))
	}
}

// sealFinalMsg seals the post-Exit snapshot (seq 0, atSeq exitSeq) at
// epoch 5 as a host does, bound to exitSeq-1; before re-encodes it at
// exitSeq-1, as a relay serves it with the Exit frame after it.
func sealFinalMsg(t *testing.T, r *seal.Room, exitSeq uint64, text string, before bool) []byte {
	t.Helper()
	f, err := attachwire.DecodeFrame(snapshotMsg(t, 0, exitSeq, screen(t, 5, 10, 2, text)))
	if err != nil {
		t.Fatal(err)
	}
	sf, err := r.SealFinal(f, 5)
	if err != nil {
		t.Fatal(err)
	}
	if before {
		s, err := attachwire.DecodeSnapshot(sf.Payload)
		if err != nil {
			t.Fatal(err)
		}
		s.AtSeq--
		if sf.Payload, err = attachwire.AppendSnapshot(nil, s); err != nil {
			t.Fatal(err)
		}
	}
	return wire(t, sf, nil)
}

// TestSealedFinalWaitsForTheExit: a sealed leg given the final screen
// (the room ended at the Exit's seq) has not ended until the Exit frame
// comes, so it learns the session's status: whether the relay serves
// that screen re-encoded at the seq before Exit, as it should, or as the
// host sealed it, at the Exit's own seq (a relay that lost the Exit
// frame), which opens at the seq before Exit and is neither an integrity
// failure nor the end.
func TestSealedFinalWaitsForTheExit(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before bool
	}{{"re-encoded before the Exit", true}, {"as the host sealed it", false}} {
		t.Run(tc.name, func(t *testing.T) {
			e, host := sealedPair(t)
			apply(t, e, sealMsg(t, host, snapshotMsg(t, 0, 1, screen(t, 5, 10, 2, "run"))))
			apply(t, e, controlMsg(t, attachwire.RoomState{State: attachwire.RoomEnded, SinceSeq: new(uint64(4))}))
			evs := apply(t, e, sealFinalMsg(t, host, 4, "bye", tc.before))
			if lines, final, _ := integrityEvents(evs); lines != 0 || final {
				t.Fatalf("the final screen failed to open: %+v", evs)
			}
			if !strings.Contains(written(evs), "bye") {
				t.Fatalf("the final screen was not painted: %q", written(evs))
			}
			if seq, _, _ := e.Applied(); seq != 3 || e.Ended() {
				t.Fatalf("after the final screen: applied %d, ended %v; want 3, not ended", seq, e.Ended())
			}
			evs = apply(t, e, sealMsg(t, host, wire(t, attachwire.Exit{Code: 9}.Frame(4, 0), nil)))
			if len(evs) != 1 || evs[0].Kind != Exit || evs[0].Code != 9 || !e.Ended() {
				t.Fatalf("exit events %+v, ended %v", evs, e.Ended())
			}
		})
	}
}
