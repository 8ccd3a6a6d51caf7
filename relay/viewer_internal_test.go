package relay

import (
	"bytes"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
)

// A ring that holds the final screen but not the Exit frame (a mirror
// whose Exit message was lost on the way) serves a viewer the final
// screen once, then has nothing more for it until the Exit frame comes,
// which it then serves. Before, the cursor went on at seq 1 (the seq
// after an Exit never seen), fell off the ring's tail, and was served the
// final screen again, in a loop.
func TestFinalWithoutExitFrameIsServedOnce(t *testing.T) {
	rl := fuzzRelay(t)
	l := newLeg(rl, nil, attachwire.RoleViewer, "ann", "jti-1", rl.log)
	defer l.cancel()
	r := newRing(1 << 20)
	r.reset(7)
	for seq := uint64(3); seq <= 5; seq++ {
		w, err := attachwire.NewOutputFrame(seq, seq, []byte("x")).MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		r.append(seq, attachwire.TypeOutput, 0, w)
	}
	sn, err := attachwire.NewSnapshot(6, &attachwire.Screen{Epoch: 7, Cols: 1, Rows: 1, Primary: []attachwire.Cell{attachwire.BlankCell()}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := sn.Frame(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	final, err := f.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	r.setFinal(final)
	l.room = &room{ring: r}
	c := cursor{gen: r.gen, snap: attachwire.SnapshotJoin}
	if w, _, _ := l.nextWire(&c); !bytes.Equal(w, final) || c.then != nil {
		t.Fatalf("first: %x then %x, want the final snapshot alone (no Exit frame to follow)", w, c.then)
	}
	for i := range 3 {
		if w, wait, ask := l.nextWire(&c); w != nil || wait == nil || ask != "" {
			t.Fatalf("call %d after the final screen: %d bytes, wait %v, ask %q; want to wait for nothing", i, len(w), wait != nil, ask)
		}
	}
	exit, err := attachwire.Exit{Code: 2}.Frame(6, 6).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	r.append(6, attachwire.TypeExit, 0, exit)
	if w, _, _ := l.nextWire(&c); !bytes.Equal(w, exit) {
		t.Fatalf("once the Exit frame came: %x, want it", w)
	}
	if w, wait, _ := l.nextWire(&c); w != nil || wait == nil {
		t.Fatalf("after the Exit: %d bytes, want to wait", len(w))
	}
}
