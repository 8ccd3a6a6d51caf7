package relay

import (
	"bytes"
	"crypto/ed25519"
	"io"
	"log/slog"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/sanitize"
	"github.com/ptyhost/ptyhost/token"
)

// fuzzRelay returns a relay no one dials, for driving rooms directly.
func fuzzRelay(t testing.TB) *Relay {
	pub, _, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	rl, err := New(Config{PublicKeys: []ed25519.PublicKey{pub}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rl.Close() })
	return rl
}

func frameBytes(f attachwire.Frame) []byte {
	b, err := f.MarshalBinary()
	if err != nil {
		panic(err)
	}
	return b
}

// FuzzHostIngest feeds a host leg's messages (records: a length byte, then
// that many bytes) to a room. Whatever the bytes, the relay does not panic,
// the ring stays contiguous by seq, and every Output frame in it is already
// sanitized (a second Driver pass changes nothing).
func FuzzHostIngest(f *testing.F) {
	sn, _ := attachwire.NewSnapshot(1, &attachwire.Screen{Cols: 1, Rows: 1, Primary: []attachwire.Cell{attachwire.BlankCell}})
	snap, _ := sn.Frame(2, 2)
	rs, _ := attachwire.Resize{Cols: 80, Rows: 24}.Frame(3, 3)
	seeds := [][]attachwire.Frame{
		{attachwire.NewOutputFrame(1, 1, []byte("hi\x1b]52;c;eA==\x07")), snap, rs, attachwire.Exit{}.Frame(4, 4)},
		{attachwire.NewOutputFrame(5, 1, []byte("\x1b]0;ti")), attachwire.NewOutputFrame(9, 2, []byte("tle\x07x"))},
		{attachwire.NewOutputFrame(2, 1, []byte("a")), attachwire.NewOutputFrame(1, 1, []byte("b"))},
	}
	for _, s := range seeds {
		var in []byte
		for _, fr := range s {
			b := frameBytes(fr)
			in = append(in, byte(len(b)))
			in = append(in, b...)
		}
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		rl := fuzzRelay(t)
		rm := newRoom(rl, roomKey{"o", "s"})
		l := newLeg(rl, nil, attachwire.RoleHost, "", "j", rl.log)
		defer l.cancel()
		if err := rm.bindHost(l, 0); err != nil {
			t.Fatal(err)
		}
		for len(in) > 0 {
			n := int(in[0])
			in = in[1:]
			if n > len(in) {
				n = len(in)
			}
			msg := in[:n]
			in = in[n:]
			fr, err := attachwire.DecodeFrame(msg)
			if err != nil || fr.Type == attachwire.TypeInput || fr.Type == attachwire.TypeControl {
				continue
			}
			if rm.ingest(l, fr) != nil {
				break
			}
		}
		r := rm.ring
		r.mu.Lock()
		defer r.mu.Unlock()
		for i := range r.n {
			e := &r.entries[(r.start+i)%len(r.entries)]
			if e.seq != r.tail+uint64(i) {
				t.Fatalf("ring entry %d has seq %d, tail %d", i, e.seq, r.tail)
			}
			fr, err := attachwire.DecodeFrame(e.wire)
			if err != nil || fr.Seq != e.seq {
				t.Fatalf("ring entry %d: %v seq %d", i, err, fr.Seq)
			}
			if fr.Type == attachwire.TypeOutput {
				again := sanitize.New(sanitize.Options{Profile: sanitize.Driver}).Append(nil, fr.Payload)
				if !bytes.Equal(again, fr.Payload) {
					t.Fatalf("ring Output %q is not sanitized (%q)", fr.Payload, again)
				}
			}
		}
	})
}

