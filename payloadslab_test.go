package ptyhost

import (
	"bytes"
	"testing"
	"unsafe"
)

// TestSlabsPayloadsStayPut reads chunks of every length into slabs, as the
// read loop does, then writes over each slab's free end: every payload
// published before keeps its bytes and its capacity is its length, so
// neither a later read nor an append by a subscriber reaches it.
func TestSlabsPayloadsStayPut(t *testing.T) {
	s := newSlabs(DefaultRingBytes)
	var payloads, want [][]byte
	for i, n := range []int{1, 7, 8, 9, MaxOutputFrame, 4095, MaxOutputFrame - 1, 3, MaxOutputFrame, 100} {
		buf := s.buf()
		if len(buf) != MaxOutputFrame {
			t.Fatalf("read buffer of %d bytes, want %d", len(buf), MaxOutputFrame)
		}
		for k := range n {
			buf[k] = byte(i + k)
		}
		p := s.take(n)
		if len(p) != n || cap(p) != n {
			t.Fatalf("payload len %d cap %d, want %d and %d", len(p), cap(p), n, n)
		}
		if uintptr(unsafe.Pointer(&p[0]))%payloadAlign != 0 {
			t.Fatalf("payload %d starts off a word boundary", i)
		}
		payloads, want = append(payloads, p), append(want, bytes.Clone(p))
		clear(s.buf()) // the next read, wherever it lands
		_ = append(p, 0xff)
	}
	for i := range payloads {
		if !bytes.Equal(payloads[i], want[i]) {
			t.Fatalf("payload %d changed after later reads", i)
		}
	}
}

// TestSlabsGrow: the first slab is small, so an idle session holds little;
// slabs then grow to a quarter of the ring, at most a huge page.
func TestSlabsGrow(t *testing.T) {
	for _, tc := range []struct {
		ring, max int
	}{
		{64 << 10, minSlab},
		{1 << 20, 256 << 10},
		{DefaultRingBytes, hugePage},
		{MaxRingBytes, hugePage},
	} {
		s := newSlabs(tc.ring)
		var sizes []int
		for range 200 {
			if len(s.free) < MaxOutputFrame {
				sizes = append(sizes, s.next)
			}
			s.buf()
			s.take(MaxOutputFrame)
		}
		if sizes[0] != minSlab || sizes[len(sizes)-1] != tc.max {
			t.Errorf("ring %d: slab sizes %v, want from %d up to %d", tc.ring, sizes, minSlab, tc.max)
		}
		for _, n := range sizes {
			if n > tc.max {
				t.Errorf("ring %d: slab of %d bytes, above %d", tc.ring, n, tc.max)
			}
		}
	}
}
