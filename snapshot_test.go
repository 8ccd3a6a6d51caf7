package ptyhost

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/streamgen"
	"github.com/ptyhost/ptyhost/internal/term"
	"github.com/ptyhost/ptyhost/internal/testkit"
)

func TestInputResizeMarker(t *testing.T) {
	for _, bc := range backends(t) {
		t.Run(bc.name, func(t *testing.T) {
			s := start(t, Spec{Command: []string{"sh", "-c", "stty size; read x; stty size"}, Cols: 90, Rows: 20}, bc.newTerm)
			sub, err := s.Subscribe(0)
			if err != nil {
				t.Fatal(err)
			}
			waitOutput(t, sub, "20 90")
			seq, err := s.Resize(100, 30, 800, 600)
			if err != nil {
				t.Fatal(err)
			}
			if cols, rows := s.Size(); cols != 100 || rows != 30 {
				t.Errorf("Size = %dx%d after Resize", cols, rows)
			}
			mseq, err := s.EmitMarker("mark \xff")
			if err != nil || mseq != seq+1 {
				t.Fatalf("EmitMarker = %d, %v; want seq %d", mseq, err, seq+1)
			}
			if _, err := s.EmitMarker(strings.Repeat("x", MaxMarkerLabel+1)); err == nil {
				t.Error("EmitMarker accepted an oversized label")
			}
			for _, bad := range [][4]int{{0, 30, 0, 0}, {100, 0, 0, 0}, {MaxCols + 1, 30, 0, 0}, {100, MaxRows + 1, 0, 0}, {100, 30, -1, 0}, {100, 30, 0, MaxPixels + 1}} {
				if _, err := s.Resize(bad[0], bad[1], bad[2], bad[3]); !errors.Is(err, ErrBadGeometry) {
					t.Errorf("Resize%v: %v, want ErrBadGeometry", bad, err)
				}
			}
			if _, err := s.WriteInput([]byte("\n")); err != nil {
				t.Fatal(err)
			}
			var resize, marker bool
			frames := collect(t, sub)
			if out := output(frames); !strings.Contains(string(out), "30 100") {
				t.Errorf("child did not see the new size: %q", out)
			}
			for _, f := range frames {
				switch {
				case f.Seq == seq:
					r, err := attachwire.DecodeResize(f.Payload)
					resize = err == nil && f.Type == attachwire.TypeResize && r == attachwire.Resize{Cols: 100, Rows: 30, PxWidth: 800, PxHeight: 600}
				case f.Seq == mseq:
					m, err := attachwire.DecodeMarker(f.Payload)
					marker = err == nil && f.Type == attachwire.TypeMarker && m.Label == "mark \uFFFD"
				}
			}
			if !resize || !marker {
				t.Errorf("resize frame ok=%v, marker frame ok=%v", resize, marker)
			}
			scr, _, _ := s.Snapshot()
			if scr.Cols != 100 || scr.Rows != 30 {
				t.Errorf("final screen %dx%d", scr.Cols, scr.Rows)
			}
		})
	}
}

func TestSnapshotEchoAndEpoch(t *testing.T) {
	s := start(t, Spec{Command: []string{"sh", "-c", "read x; stty -echo; echo off; read x"}, Epoch: 42}, newFakeTerm)
	scr, _, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if scr.Echo != attachwire.EchoOn || scr.Epoch != 42 {
		t.Fatalf("echo %v epoch %d, want on and 42", scr.Echo, scr.Epoch)
	}
	sub, err := s.Subscribe(0)
	if err != nil {
		t.Fatal(err)
	}
	s.WriteInput([]byte("\n"))
	waitOutput(t, sub, "off")
	if scr, _, _ = s.Snapshot(); scr.Echo != attachwire.EchoOff {
		t.Fatalf("echo %v after stty -echo, want off", scr.Echo)
	}
}