// FuzzParseSubscribe feeds a leg's first message to the subscribe check:
// it never panics, and what it accepts is a subscribe for the token's
// session whose role the token allows.
func FuzzParseSubscribe(f *testing.F) {
	for _, c := range []attachwire.Control{
		attachwire.Subscribe{SessionID: "s", AsRole: attachwire.RoleViewer},
		attachwire.Subscribe{SessionID: "s", AsRole: attachwire.RoleDriver, ResumeFrom: new(uint64)},
		attachwire.Subscribe{SessionID: "x", AsRole: "host"},
		attachwire.Grab{},
	} {
		fr, _ := attachwire.ControlFrame(c)
		f.Add(frameBytes(fr), uint8(0))
		f.Add(frameBytes(fr), uint8(1))
	}
	f.Fuzz(func(t *testing.T, b []byte, role uint8) {
		c := token.Claims{SessionID: "s", RoomID: "s", UserID: "u", Role: attachwire.RoleDriver}
		if role%3 == 1 {
			e := uint64(7)
			c = token.Claims{SessionID: "s", RoomID: "s", Role: attachwire.RoleHost, Epoch: &e}
		} else if role%3 == 2 {
			c.Role = attachwire.RoleViewer
		}
		sub, a := parseSubscribe(b, c)
		if a != nil {
			return
		}
		if sub.SessionID != "s" {
			t.Fatalf("accepted a subscribe for %q", sub.SessionID)
		}
		switch {
		case c.Role == attachwire.RoleHost && (sub.AsRole != attachwire.RoleHost || sub.Epoch == nil || *sub.Epoch != 7):
			t.Fatalf("host token accepted %+v", sub)
		case c.Role == attachwire.RoleViewer && sub.AsRole != attachwire.RoleViewer:
			t.Fatalf("viewer token accepted asRole %q", sub.AsRole)
		case c.Role == attachwire.RoleDriver && sub.AsRole != attachwire.RoleDriver && sub.AsRole != attachwire.RoleViewer:
			t.Fatalf("driver token accepted asRole %q", sub.AsRole)
		}
	})
}

// FuzzViewerFrames feeds a driver leg's messages (records as in
// FuzzHostIngest) to the relay while it holds the pen. Whatever the bytes,
// nothing panics, only frames the relay stamped reach the host queue, and
// each carries the leg's userId and header seq 0.
func FuzzViewerFrames(f *testing.F) {
	grab, _ := attachwire.ControlFrame(attachwire.Grab{})
	rel, _ := attachwire.ControlFrame(attachwire.ResumeFrom{Seq: 3})
	rs, _ := attachwire.Resize{Cols: 100, Rows: 30}.Frame(0, 0)
	seeds := [][]attachwire.Frame{
		{attachwire.Input{InputSeq: 1, PenGeneration: 1, UserID: "eve", Data: []byte("ls\r")}.Frame(9, 0), rs, grab},
		{attachwire.Input{InputSeq: 2, PenGeneration: 1, Data: []byte("x")}.Frame(0, 0), rel,
			attachwire.NewOutputFrame(1, 1, []byte("no"))},
	}
	for _, s := range seeds {
		var in []byte
		for _, fr := range s {
			b := frameBytes(fr)
			in = append(in, byte(len(b)))
			in = append(in, b...)
		}
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		rl := fuzzRelay(t)
		rm := newRoom(rl, roomKey{"o", "s"})
		l := newLeg(rl, nil, attachwire.RoleDriver, "alice", "j", rl.log)
		defer l.cancel()
		l.room = rm
		if err := rm.addViewer(l); err != nil {
			t.Fatal(err)
		}
		for len(in) > 0 {
			n := min(int(in[0]), len(in)-1)
			msg := in[1 : 1+n]
			in = in[1+n:]
			fr, err := attachwire.DecodeFrame(msg)
			if err != nil {
				continue
			}
			if len(rm.inputs) == cap(rm.inputs) {
				break // the next Input would wait for a host
			}
			if !l.viewerFrame(fr) {
				break
			}
		}
		for len(rm.inputs) > 0 {
			fr, err := attachwire.DecodeFrame(<-rm.inputs)
			if err != nil || fr.Type != attachwire.TypeInput || fr.Seq != 0 || fr.RelTime != 0 {
				t.Fatalf("host queue holds %v %+v", err, fr)
			}
			in, err := attachwire.DecodeInput(fr.Payload)
			if err != nil || in.UserID != "alice" {
				t.Fatalf("forwarded input %+v %v", in, err)
			}
		}
	})
}
