package ptyhost

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"unsafe"

	"github.com/ptyhost/ptyhost/attachwire"
)

// ringSession returns a Session with no child, for driving the ring and
// subscriptions directly through publishLocked.
func ringSession(ringBytes int) *Session {
	return newSession(Spec{RingBytes: ringBytes})
}

func (s *Session) publishTest(typ attachwire.FrameType, payload []byte) attachwire.Frame {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.publishLocked(typ, payload)
}

func TestRingBoundaries(t *testing.T) {
	// Each frame costs payload + frameOverhead: 5 fit in the limit.
	const payload = 36
	const limit = 5 * (payload + frameOverhead)
	tests := []struct {
		name      string
		published int
		wantTail  uint64
	}{
		{"empty", 0, 0},
		{"one", 1, 1},
		{"full", 5, 1},
		{"evicted-one", 6, 2},
		{"evicted-many", 23, 19},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ringSession(limit)
			for range tt.published {
				s.publishTest(attachwire.TypeOutput, make([]byte, payload))
			}
			n, cost, tail, head := s.ring.stats()
			if head != uint64(tt.published) || (n > 0 && tail != tt.wantTail) || cost > limit {
				t.Fatalf("n=%d cost=%d tail=%d head=%d, want tail %d head %d", n, cost, tail, head, tt.wantTail, tt.published)
			}
			for after := uint64(0); after <= head+2; after++ {
				sub, err := s.Subscribe(after)
				wantMiss := after > head || (after > 0 && after+1 < tt.wantTail)
				if wantMiss {
					if !errors.Is(err, attachwire.ErrRingMiss) {
						t.Errorf("Subscribe(%d): %v, want ErrRingMiss", after, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("Subscribe(%d): %v", after, err)
				}
				first := after + 1
				if after == 0 && n > 0 {
					first = tail
				}
				if got := sub.NextSeq(); got != first {
					t.Errorf("Subscribe(%d).NextSeq = %d, want %d", after, got, first)
				}
				var got []attachwire.Frame
				for seq := first; seq <= head; seq++ {
					f, err := sub.Next(context.Background())
					if err != nil {
						t.Fatalf("Subscribe(%d): Next: %v", after, err)
					}
					got = append(got, f)
				}
				checkContiguous(t, got, first)
				sub.Close()
			}
		})
	}
}

func TestRingOversizedFrameKept(t *testing.T) {
	s := ringSession(1000)
	s.publishTest(attachwire.TypeOutput, []byte("small"))
	big := bytes.Repeat([]byte("x"), 5000)
	s.publishTest(attachwire.TypeOutput, big)
	if n, _, tail, head := s.ring.stats(); n != 1 || tail != 2 || head != 2 {
		t.Fatalf("after oversized frame: n=%d tail=%d head=%d, want the one frame 2", n, tail, head)
	}
	sub, err := s.Subscribe(1)
	if err != nil {
		t.Fatal(err)
	}
	f, err := sub.Next(context.Background())
	if err != nil || !bytes.Equal(f.Payload, big) || f.Seq != 2 {
		t.Fatalf("Next = seq %d, %d bytes, %v; want the oversized frame", f.Seq, len(f.Payload), err)
	}
	s.publishTest(attachwire.TypeOutput, []byte("after"))
	if n, _, tail, _ := s.ring.stats(); n != 1 || tail != 3 {
		t.Fatalf("next frame did not evict the oversized one: n=%d tail=%d", n, tail)
	}
	if _, err := sub.Next(context.Background()); err != nil {
		t.Fatalf("cursor at 3 should still hit: %v", err)
	}
}

func TestSubscriptionEOFAfterExit(t *testing.T) {
	s := ringSession(1 << 20)
	s.publishTest(attachwire.TypeOutput, []byte("a"))
	s.publishTest(attachwire.TypeExit, attachwire.AppendExit(nil, attachwire.Exit{Code: 1}))
	for after := range uint64(3) {
		sub, err := s.Subscribe(after)
		if err != nil {
			t.Fatalf("Subscribe(%d): %v", after, err)
		}
		for range 2 - int(after) {
			if _, err := sub.Next(context.Background()); err != nil {
				t.Fatalf("Subscribe(%d): Next: %v", after, err)
			}
		}
		for range 2 {
			if _, err := sub.Next(context.Background()); !errors.Is(err, io.EOF) {
				t.Fatalf("Subscribe(%d): Next after Exit: %v, want io.EOF", after, err)
			}
		}
	}
}

