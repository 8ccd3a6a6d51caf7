package attachwire

import (
	"bytes"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"testing"
)

func TestFrameGolden(t *testing.T) {
	tests := []struct {
		name  string
		frame Frame
		hex   string
	}{
		{"output", Frame{Type: TypeOutput, Seq: 1, RelTime: 300, Payload: []byte("hi")}, "01 01 ac 02 68 69"},
		{"empty output", Frame{Type: TypeOutput, Seq: 0, RelTime: 0}, "01 00 00"},
		{"control out of namespace", Frame{Type: TypeControl, Payload: []byte{0x02, '{', '}'}}, "07 00 00 02 7b 7d"},
		{"big header", Frame{Type: TypeExit, Seq: 16384, RelTime: math.MaxUint64}, "05 80 80 01 ff ff ff ff ff ff ff ff ff 01"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := unhex(t, tt.hex)
			got, err := tt.frame.AppendBinary([]byte{0xAA})
			if err != nil || !bytes.Equal(got, append([]byte{0xAA}, want...)) {
				t.Fatalf("AppendBinary = % x, %v; want aa % x", got, err, want)
			}
			if m, _ := tt.frame.MarshalBinary(); !bytes.Equal(m, want) || len(m) != tt.frame.EncodedLen() {
				t.Fatalf("MarshalBinary = % x (EncodedLen %d), want % x", m, tt.frame.EncodedLen(), want)
			}
			f, err := DecodeFrame(want)
			if err != nil {
				t.Fatal(err)
			}
			assertFrameEqual(t, f, tt.frame)
			prefixesFail(t, want[:len(want)-len(tt.frame.Payload)], func(p []byte) error {
				_, err := DecodeFrame(p)
				return err
			})
		})
	}
}

func assertFrameEqual(tb testing.TB, got, want Frame) {
	tb.Helper()
	if got.Type != want.Type || got.Seq != want.Seq || got.RelTime != want.RelTime || !bytes.Equal(got.Payload, want.Payload) {
		tb.Fatalf("frame = %v/%d/%d/% x, want %v/%d/%d/% x", got.Type, got.Seq, got.RelTime, got.Payload,
			want.Type, want.Seq, want.RelTime, want.Payload)
	}
}

func TestFrameTypes(t *testing.T) {
	for b := range 256 {
		ft := FrameType(b)
		_, err := DecodeFrame([]byte{byte(b), 0, 0})
		_, encErr := Frame{Type: ft}.AppendBinary(nil)
		valid := b >= 0x01 && b <= 0x07
		if ft.Valid() != valid || (err == nil) != valid || (encErr == nil) != valid {
			t.Fatalf("type 0x%02x: Valid=%v decode err=%v encode err=%v", b, ft.Valid(), err, encErr)
		}
		if !valid {
			wantFraming(t, err, ft.String())
		}
	}
	if s := TypeSnapshot.String(); s != "Snapshot" {
		t.Fatalf("String = %q", s)
	}
	if s := FrameType(9).String(); s != "FrameType(0x09)" {
		t.Fatalf("String = %q", s)
	}
}

func TestDecodeFrameTruncationIsUnexpectedEOF(t *testing.T) {
	_, err := DecodeFrame([]byte{0x01, 0x80})
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v, want io.ErrUnexpectedEOF inside", err)
	}
	wantFraming(t, err, "truncated seq")
}

func TestDecodeFrameAliasesPayload(t *testing.T) {
	p := []byte{0x01, 0x05, 0x06, 'a', 'b'}
	f, err := DecodeFrame(p)
	if err != nil {
		t.Fatal(err)
	}
	p[3] = 'z'
	if string(f.Payload) != "zb" {
		t.Fatalf("payload %q does not alias the input", f.Payload)
	}
}

func TestFrameRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 2000 {
		f := Frame{
			Type:    FrameType(1 + r.IntN(7)),
			Seq:     r.Uint64() >> r.IntN(64),
			RelTime: r.Uint64() >> r.IntN(64),
			Payload: randBytes(r, r.IntN(40)),
		}
		b, err := f.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeFrame(b)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		assertFrameEqual(t, got, f)
	}
}

func TestFrameAppendDoesNotAllocate(t *testing.T) {
	f := NewOutputFrame(1<<40, 1<<50, make([]byte, 4096))
	dst := make([]byte, 0, 8192)
	enc, _ := f.MarshalBinary()
	allocs := testing.AllocsPerRun(50, func() {
		dst, _ = f.AppendBinary(dst[:0])
		if _, err := DecodeFrame(enc); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("AppendBinary+DecodeFrame allocate %v times", allocs)
	}
}

func TestNewOutputFrame(t *testing.T) {
	p := []byte("out")
	f := NewOutputFrame(9, 10, p)
	if f.Type != TypeOutput || f.Seq != 9 || f.RelTime != 10 || &f.Payload[0] != &p[0] {
		t.Fatalf("NewOutputFrame = %+v", f)
	}
}

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}
