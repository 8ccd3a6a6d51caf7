package faultproxy

import (
	"bytes"
	"testing"
)

// frame returns a WebSocket frame header and payload of n bytes, masked or
// not, with the shortest length encoding.
func frame(n int, masked bool) []byte {
	var b []byte
	maskBit := byte(0)
	if masked {
		maskBit = 0x80
	}
	b = append(b, 0x82)
	switch {
	case n < 126:
		b = append(b, maskBit|byte(n))
	case n < 1<<16:
		b = append(b, maskBit|126, byte(n>>8), byte(n))
	default:
		b = append(b, maskBit|127, 0, 0, 0, 0, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	if masked {
		b = append(b, 1, 2, 3, 4)
	}
	return append(b, bytes.Repeat([]byte{0x7e}, n)...)
}

func TestTrackerFindsTheCutInsideAFrame(t *testing.T) {
	const head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n"
	for _, tc := range []struct {
		name     string
		response bool
		frames   [][]byte
		want     int // offset of the cut from the end of the head; -1: none
	}{
		{"7-bit", true, [][]byte{frame(5, false)}, 2 + 1},
		{"empty and one-byte frames skipped", true, [][]byte{frame(0, false), frame(1, false), frame(3, false)}, 2 + 3 + 2 + 1},
		{"16-bit length", true, [][]byte{frame(300, false)}, 4 + 1},
		{"64-bit length", true, [][]byte{frame(70000, false)}, 10 + 1},
		{"masked request side", false, [][]byte{frame(1, true), frame(200, true)}, 7 + 8 + 1},
		{"only tiny frames", true, [][]byte{frame(1, false), frame(0, false)}, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stream := append([]byte(head), bytes.Join(tc.frames, nil)...)
			want := -1
			if tc.want >= 0 {
				want = len(head) + tc.want
			}
			// Whole, and split in two at every offset: the cut lands on the
			// same byte however the stream arrives.
			for split := 0; split <= len(stream); split++ {
				tr := newTracker(tc.response)
				got := -1
				pos := 0
				for _, part := range [][]byte{stream[:split], stream[split:]} {
					n, mid := tr.advance(part, true)
					if mid {
						got = pos + n
						break
					}
					pos += n
				}
				if got != want {
					t.Fatalf("split at %d: cut at %d, want %d", split, got, want)
				}
			}
		})
	}
}

func TestTrackerIgnoresAResponseOtherThan101(t *testing.T) {
	stream := append([]byte("HTTP/1.1 401 Unauthorized\r\nContent-Length: 4\r\n\r\n"), frame(50, false)...)
	tr := newTracker(true)
	if n, mid := tr.advance(stream, true); mid || n != len(stream) {
		t.Fatalf("advance = %d, %v on a non-WebSocket stream", n, mid)
	}
}
