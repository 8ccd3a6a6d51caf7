package seal

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"golang.org/x/crypto/chacha20poly1305"
)

// TestVectorByHand opens the Output vector with the AEAD alone and
// associated data written out from the spec's words, not from this
// package's code: the page's description and the code agree.
func TestVectorByHand(t *testing.T) {
	aeadKey := unhex(t, "c37e120683250825dd756a3f3bc9dc2d525d3c50dae1b2886822f984f5ce59e0")
	a, err := chacha20poly1305.NewX(aeadKey)
	if err != nil {
		t.Fatal(err)
	}
	// "ptyhost-e2e-v1" | len("room-1") | "room-1" | keyId | type 01 | epoch 7 | seq 1
	aad := append([]byte("ptyhost-e2e-v1\x06room-1"), unhex(t, "8ca4351048ff1ef3")...)
	aad = append(aad, 0x01, 0x07, 0x01)
	sealed := unhex(t, "404142434445464748494a4b4c4d4e4f5051525354555657c8433bc69fb5dcd2a7d1f843e5e7f87e4dc9")
	p, err := a.Open(nil, sealed[:24], sealed[24:], aad)
	if err != nil || string(p) != "hi" {
		t.Fatalf("open by hand: %q %v", p, err)
	}
}

// sealedFrames seals one frame of each type under r at epoch 3.
func sealedFrames(t *testing.T, r *Room) (plain, sealed []attachwire.Frame) {
	t.Helper()
	scr := attachwire.Screen{Epoch: 3, Echo: attachwire.EchoUnknown, Cols: 1, Rows: 1, Primary: []attachwire.Cell{{Content: "x"}}}
	snap, err := attachwire.NewSnapshot(9, &scr)
	if err != nil {
		t.Fatal(err)
	}
	sf, _ := snap.Frame(10, 0)
	mf, _ := attachwire.Marker{Label: "mark"}.Frame(11, 0)
	rf, _ := attachwire.Resize{Cols: 80, Rows: 24}.Frame(12, 0)
	cf, _ := attachwire.ControlFrame(attachwire.Grab{})
	plain = []attachwire.Frame{
		{Type: attachwire.TypeOutput, Seq: 8, Payload: []byte("secret output")},
		attachwire.Input{InputSeq: 4, PenGeneration: 6, UserID: "ada", Data: []byte("hunter2\r")}.Frame(8, 0),
		sf, mf, rf, cf,
		attachwire.Exit{Code: 1}.Frame(13, 0),
		{Type: attachwire.TypeOutput, Seq: 14}, // empty output still seals
	}
	for _, f := range plain {
		s, err := r.Seal(f, 3)
		if err != nil {
			t.Fatal(err)
		}
		sealed = append(sealed, s)
	}
	return plain, sealed
}

func TestRoundTrip(t *testing.T) {
	r := testRoom(t, "s")
	plain, sealed := sealedFrames(t, r)
	for i, s := range sealed {
		if _, err := Check(s); err != nil {
			t.Errorf("%v: Check: %v", s.Type, err)
		}
		if Sealed(s.Type) && bytes.Contains(s.Payload, []byte("secret")) {
			t.Errorf("%v: plaintext in the sealed frame", s.Type)
		}
		o, err := r.Open(s, 3)
		if err != nil {
			t.Fatalf("%v: %v", s.Type, err)
		}
		a, _ := o.MarshalBinary()
		b, _ := plain[i].MarshalBinary()
		if !bytes.Equal(a, b) {
			t.Errorf("%v: opened %x, want %x", s.Type, a, b)
		}
	}
	// Two seals of one frame differ: the nonce is random.
	a, _ := r.Seal(plain[0], 3)
	if b, _ := r.Seal(plain[0], 3); bytes.Equal(a.Payload, b.Payload) {
		t.Error("two seals of one frame are equal")
	}
}

