package ptyhost

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term"
	"go.uber.org/goleak"
)

// onlcr applies the tty's default output processing (ONLCR) to p.
func onlcr(p []byte) []byte { return bytes.ReplaceAll(p, []byte("\n"), []byte("\r\n")) }

// TestIntegrity: the Output payloads of a stream many times the ring hash
// to the bytes the child wrote, after ONLCR (invariant 7). The child waits
// for an ack every ackChunk bytes so the reader never falls off the ring
// however the scheduler treats it.
func TestIntegrity(t *testing.T) {
	const n, ringBytes = 4 << 20, 256 << 10
	data := genData(1, n)
	want := sha256.Sum256(onlcr(data))
	var acks []int // output length after ONLCR at which each chunk ends
	for start, nl := 0, 0; start < n; start += ackChunk {
		end := min(start+ackChunk, n)
		nl += bytes.Count(data[start:end], []byte("\n"))
		acks = append(acks, end+nl)
	}
	s := start(t, withRing(helperSpec("genack", fmt.Sprintf("PTYHOST_TEST_N=%d", n), "PTYHOST_TEST_SEED=1"), ringBytes), newFakeTerm)
	sub, err := s.Subscribe(0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	h, total, next := sha256.New(), 0, uint64(1)
	for {
		f, err := sub.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("after %d bytes: %v", total, err)
		}
		if f.Seq != next {
			t.Fatalf("seq %d, want %d", f.Seq, next)
		}
		next++
		if f.Type != attachwire.TypeOutput {
			continue
		}
		if len(f.Payload) > MaxOutputFrame {
			t.Fatalf("output frame of %d bytes", len(f.Payload))
		}
		h.Write(f.Payload)
		total += len(f.Payload)
		for len(acks) > 0 && total >= acks[0] {
			acks = acks[1:]
			if _, err := s.WriteInput([]byte("k\n")); err != nil {
				t.Fatalf("ack: %v", err)
			}
		}
	}
	if got := h.Sum(nil); !bytes.Equal(got, want[:]) {
		t.Fatalf("hash mismatch over %d bytes (want %d)", total, len(onlcr(data)))
	}
	if ex, _ := s.Exit(); ex != (attachwire.Exit{}) {
		t.Fatalf("exit %+v", ex)
	}
	if _, _, tail, _ := s.ring.stats(); tail < 2 {
		t.Fatalf("the stream never wrapped the ring (tail %d)", tail)
	}
}

func withRing(spec Spec, ringBytes int) Spec {
	spec.RingBytes = ringBytes
	return spec
}

// TestHeapBoundedFirehose: with nobody reading, a stream of many times the
// ring keeps the live heap within RingBytes plus a small bound.
func TestHeapBoundedFirehose(t *testing.T) {
	const ringBytes = 256 << 10
	const slack = 3 << 20 // read buffer, terminal, goroutines, test data
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	s := start(t, withRing(helperSpec("gen", "PTYHOST_TEST_N=8388608", "PTYHOST_TEST_SEED=2"), ringBytes), newFakeTerm)
	stalled, err := s.Subscribe(0)
	if err != nil {
		t.Fatal(err)
	}
	var peak uint64
	for done := false; !done; {
		select {
		case <-s.Done():
			done = true
		case <-time.After(50 * time.Millisecond):
		}
		runtime.GC()
		runtime.ReadMemStats(&ms)
		if ms.HeapAlloc > base {
			peak = max(peak, ms.HeapAlloc-base)
		}
	}
	if peak > ringBytes+slack {
		t.Fatalf("live heap grew by %d bytes, bound %d", peak, ringBytes+slack)
	}
	if _, err := stalled.Next(context.Background()); !errors.Is(err, attachwire.ErrRingMiss) {
		t.Fatalf("stalled subscriber: %v, want ErrRingMiss", err)
	}
	t.Logf("peak live heap growth %d KiB with a %d KiB ring", peak>>10, ringBytes>>10)
}

