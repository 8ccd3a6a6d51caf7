package attachwire

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"testing"
)

// payloadCase is one golden payload vector: encode must produce hex and
// decode of hex must give value.
type payloadCase struct {
	name   string
	value  any
	hex    string
	encode func() ([]byte, error)
	decode func([]byte) (any, error)
}

func payloadCases() []payloadCase {
	in := Input{InputSeq: 5, PenGeneration: 2, UserID: "u1", Data: []byte("ls\r")}
	rs := Resize{Cols: 80, Rows: 24, PxWidth: 640, PxHeight: 480}
	mk := Marker{Label: "build"}
	ex := Exit{Code: 137, Signal: "SIGKILL"}
	ok := Exit{Code: 0}
	sn := Snapshot{AtSeq: 41, Format: FormatScreenV1, Screen: []byte{0xAA, 0xBB}}
	return []payloadCase{
		{"input", in, "05 02 02 75 31 03 6c 73 0d",
			func() ([]byte, error) { return AppendInput(nil, in), nil },
			func(p []byte) (any, error) { return DecodeInput(p) }},
		{"input empty", Input{}, "00 00 00 00",
			func() ([]byte, error) { return AppendInput(nil, Input{}), nil },
			func(p []byte) (any, error) { v, err := DecodeInput(p); v.Data = nil; return v, err }},
		{"resize", rs, "50 18 80 05 e0 03",
			func() ([]byte, error) { return AppendResize(nil, rs) },
			func(p []byte) (any, error) { return DecodeResize(p) }},
		{"marker", mk, "05 62 75 69 6c 64",
			func() ([]byte, error) { return AppendMarker(nil, mk) },
			func(p []byte) (any, error) { return DecodeMarker(p) }},
		{"exit by signal", ex, "89 01 07 53 49 47 4b 49 4c 4c",
			func() ([]byte, error) { return AppendExit(nil, ex), nil },
			func(p []byte) (any, error) { return DecodeExit(p) }},
		{"exit normal", ok, "00 00",
			func() ([]byte, error) { return AppendExit(nil, ok), nil },
			func(p []byte) (any, error) { return DecodeExit(p) }},
		{"snapshot envelope", sn, "29 01 02 aa bb",
			func() ([]byte, error) { return AppendSnapshot(nil, sn) },
			func(p []byte) (any, error) { return DecodeSnapshot(p) }},
	}
}

func TestPayloadGolden(t *testing.T) {
	for _, tt := range payloadCases() {
		t.Run(tt.name, func(t *testing.T) {
			want := unhex(t, tt.hex)
			got, err := tt.encode()
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("encode = % x, %v; want % x", got, err, want)
			}
			v, err := tt.decode(want)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(v, tt.value) {
				t.Fatalf("decode = %#v, want %#v", v, tt.value)
			}
			prefixesFail(t, want, func(p []byte) error { _, err := tt.decode(p); return err })
			_, err = tt.decode(append(want, 0x00))
			wantFraming(t, err, "trailing byte")
		})
	}
}

func TestPayloadDecodeErrors(t *testing.T) {
	tests := []struct {
		name   string
		hex    string
		decode func([]byte) error
	}{
		{"resize zero cols", "00 18 00 00", func(p []byte) error { _, err := DecodeResize(p); return err }},
		{"resize zero rows", "50 00 00 00", func(p []byte) error { _, err := DecodeResize(p); return err }},
		{"resize cols over 32 bits", "80 80 80 80 10 18 00 00", func(p []byte) error { _, err := DecodeResize(p); return err }},
		{"marker invalid utf-8", "02 c3 28", func(p []byte) error { _, err := DecodeMarker(p); return err }},
		{"marker length past end", "05 61", func(p []byte) error { _, err := DecodeMarker(p); return err }},
		{"input huge data length", "00 00 00 ff ff ff ff ff ff ff ff 7f", func(p []byte) error { _, err := DecodeInput(p); return err }},
		{"exit code over 32 bits", "80 80 80 80 10 00", func(p []byte) error { _, err := DecodeExit(p); return err }},
		{"snapshot format 2", "01 02 00", func(p []byte) error { _, err := DecodeSnapshot(p); return err }},
		{"snapshot screen past end", "01 01 03 aa", func(p []byte) error { _, err := DecodeSnapshot(p); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantFraming(t, tt.decode(unhex(t, tt.hex)), tt.name)
		})
	}
}

