package relay

import (
	"bytes"
	"encoding/hex"
	"reflect"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
)

// clusterWireSamples is one message of every kind, for the table test and
// the fuzz target's seeds.
func clusterWireSamples(t testing.TB) (ops []clusterOp, replies []joinReply, legs []legMsg) {
	in, err := attachwire.Input{InputSeq: 7, PenGeneration: 1 << 40, Data: []byte("ls\r")}.Frame(0, 0).MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	ctl, err := controlWire(attachwire.PenState{HolderUserID: "ann", PenGeneration: 3})
	if err != nil {
		t.Fatal(err)
	}
	ops = []clusterOp{
		{Op: opJoin, Node: "b", Leg: "l1", Role: attachwire.RoleDriver, User: "ann", JTI: "j1", Cols: 80, Rows: 24, Ack: 5},
		{Op: opJoin, Node: "b", Leg: "l2", Role: attachwire.RoleViewer, User: "guest-1", JTI: "j2", Name: "Ada", Guest: true, Exp: 1 << 33},
		{Op: opJoin, Node: "b", Leg: "l3", Role: attachwire.RoleViewer, User: "bo", JTI: "j3", Exp: 1 << 33, Sealed: "jKQ1EEj_HvM"},
		{Op: opLeave, Node: "b", Leg: "l1"},
		{Op: opInput, Node: "b", Leg: "l1", Wire: in},
		{Op: opResize, Node: "b", Leg: "l1", Cols: 132, Rows: 50},
		{Op: opGrab, Node: "b", Leg: "l1"},
		{Op: opRelease, Node: "b", Leg: "l1"},
		{Op: opJoin, Node: "b", Leg: "l3", Role: attachwire.RoleDriver, User: "guest-2", JTI: "j3", Propose: true, Guest: true},
		{Op: opDecide, Node: "b", Leg: "l1", Wire: []byte(`{"type":"decide"}`)},
		{Op: opPropose, Node: "b", Leg: "l3", Wire: []byte(`{"type":"propose"}`)},
		{Op: opSnapshot, Reason: string(attachwire.SnapshotResync)},
		{Op: opFetch, Node: "b"},
		{Op: opJoin, Node: "b", Leg: "l3", Role: attachwire.RoleViewer, User: "u", JTI: "j3", Guest: true, Counts: true},
		{Op: opPresence, Node: "b", Leg: "l3"},
		{Op: opJoin, Node: "b", Leg: "l4", Role: attachwire.RoleDriver, User: "dan", JTI: "j4", Ack: 3, Pen: 1 << 50, Held: true},
		{Op: opJoin, Node: "b", Leg: "l5", Role: attachwire.RoleViewer, User: "vic", JTI: "j5", Pen: 1 << 50, Sealed: "K"},
		{Op: opQueued, Node: "b", Wire: in},
	}
	replies = []joinReply{{Status: joinOK, Wires: [][]byte{ctl, ctl}}, {Status: joinFull}, {Status: joinClosed}, {Status: joinKicked}, {Status: joinSealed, Wires: [][]byte{ctl}}}
	legs = []legMsg{
		{Leg: "l1", Wire: ctl},
		{Leg: "l1", End: true, Code: 1008, Why: "epoch-stale", Wire: ctl},
		{Leg: "l1", End: true, Code: 1001, Why: "relay closing"},
		{Legs: []string{"l1", "l2", ""}, Wire: ctl},
	}
	return ops, replies, legs
}