func TestEmitSnapshotSeqs(t *testing.T) {
	for _, bc := range backends(t) {
		t.Run(bc.name, func(t *testing.T) {
			s := start(t, Spec{Command: []string{"sh", "-c", "printf 'hello\\033[31m red'; read x"}, Epoch: 7}, bc.newTerm)
			sub, err := s.Subscribe(0)
			if err != nil {
				t.Fatal(err)
			}
			waitOutput(t, sub, "red")
			f, err := s.EmitSnapshot()
			if err != nil {
				t.Fatal(err)
			}
			snap := decodeSnapshot(t, f)
			if f.Seq == 0 || snap.AtSeq != f.Seq-1 {
				t.Fatalf("in-stream snapshot seq %d atSeq %d", f.Seq, snap.AtSeq)
			}
			scr, at, _ := s.Snapshot()
			if at != f.Seq {
				t.Fatalf("Snapshot atSeq %d, want %d (the snapshot frame)", at, f.Seq)
			}
			if bc.name != "fake" && !strings.Contains(testkit.Text(scr), "hello red") {
				t.Errorf("screen text %q lacks the output", testkit.Text(scr))
			}
			s.WriteInput([]byte("\n"))
			frames := collect(t, sub)
			exitSeq := frames[len(frames)-1].Seq
			post, err := s.EmitSnapshot()
			if err != nil {
				t.Fatal(err)
			}
			psnap := decodeSnapshot(t, post)
			if post.Seq != 0 || post.RelTime != 0 || psnap.AtSeq != exitSeq {
				t.Fatalf("post-exit snapshot seq %d rel %d atSeq %d, want 0 0 %d", post.Seq, post.RelTime, psnap.AtSeq, exitSeq)
			}
			if _, _, _, head := s.ring.stats(); head != exitSeq {
				t.Fatalf("post-exit snapshot went into the ring: head %d, exit %d", head, exitSeq)
			}
			pscr, err := psnap.DecodeScreen()
			if err != nil {
				t.Fatal(err)
			}
			if pscr.Epoch != 7 {
				t.Errorf("epoch %d", pscr.Epoch)
			}
			if _, at, _ := s.Snapshot(); at != exitSeq {
				t.Errorf("Snapshot after exit atSeq %d, want %d", at, exitSeq)
			}
			// Resync building block: snapshot at N, subscription from N+1.
			_, at, rsub, err := s.snapshotAndSubscribe()
			if err != nil || at != exitSeq || rsub.NextSeq() != exitSeq+1 {
				t.Fatalf("snapshotAndSubscribe = %d, %v", at, err)
			}
			if _, err := rsub.Next(context.Background()); err == nil {
				t.Fatal("resync subscription after exit yielded a frame")
			}
		})
	}
}

func decodeSnapshot(tb testing.TB, f attachwire.Frame) attachwire.Snapshot {
	tb.Helper()
	if f.Type != attachwire.TypeSnapshot {
		tb.Fatalf("frame type %v, want Snapshot", f.Type)
	}
	snap, err := attachwire.DecodeSnapshot(f.Payload)
	if err != nil {
		tb.Fatal(err)
	}
	return snap
}

// appendedSnapshot is Snapshot through AppendSnapshot: the payload
// decoded.
func (s *Session) appendedSnapshot() (attachwire.Screen, uint64, error) {
	p, at, err := s.AppendSnapshot(nil)
	if err != nil {
		return attachwire.Screen{}, 0, err
	}
	snap, err := attachwire.DecodeSnapshot(p)
	if err != nil {
		return attachwire.Screen{}, 0, err
	}
	if snap.AtSeq != at {
		return attachwire.Screen{}, 0, fmt.Errorf("payload atSeq %d, AppendSnapshot returned %d", snap.AtSeq, at)
	}
	scr, err := snap.DecodeScreen()
	return scr, at, err
}

// TestAppendSnapshot: AppendSnapshot encodes what Snapshot returns, with
// the same atSeq, after whatever dst held, live and after exit; its
// screen is the one EmitSnapshot publishes.
func TestAppendSnapshot(t *testing.T) {
	for _, bc := range backends(t) {
		t.Run(bc.name, func(t *testing.T) {
			s := start(t, Spec{Command: []string{"sh", "-c", "printf 'hello\\033[31m red 中'; read x; printf '\\033[?1049hbye'"}, Epoch: 9, Cols: 50, Rows: 8}, bc.newTerm)
			sub, err := s.Subscribe(0)
			if err != nil {
				t.Fatal(err)
			}
			waitOutput(t, sub, "red")
			check := func(when string) {
				t.Helper()
				want, wantAt, err := s.Snapshot()
				if err != nil {
					t.Fatal(err)
				}
				p, at, err := s.AppendSnapshot([]byte("keep"))
				if err != nil || !bytes.HasPrefix(p, []byte("keep")) || at != wantAt {
					t.Fatalf("%s: AppendSnapshot = %q..., %d, %v; want the prefix kept and atSeq %d", when, p[:min(len(p), 4)], at, err, wantAt)
				}
				snap, err := attachwire.DecodeSnapshot(p[4:])
				if err != nil || snap.AtSeq != at {
					t.Fatalf("%s: payload atSeq %d, %v", when, snap.AtSeq, err)
				}
				got, err := snap.DecodeScreen()
				if err != nil {
					t.Fatal(err)
				}
				if !sameScreen(t, got, want) {
					t.Fatalf("%s: AppendSnapshot's screen differs from Snapshot's", when)
				}
				if got.Epoch != 9 || got.Echo == attachwire.EchoUnknown {
					t.Errorf("%s: epoch %d echo %v", when, got.Epoch, got.Echo)
				}
			}
			check("live")
			f, err := s.EmitSnapshot()
			if err != nil {
				t.Fatal(err)
			}
			emitted, err := decodeSnapshot(t, f).DecodeScreen()
			if err != nil {
				t.Fatal(err)
			}
			if scr, _, _ := s.Snapshot(); !sameScreen(t, emitted, scr) {
				t.Fatal("EmitSnapshot's screen differs from Snapshot's")
			}
			// The ring keeps the payload: no more than allocation rounding
			// beyond its length.
			if slack := cap(f.Payload) - len(f.Payload); slack > frameOverhead+len(f.Payload)/8 {
				t.Errorf("EmitSnapshot's payload holds %d bytes of slack", slack)
			}
			check("after EmitSnapshot")
			s.WriteInput([]byte("\n"))
			collect(t, sub)
			check("after exit")
		})
	}
}