func TestPayloadEncodeErrors(t *testing.T) {
	tests := []struct {
		name string
		err  func() error
	}{
		{"resize zero cols", func() error { _, err := AppendResize(nil, Resize{Rows: 1}); return err }},
		{"resize zero rows frame", func() error { _, err := Resize{Cols: 1}.Frame(1, 1); return err }},
		{"marker invalid utf-8", func() error { _, err := Marker{Label: "\xff"}.Frame(1, 1); return err }},
		{"snapshot unknown format", func() error { _, err := Snapshot{Format: 7}.Frame(0, 0); return err }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantFraming(t, tt.err(), tt.name) })
	}
}

func TestPayloadFrames(t *testing.T) {
	rsf, _ := Resize{Cols: 2, Rows: 3}.Frame(4, 5)
	mkf, _ := Marker{Label: "m"}.Frame(6, 7)
	snf, _ := Snapshot{AtSeq: 1, Format: FormatScreenV1}.Frame(0, 0)
	tests := []struct {
		name string
		f    Frame
		hex  string
	}{
		{"input", Input{UserID: "a"}.Frame(3, 2), "02 03 02 00 00 01 61 00"},
		{"resize", rsf, "03 04 05 02 03 00 00"},
		{"marker", mkf, "04 06 07 01 6d"},
		{"exit", Exit{Code: 1}.Frame(8, 9), "05 08 09 01 00"},
		{"snapshot", snf, "06 00 00 01 01 00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := tt.f.MarshalBinary()
			if want := unhex(t, tt.hex); err != nil || !bytes.Equal(b, want) {
				t.Fatalf("frame = % x, %v; want % x", b, err, want)
			}
		})
	}
}

func TestPayloadRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 1000 {
		in := Input{InputSeq: r.Uint64(), PenGeneration: r.Uint64N(1000), UserID: string(randBytes(r, r.IntN(8))), Data: randBytes(r, 1+r.IntN(30))}
		got, err := DecodeInput(AppendInput(nil, in))
		if err != nil || !reflect.DeepEqual(got, in) {
			t.Fatalf("case %d: input %#v -> %#v, %v", i, in, got, err)
		}
		rs := Resize{Cols: 1 + r.Uint32N(1000), Rows: 1 + r.Uint32(), PxWidth: r.Uint32(), PxHeight: r.Uint32N(5)}
		p, _ := AppendResize(nil, rs)
		if got, err := DecodeResize(p); err != nil || got != rs {
			t.Fatalf("case %d: resize %#v -> %#v, %v", i, rs, got, err)
		}
		ex := Exit{Code: r.Uint32(), Signal: string(randBytes(r, r.IntN(4)))}
		if got, err := DecodeExit(AppendExit(nil, ex)); err != nil || got != ex {
			t.Fatalf("case %d: exit %#v -> %#v, %v", i, ex, got, err)
		}
	}
}

func TestSnapshotScreen(t *testing.T) {
	snap, err := NewSnapshot(9, goldenScreen())
	if err != nil || snap.AtSeq != 9 || snap.Format != FormatScreenV1 {
		t.Fatalf("NewSnapshot = %+v, %v", snap, err)
	}
	if !bytes.Equal(snap.Screen, unhex(t, goldenScreenHex)) {
		t.Fatalf("snapshot screen = % x", snap.Screen)
	}
	s, err := snap.DecodeScreen()
	if err != nil {
		t.Fatal(err)
	}
	assertScreenEqual(t, &s, goldenScreen())

	snap.Format = 2
	_, err = snap.DecodeScreen()
	wantFraming(t, err, "format 2")
	bad := goldenScreen()
	bad.Cols = 0
	_, err = NewSnapshot(1, bad)
	wantFraming(t, err, "invalid screen")
}