// TestSealOutput: sealed in place, an Output payload is Seal's byte for
// byte under the same nonce, in the buffer it was given when that has
// room for the tag, and opens.
func TestSealOutput(t *testing.T) {
	r := testRoom(t, "s")
	f := attachwire.Frame{Type: attachwire.TypeOutput, Seq: 8, Payload: []byte("secret output")}
	nonce := bytes.Repeat([]byte{7}, NonceSize)
	want, err := r.seal(f, 3, nonce, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, spare := range []int{Overhead - NonceSize, 0} {
		buf := append(append(make([]byte, 0, NonceSize+len(f.Payload)+spare), nonce...), f.Payload...)
		got := r.sealOutput(buf, 3, 8)
		if !bytes.Equal(got, want.Payload) {
			t.Fatalf("spare %d: sealed %x, want %x", spare, got, want.Payload)
		}
		if inPlace := &got[0] == &buf[0]; inPlace != (spare > 0) {
			t.Errorf("spare %d: in place %v", spare, inPlace)
		}
	}
	buf := append(make([]byte, NonceSize, 64), f.Payload...)
	o, err := r.Open(attachwire.Frame{Type: attachwire.TypeOutput, Seq: 8, Payload: r.SealOutput(buf, 3, 8)}, 3)
	if err != nil || string(o.Payload) != "secret output" {
		t.Fatalf("open: %q %v", o.Payload, err)
	}
}

// TestTamper: whatever a relay changes of a sealed frame without the key
// makes it fail to open: a flipped bit anywhere in it, another seq
// (reorder, replay at a new position), another room, epoch, key, input
// sequence or pen generation.
func TestTamper(t *testing.T) {
	r := testRoom(t, "s")
	_, sealed := sealedFrames(t, r)
	for _, s := range sealed {
		if !Sealed(s.Type) {
			continue
		}
		for i := range s.Payload {
			if s.Type == attachwire.TypeInput && i >= 3 && i < 6 {
				continue // the user id "ada", which the relay stamps: not bound
			}
			for bit := range 8 {
				f := s
				f.Payload = bytes.Clone(s.Payload)
				f.Payload[i] ^= 1 << bit
				if _, err := r.Open(f, 3); err == nil {
					t.Fatalf("%v: bit %d of byte %d flipped still opens", s.Type, bit, i)
				}
			}
		}
	}
	out := sealed[0]
	moved := out
	moved.Seq++
	mustFail(t, "output at another seq", r, moved, 3)
	mustFail(t, "output in another epoch", r, out, 4)
	mustFail(t, "output from another room", testRoom(t, "t"), out, 3)
	other, _ := GenerateKey()
	mustFail(t, "output under another key", NewRoom(other, "s"), out, 3)

	in, _ := attachwire.DecodeInput(sealed[1].Payload)
	for _, change := range []func(*attachwire.Input){
		func(i *attachwire.Input) { i.InputSeq++ },
		func(i *attachwire.Input) { i.PenGeneration++ },
	} {
		c := in
		change(&c)
		mustFail(t, "input renumbered", r, attachwire.Frame{Type: attachwire.TypeInput, Payload: attachwire.AppendInput(nil, c)}, 3)
	}
	// The relay stamps the user id: it is readable and not bound.
	c := in
	c.UserID = "relay-stamped"
	if _, err := r.Open(attachwire.Frame{Type: attachwire.TypeInput, Payload: attachwire.AppendInput(nil, c)}, 3); err != nil {
		t.Errorf("input with the relay's user id: %v", err)
	}

	snap := sealed[2]
	s, _ := attachwire.DecodeSnapshot(snap.Payload)
	s.AtSeq++
	p, _ := attachwire.AppendSnapshot(nil, s)
	mustFail(t, "snapshot at another atSeq", r, attachwire.Frame{Type: attachwire.TypeSnapshot, Payload: p}, 3)
	// The header seq of a snapshot is not bound: seq 0 beside the stream
	// or in it, the screen shows atSeq.
	snap.Seq = 0
	if _, err := r.Open(snap, 99); err != nil {
		t.Errorf("snapshot at seq 0: %v", err)
	}
}

func mustFail(t *testing.T, what string, r *Room, f attachwire.Frame, epoch uint64) {
	t.Helper()
	if _, err := r.Open(f, epoch); !errors.Is(err, ErrOpen) {
		t.Errorf("%s: Open = %v, want ErrOpen", what, err)
	}
}

// TestFinal: a post-Exit snapshot opens at atSeq-1, where the relay
// serves it, and not at the atSeq it carries.
func TestFinal(t *testing.T) {
	r := testRoom(t, "s")
	scr := attachwire.Screen{Epoch: 3, Cols: 1, Rows: 1, Primary: []attachwire.Cell{{Content: "x"}}}
	snap, _ := attachwire.NewSnapshot(20, &scr)
	f, _ := snap.Frame(0, 0)
	sf, err := r.SealFinal(f, 3)
	if err != nil {
		t.Fatal(err)
	}
	mustFail(t, "final at the Exit's seq", r, sf, 3)
	if _, err := r.Open(atSeqMinusOne(t, sf), 3); err != nil {
		t.Errorf("final at the seq before Exit: %v", err)
	}
	if _, err := r.SealFinal(attachwire.Frame{Type: attachwire.TypeOutput}, 3); err == nil {
		t.Error("SealFinal of an Output")
	}
}

// TestMalformed: Check and Open refuse malformed sealed frames with a
// framing error or ErrOpen, never a panic.
func TestMalformed(t *testing.T) {
	r := testRoom(t, "s")
	cases := []struct {
		name string
		f    attachwire.Frame
	}{
		{"short output", attachwire.Frame{Type: attachwire.TypeOutput, Seq: 1, Payload: make([]byte, Overhead-1)}},
		{"short exit", attachwire.Frame{Type: attachwire.TypeExit, Seq: 1, Payload: []byte{0}}},
		{"marker length past the end", attachwire.Frame{Type: attachwire.TypeMarker, Seq: 1, Payload: []byte{0x50, 1}}},
		{"marker bad length", attachwire.Frame{Type: attachwire.TypeMarker, Seq: 1, Payload: []byte{0x80}}},
		{"short marker box", attachwire.Frame{Type: attachwire.TypeMarker, Seq: 1, Payload: []byte{1, 1}}},
		{"input short data", attachwire.Input{InputSeq: 1, UserID: "u", Data: []byte("ls")}.Frame(0, 0)},
		{"input malformed", attachwire.Frame{Type: attachwire.TypeInput, Payload: []byte{1, 1, 9}}},
		{"snapshot without epoch", attachwire.Frame{Type: attachwire.TypeSnapshot, Payload: []byte{0, 1, 0}}},
		{"snapshot bad epoch", attachwire.Frame{Type: attachwire.TypeSnapshot, Payload: []byte{0, 1, 1, 0x80}}},
		{"snapshot short box", attachwire.Frame{Type: attachwire.TypeSnapshot, Payload: []byte{0, 1, 2, 3, 0}}},
		{"snapshot unknown format", attachwire.Frame{Type: attachwire.TypeSnapshot, Payload: []byte{0, 9, 0}}},
		{"resize zero", attachwire.Frame{Type: attachwire.TypeResize, Payload: []byte{0, 0, 0, 0}}},
	}
	for _, c := range cases {
		_, cerr := Check(c.f)
		var fe *attachwire.FramingError
		if !errors.As(cerr, &fe) {
			t.Errorf("%s: Check = %v, want a framing error", c.name, cerr)
		}
		if c.f.Type == attachwire.TypeResize {
			continue
		}
		if _, err := r.Open(c.f, 0); err == nil {
			t.Errorf("%s: Open succeeded", c.name)
		}
	}
	if _, err := r.Seal(attachwire.Frame{Type: attachwire.TypeMarker, Payload: []byte{5}}, 0); err == nil {
		t.Error("Seal of a malformed marker")
	}
	if _, err := r.Seal(attachwire.Frame{Type: attachwire.TypeSnapshot, Payload: []byte{0, 1, 0}}, 0); err == nil {
		t.Error("Seal of a snapshot without a screen")
	}
}

func TestKeyText(t *testing.T) {
	k, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	txt := k.Encode()
	if len(txt) != 43 {
		t.Fatalf("key text %d characters", len(txt))
	}
	k2, err := ParseKey(txt)
	if err != nil || !k.Equal(k2) || k2.ID() != k.ID() {
		t.Fatalf("ParseKey: %v", err)
	}
	if strings.Contains(k.String(), txt) || !strings.Contains(k.String(), k.ID().String()) {
		t.Errorf("String = %q: it must name the id and never the key", k.String())
	}
	for _, bad := range []string{"", txt[:42], txt + "A", strings.Repeat("!", 43), strings.Replace(txt, txt[:1], "+", 1)} {
		if _, err := ParseKey(bad); !errors.Is(err, ErrKey) {
			t.Errorf("ParseKey(%q) = %v", bad, err)
		}
	}
	if _, err := NewKey(make([]byte, 31)); !errors.Is(err, ErrKey) {
		t.Errorf("NewKey of 31 bytes: %v", err)
	}
	id, err := ParseKeyID(k.ID().String())
	if err != nil || id != k.ID() {
		t.Errorf("ParseKeyID: %v", err)
	}
	for _, bad := range []string{"", "AAAA", hex.EncodeToString(make([]byte, 8))} {
		if _, err := ParseKeyID(bad); err == nil {
			t.Errorf("ParseKeyID(%q) succeeded", bad)
		}
	}
}