// TestConsistency: while output flows, other goroutines resize, mark and
// snapshot (EmitSnapshot, Snapshot and AppendSnapshot). Every
// subscription sees contiguous seqs; each in-stream snapshot has atSeq =
// seq-1; and replaying frames 1..atSeq into a fresh terminal reproduces
// every snapshot's screen (invariant 1).
func TestConsistency(t *testing.T) {
	for _, bc := range backends(t) {
		t.Run(bc.name, func(t *testing.T) {
			if bc.name == BackendXVT.String() {
				// Not shipped (package xvtgate) for this reason; its
				// TestSplitCases holds the cases it gets wrong.
				t.Skip("SKIP: x/vt's screen depends on how the output is split into reads, so replaying frames 1..N need not give the snapshot at N")
			}
			n := 1 << 20
			if bc.name != "fake" {
				n = 256 << 10 // x/vt is slow under -race
			}
			spec := helperSpec("gen", fmt.Sprintf("PTYHOST_TEST_N=%d", n), "PTYHOST_TEST_SEED=3")
			spec.Cols, spec.Rows, spec.Scrollback = 80, 24, 50
			s := start(t, spec, bc.newTerm)
			subs := make([]*Subscription, 3)
			for i := range subs {
				sub, err := s.Subscribe(0)
				if err != nil {
					t.Fatal(err)
				}
				subs[i] = sub
			}
			type taken struct {
				scr attachwire.Screen
				at  uint64
			}
			var (
				mu    sync.Mutex
				snaps []taken
				wg    sync.WaitGroup
			)
			for g := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rng := rand.New(rand.NewPCG(uint64(g), 9))
					for {
						select {
						case <-s.Done():
							return
						default:
						}
						switch g {
						case 0:
							s.Resize(40+rng.IntN(80), 10+rng.IntN(30), 0, 0)
						case 1:
							s.EmitMarker("m")
						case 2:
							s.EmitSnapshot()
						case 3:
							take := s.Snapshot
							if rng.IntN(2) == 0 {
								take = s.appendedSnapshot
							}
							scr, at, err := take()
							if err == nil {
								mu.Lock()
								snaps = append(snaps, taken{scr, at})
								mu.Unlock()
							}
						}
						time.Sleep(time.Duration(rng.IntN(3000)) * time.Microsecond)
					}
				}()
			}
			all := make([][]attachwire.Frame, len(subs))
			for i, sub := range subs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					all[i] = collect(t, sub)
				}()
			}
			wg.Wait()
			frames := all[0]
			for i := range all {
				checkContiguous(t, all[i], 1)
				if len(all[i]) != len(frames) {
					t.Fatalf("subscription %d saw %d frames, the first %d", i, len(all[i]), len(frames))
				}
			}
			// Check the in-stream snapshots and the Snapshot() results by
			// replaying the stream into a fresh terminal.
			checks := map[uint64][]attachwire.Screen{}
			inStream := 0
			for _, f := range frames {
				if f.Type != attachwire.TypeSnapshot {
					continue
				}
				snap := decodeSnapshot(t, f)
				if snap.AtSeq != f.Seq-1 {
					t.Fatalf("snapshot seq %d atSeq %d", f.Seq, snap.AtSeq)
				}
				scr, err := snap.DecodeScreen()
				if err != nil {
					t.Fatal(err)
				}
				checks[snap.AtSeq] = append(checks[snap.AtSeq], scr)
				inStream++
			}
			for _, sn := range snaps {
				checks[sn.at] = append(checks[sn.at], sn.scr)
			}
			replay, err := bc.newTerm(term.Options{Cols: spec.Cols, Rows: spec.Rows, Scrollback: spec.Scrollback})
			if err != nil {
				t.Fatal(err)
			}
			defer replay.Close()
			compared := 0
			for seq := uint64(0); seq <= uint64(len(frames)); seq++ {
				if seq > 0 {
					applyFrame(t, replay, frames[seq-1])
				}
				for _, want := range checks[seq] {
					var got attachwire.Screen
					replay.Screen(&got)
					got.Epoch, got.Echo = want.Epoch, want.Echo
					if !sameScreen(t, got, want) {
						t.Fatalf("screen at seq %d differs from a fresh replay of frames 1..%d", seq, seq)
					}
					compared++
				}
			}
			t.Logf("%d frames, %d in-stream snapshots, %d screens compared", len(frames), inStream, compared)
			if inStream == 0 || compared == 0 {
				t.Fatal("no snapshot was taken while output flowed")
			}
		})
	}
}

// applyFrame feeds an Output or Resize frame to t.
func applyFrame(tb testing.TB, t term.Terminal, f attachwire.Frame) {
	switch f.Type {
	case attachwire.TypeOutput:
		t.Write(f.Payload)
	case attachwire.TypeResize:
		r, err := attachwire.DecodeResize(f.Payload)
		if err != nil {
			tb.Fatal(err)
		}
		t.Resize(int(r.Cols), int(r.Rows), int(r.PxWidth), int(r.PxHeight))
	}
}

// sameScreen compares screens by their encoding.
func sameScreen(tb testing.TB, a, b attachwire.Screen) bool {
	ea, err := attachwire.AppendScreen(nil, &a)
	if err != nil {
		tb.Fatal(err)
	}
	eb, err := attachwire.AppendScreen(nil, &b)
	if err != nil {
		tb.Fatal(err)
	}
	return bytes.Equal(ea, eb)
}

// TestNoLeaks: spawn/stop cycles leave no goroutines and no fds.
func TestNoLeaks(t *testing.T) {
	cycles := 200
	if testing.Short() {
		cycles = 20
	}
	cases := backends(t) // fake, and every real backend with its goroutines
	before := openFDs(t)
	for i := range cycles {
		cmd := []string{"sleep", "60"}
		if i%2 == 1 {
			cmd = []string{"printf", `\033[c\033[6nbye`} // queries: answers in flight at exit
		}
		s, err := spawn(Spec{Command: cmd}, cases[i%len(cases)].newTerm)
		if err != nil {
			t.Fatal(err)
		}
		if i%4 == 1 {
			waitDone(t, s)
		}
		stopT(t, s)
	}
	goleak.VerifyNone(t)
	if after := openFDs(t); after != before {
		t.Fatalf("%d open fds after %d cycles, %d before", after, cycles, before)
	}
}

// TestNoNetImport: package ptyhost cannot open a listener: package net is
// not among its dependencies, and it imports no net/... package itself
// (net/url and net/netip come in through x/vt's ANSI parser for
// hyperlinks; they parse strings and open nothing).
func TestNoNetImport(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list dependencies: %v", err)
	}
	out, err := exec.Command(gobin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, "github.com/ptyhost/ptyhost/attachwire") {
		t.Fatalf("go list output looks wrong: %.200q", out)
	}
	if slices.Contains(deps, "net") {
		t.Error("ptyhost depends on package net")
	}
	out, err = exec.Command(gobin, "list", "-f", "{{join .Imports \"\\n\"}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, imp := range strings.Fields(string(out)) {
		if imp == "net" || strings.HasPrefix(imp, "net/") {
			t.Errorf("ptyhost imports %s", imp)
		}
	}
}
