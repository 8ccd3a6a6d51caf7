package attachwire

import (
	"encoding/hex"
	"math"
	"math/rand/v2"
	"testing"
)

func TestUvarintGolden(t *testing.T) {
	tests := []struct {
		name string
		v    uint64
		hex  string
	}{
		{"zero", 0, "00"},
		{"one", 1, "01"},
		{"127", 127, "7f"},
		{"128", 128, "80 01"},
		{"300", 300, "ac 02"},
		{"16383", 16383, "ff 7f"},
		{"16384", 16384, "80 80 01"},
		{"max uint32", math.MaxUint32, "ff ff ff ff 0f"},
		{"max uint64", math.MaxUint64, "ff ff ff ff ff ff ff ff ff 01"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := unhex(t, tt.hex)
			got := appendUvarint(nil, tt.v)
			if hex.EncodeToString(got) != hex.EncodeToString(want) {
				t.Fatalf("encode %d = % x, want % x", tt.v, got, want)
			}
			if n := uvarintLen(tt.v); n != len(want) {
				t.Fatalf("uvarintLen(%d) = %d, want %d", tt.v, n, len(want))
			}
			v, n := uvarint(want)
			if v != tt.v || n != len(want) {
				t.Fatalf("decode % x = %d, %d; want %d, %d", want, v, n, tt.v, len(want))
			}
		})
	}
}

func TestUvarintNonMinimalAccepted(t *testing.T) {
	tests := []struct {
		name string
		hex  string
		v    uint64
	}{
		{"one in two bytes", "81 00", 1},
		{"zero in two bytes", "80 00", 0},
		{"zero in ten bytes", "80 80 80 80 80 80 80 80 80 00", 0},
		{"127 in three bytes", "ff 80 00", 127},
		{"one at tenth byte", "80 80 80 80 80 80 80 80 80 01", 1 << 63},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := unhex(t, tt.hex)
			v, n := uvarint(p)
			if v != tt.v || n != len(p) {
				t.Fatalf("uvarint(% x) = %d, %d; want %d, %d", p, v, n, tt.v, len(p))
			}
		})
	}
}

func TestUvarintMalformed(t *testing.T) {
	tests := []struct {
		name     string
		hex      string
		overflow bool
	}{
		{"empty", "", false},
		{"more bit then end", "80", false},
		{"nine continuation bytes", "ff ff ff ff ff ff ff ff ff", false},
		{"tenth byte 0x02", "ff ff ff ff ff ff ff ff ff 02", true},
		{"tenth byte 0x7f", "80 80 80 80 80 80 80 80 80 7f", true},
		{"tenth byte with more bit, input ends", "ff ff ff ff ff ff ff ff ff 80", true},
		{"eleventh byte", "ff ff ff ff ff ff ff ff ff 81 00", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, n := uvarint(unhex(t, tt.hex))
			if tt.overflow && n >= 0 || !tt.overflow && n != 0 {
				t.Fatalf("n = %d, want overflow=%v", n, tt.overflow)
			}
			// The same bytes as a frame's seq field are a framing error.
			_, err := DecodeFrame(append([]byte{byte(TypeOutput)}, unhex(t, tt.hex)...))
			wantFraming(t, err, "DecodeFrame")
		})
	}
}

func TestUvarintRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 10000 {
		v := r.Uint64() >> r.IntN(64)
		p := appendUvarint(nil, v)
		got, n := uvarint(append(p, 0xEE))
		if got != v || n != len(p) || n != uvarintLen(v) {
			t.Fatalf("case %d: %d -> % x -> %d, %d", i, v, p, got, n)
		}
	}
}