// TestAppendSnapshotAllocs: with the engine, a live snapshot of 120×40
// with 200 lines of scrollback into a buffer with room allocates nothing,
// and EmitSnapshot allocates once, for the payload the ring keeps.
func TestAppendSnapshotAllocs(t *testing.T) {
	s := start(t, Spec{Command: []string{"sh", "-c", "cat \"$0\"; read x", fileOf(t, streamgen.Mixed(5, 256<<10))}, Cols: 120, Rows: 40}, newEngine)
	sub, err := s.Subscribe(0)
	if err != nil {
		t.Fatal(err)
	}
	waitFed(t, s, sub)
	if scr, _, _ := s.Snapshot(); len(scr.Scrollback) != DefaultScrollback {
		t.Fatalf("%d scrollback lines, want %d", len(scr.Scrollback), DefaultScrollback)
	}
	buf, _, err := s.AppendSnapshot(nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(10, func() { buf, _, _ = s.AppendSnapshot(buf[:0]) }); n != 0 {
		t.Errorf("AppendSnapshot: %v allocations into a buffer with room, want 0", n)
	}
	a := s.Agent() // the carriers' way in: the contract adds no allocation
	if n := testing.AllocsPerRun(10, func() { buf, _, _ = a.AppendSnapshot(buf[:0]) }); n != 0 {
		t.Errorf("AppendSnapshot through Agent: %v allocations into a buffer with room, want 0", n)
	}
	if n := testing.AllocsPerRun(10, func() { s.EmitSnapshot() }); n > 1 {
		t.Errorf("EmitSnapshot: %v allocations, want 1", n)
	}
}

// TestFinalScreenKept: the screen at Exit, which the session keeps as a
// Snapshot payload, comes back from Snapshot cell for cell as replaying
// every Output frame into a fresh engine makes it, scrollback and the
// alternate screen included.
func TestFinalScreenKept(t *testing.T) {
	out := append(streamgen.Mixed(3, 512<<10), "\x1b[?1049h\x1b[1;31malt \xe4\xb8\xad screen"...)
	s := start(t, Spec{Command: []string{"cat", fileOf(t, out)}, Cols: 100, Rows: 30, Epoch: 4}, newEngine)
	sub, err := s.Subscribe(0)
	if err != nil {
		t.Fatal(err)
	}
	frames := collect(t, sub)
	got, at, err := s.Snapshot()
	if err != nil || at != frames[len(frames)-1].Seq {
		t.Fatalf("Snapshot after exit: atSeq %d, %v; want the Exit frame's seq %d", at, err, frames[len(frames)-1].Seq)
	}
	if s.finalSnap == nil {
		t.Fatal("the engine's final screen was not kept encoded")
	}
	replay, _ := newEngine(term.Options{Cols: 100, Rows: 30, Scrollback: DefaultScrollback})
	for _, f := range frames {
		if f.Type == attachwire.TypeOutput {
			replay.Write(f.Payload)
		}
	}
	var want attachwire.Screen
	replay.Screen(&want)
	want.Epoch, want.Echo = 4, got.Echo
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("final screen differs from the replay:\n got %s\nwant %s", testkit.Text(got), testkit.Text(want))
	}
	if len(got.Alt) == 0 || len(got.Scrollback) == 0 {
		t.Fatalf("alt %d rows, scrollback %d lines: the stream should fill both", len(got.Alt), len(got.Scrollback))
	}
	again, _, _ := s.Snapshot()
	got.Primary[0].Content = "X"
	if again.Primary[0].Content == "X" {
		t.Fatal("Snapshot's screens share cells")
	}
}
