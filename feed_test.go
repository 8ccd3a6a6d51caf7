package ptyhost

import (
	"bytes"
	"slices"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term"
)

// writeLog is a terminal that records the length of every Write.
type writeLog struct {
	fakeTerm
	writes []int
	fed    []byte
}

func (w *writeLog) Write(p []byte) {
	w.writes = append(w.writes, len(p))
	w.fed = append(w.fed, p...)
}

// TestFeedWholeChunks: each chunk, small or as large as a frame gets,
// reaches the terminal in order as one write and is published as one
// Output frame.
func TestFeedWholeChunks(t *testing.T) {
	log := &writeLog{}
	s := newSession(Spec{RingBytes: DefaultRingBytes})
	s.term = log
	var _ term.Terminal = log

	small := []byte("prompt$ ")
	big := bytes.Repeat([]byte("0123456789abcdef"), MaxOutputFrame/16)
	s.feed(small)
	s.feed(big)

	if want := []int{len(small), len(big)}; !slices.Equal(log.writes, want) {
		t.Errorf("terminal writes %v, want %v", log.writes, want)
	}
	if want := append(slices.Clone(small), big...); !bytes.Equal(log.fed, want) {
		t.Error("terminal was fed other bytes than the chunks, in order")
	}
	for seq, want := range map[uint64][]byte{1: small, 2: big} {
		f, st := s.ring.getLocked(seq)
		if st != cursorReady || f.Type != attachwire.TypeOutput || !bytes.Equal(f.Payload, want) {
			t.Errorf("frame %d: %v, type %v, %d bytes; want the whole %d-byte chunk", seq, st, f.Type, len(f.Payload), len(want))
		}
	}
}