func TestSubscriptionCloseAndContext(t *testing.T) {
	s := ringSession(1 << 20)
	sub, err := s.Subscribe(0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sub.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next with canceled ctx: %v", err)
	}
	errc := make(chan error, 1)
	go func() {
		_, err := sub.Next(context.Background())
		errc <- err
	}()
	sub.Close()
	sub.Close()
	if err := <-errc; !errors.Is(err, ErrSubscriptionClosed) {
		t.Fatalf("Next after Close: %v", err)
	}
}

// TestStalledSubscriberCutOff publishes many times the ring while a fast
// subscriber follows and a stalled one never reads: the fast one sees every
// frame in order, the stalled one gets ErrRingMiss and holds nobody up.
func TestStalledSubscriberCutOff(t *testing.T) {
	const ringBytes, frames = 64 << 10, 4000
	s := ringSession(ringBytes)
	stalled, err := s.Subscribe(0)
	if err != nil {
		t.Fatal(err)
	}
	fast, err := s.Subscribe(0)
	if err != nil {
		t.Fatal(err)
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		read uint64 // seqs the fast subscriber has consumed
		cond = sync.NewCond(&mu)
		ferr error
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), watchdog)
		defer cancel()
		for i := uint64(1); i <= frames; i++ {
			f, err := fast.Next(ctx)
			if err == nil && (f.Seq != i || string(f.Payload) != fmt.Sprint(i)) {
				err = fmt.Errorf("got seq %d payload %.10q, want %d", f.Seq, f.Payload, i)
			}
			mu.Lock()
			read, ferr = i, err
			cond.Broadcast()
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	for i := 1; i <= frames; i++ {
		payload := append([]byte(fmt.Sprint(i)), make([]byte, 0, 100)...)
		s.publishTest(attachwire.TypeOutput, payload)
		// Test-side flow control: this test is about the ring, not about
		// who is faster, so the fast reader is never more than 100
		// frames behind.
		mu.Lock()
		for ferr == nil && read+100 < uint64(i) {
			cond.Wait()
		}
		mu.Unlock()
	}
	wg.Wait()
	if ferr != nil {
		t.Fatalf("fast subscriber: %v", ferr)
	}
	if _, err := stalled.Next(context.Background()); !errors.Is(err, attachwire.ErrRingMiss) {
		t.Fatalf("stalled subscriber: %v, want ErrRingMiss", err)
	}
	if _, err := stalled.Next(context.Background()); !errors.Is(err, attachwire.ErrRingMiss) {
		t.Fatalf("stalled subscriber, second read: %v, want ErrRingMiss again", err)
	}
}

// TestRingArrayShrinks: a burst of tiny frames grows the ring's array; once
// large frames have replaced them, the array shrinks again, so the ring's
// memory (array plus payloads) stays within RingBytes plus one frame.
func TestRingArrayShrinks(t *testing.T) {
	const limit = 1 << 20
	s := ringSession(limit)
	for range 20000 {
		s.publishTest(attachwire.TypeMarker, nil)
	}
	grown := len(s.ring.frames)
	big := make([]byte, 32<<10)
	for range 200 {
		s.publishTest(attachwire.TypeOutput, big)
	}
	n, _, _, _ := s.ring.stats()
	slots := len(s.ring.frames)
	memory := slots*int(unsafe.Sizeof(attachwire.Frame{})) + n*len(big)
	if slots >= grown || slots > 4*n+minSlots || memory > limit+len(big) {
		t.Fatalf("array of %d slots (was %d) for %d frames: %d bytes, limit %d", slots, grown, n, memory, limit)
	}
}