// Each kind of cluster message decodes to what was encoded, and the
// encoding of a few is pinned byte for byte: nodes of one version must
// agree on it.
func TestClusterWire(t *testing.T) {
	ops, replies, legs := clusterWireSamples(t)
	for _, op := range ops {
		got, err := decodeClusterOp(appendClusterOp(nil, op))
		if err != nil || !reflect.DeepEqual(got, op) {
			t.Errorf("op %d: decoded %+v (%v), want %+v", op.Op, got, err, op)
		}
	}
	for _, r := range replies {
		got, err := decodeJoinReply(appendJoinReply(nil, r))
		if err != nil || !reflect.DeepEqual(got, r) {
			t.Errorf("join reply %d: decoded %+v (%v)", r.Status, got, err)
		}
	}
	for _, m := range legs {
		got, err := decodeLegMsg(appendLegMsg(nil, m))
		if err != nil || !reflect.DeepEqual(got, m) {
			t.Errorf("leg message %+v: decoded %+v (%v)", m, got, err)
		}
	}
	pinned := []struct {
		name string
		got  []byte
		want string
	}{
		{"join", appendClusterOp(nil, clusterOp{Op: opJoin, Node: "b", Leg: "l", Role: "viewer", User: "u", JTI: "j", Name: "A", Guest: true, Exp: 2}),
			"010162016c" + "06766965776572" + "0175" + "016a" + "00" + "00" + "00" + "0141" + "01" + "02"},
		{"resize", appendClusterOp(nil, ops[5]), "040162026c31" + "8401" + "32"},
		{"sealed join", appendClusterOp(nil, clusterOp{Op: opJoin, Node: "b", Leg: "l", Role: "viewer", User: "u", JTI: "j", Exp: 2, Sealed: "K"}),
			"010162016c" + "06766965776572" + "0175" + "016a" + "00" + "00" + "00" + "00" + "00" + "02" + "014b"},
		{"input", appendClusterOp(nil, clusterOp{Op: opInput, Node: "b", Leg: "l1", Wire: []byte{9}}), "030162026c31" + "09"},
		{"join holding the pen", appendClusterOp(nil, clusterOp{Op: opJoin, Node: "b", Leg: "l", Role: "driver", User: "u", JTI: "j", Exp: 2, Pen: 300, Held: true}),
			"010162016c" + "06647269766572" + "0175" + "016a" + "00" + "00" + "00" + "00" + "18" + "02" + "ac02"},
		{"queued", appendClusterOp(nil, clusterOp{Op: opQueued, Node: "b", Wire: []byte{9}}), "0c016200" + "09"},
		{"join reply", appendJoinReply(nil, joinReply{Status: joinOK, Wires: [][]byte{{7, 0}}}), "01" + "020700"},
		{"leg end", appendLegMsg(nil, legMsg{Leg: "l", End: true, Code: 1000, Why: "x"}), "02016c" + "e807" + "0178"},
		{"legs", appendLegMsg(nil, legMsg{Legs: []string{"l", "m"}, Wire: []byte{7, 0}}), "03" + "02" + "016c" + "016d" + "0700"},
	}
	for _, p := range pinned {
		if h := hex.EncodeToString(p.got); h != p.want {
			t.Errorf("%s encodes as %s, want %s", p.name, h, p.want)
		}
	}
	for _, bad := range [][]byte{
		nil,
		{0},
		{byte(opQueued + 1), 0, 0},
		{byte(opGrab), 5, 'a'},       // a string past the end
		{byte(opGrab), 0, 0, 1},      // bytes left over
		{byte(opResize), 0, 0, 0x80}, // a truncated uvarint
		{byte(opResize), 0, 0, 0x80, 0x80, 0x80, 0x80, 0x10, 0},  // cols over 32 bits
		{byte(opJoin), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x20, 0},       // a flag this node does not know
		{byte(opJoin), 0, 0, 0, 0, 0, 0, 0, 0, 0, joinHeld, 0},   // held, but no pen
		{byte(opJoin), 0, 0, 0, 0, 0, 0, 0, 0, 0, joinPen, 0, 0}, // a pen of generation 0
	} {
		if _, err := decodeClusterOp(bad); err == nil {
			t.Errorf("op % x decoded", bad)
		}
	}
	for _, bad := range [][]byte{nil, {0}, {6}, {byte(joinOK), 0}, {byte(joinOK), 3, 1}} {
		if _, err := decodeJoinReply(bad); err == nil {
			t.Errorf("join reply % x decoded", bad)
		}
	}
	for _, bad := range [][]byte{nil, {legControl, 1, 'l'}, {4, 0, 1}, {legEnd, 0, 0x80, 0x80, 0x04, 0},
		{legMany, 0, 7, 0}, {legMany, 1, 1, 'l'}, {legMany, 9, 1, 'l', 7}, {legMany, 1, 5, 'l', 7}} {
		if _, err := decodeLegMsg(bad); err == nil {
			t.Errorf("leg message % x decoded", bad)
		}
	}
}

// FuzzClusterWire: any bytes either decode, as each kind of cluster
// message, to one that encodes and decodes to itself, or are refused;
// never a panic, and never a slice past the message.
func FuzzClusterWire(f *testing.F) {
	ops, replies, legs := clusterWireSamples(f)
	for _, op := range ops {
		f.Add(appendClusterOp(nil, op))
	}
	for _, r := range replies {
		f.Add(appendJoinReply(nil, r))
	}
	for _, m := range legs {
		f.Add(appendLegMsg(nil, m))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		keep := bytes.Clone(b)
		if op, err := decodeClusterOp(b); err == nil {
			again, err := decodeClusterOp(appendClusterOp(nil, op))
			if err != nil || !reflect.DeepEqual(again, op) {
				t.Fatalf("op %+v re-decoded as %+v (%v)", op, again, err)
			}
		}
		if r, err := decodeJoinReply(b); err == nil {
			if len(r.Wires) > len(b)/2 {
				t.Fatalf("%d frames in a reply of %d bytes", len(r.Wires), len(b))
			}
			again, err := decodeJoinReply(appendJoinReply(nil, r))
			if err != nil || !reflect.DeepEqual(again, r) {
				t.Fatalf("join reply %+v re-decoded as %+v (%v)", r, again, err)
			}
		}
		if m, err := decodeLegMsg(b); err == nil {
			again, err := decodeLegMsg(appendLegMsg(nil, m))
			if err != nil || !reflect.DeepEqual(again, m) {
				t.Fatalf("leg message %+v re-decoded as %+v (%v)", m, again, err)
			}
		}
		if !bytes.Equal(b, keep) {
			t.Fatal("a decoder changed its input")
		}
	})
}
