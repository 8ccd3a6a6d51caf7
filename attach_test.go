package ptyhost

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term/termtest"
)

// attach opens a local attach and closes it at cleanup.
func attach(tb testing.TB, s *Session, opts LocalAttachOptions) *LocalAttach {
	tb.Helper()
	a, err := s.AttachLocal(opts)
	if err != nil {
		tb.Fatalf("AttachLocal: %v", err)
	}
	tb.Cleanup(func() { a.Close() })
	return a
}

// nextFrame reads one frame from a with the watchdog.
func nextFrame(tb testing.TB, a *LocalAttach) attachwire.Frame {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	f, err := a.Next(ctx)
	if err != nil {
		tb.Fatalf("Next: %v", err)
	}
	return f
}

// drainAttach reads a until io.EOF.
func drainAttach(tb testing.TB, a *LocalAttach) []attachwire.Frame {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	var frames []attachwire.Frame
	for {
		f, err := a.Next(ctx)
		if errors.Is(err, io.EOF) {
			return frames
		}
		if err != nil {
			tb.Fatalf("after %d frames: %v", len(frames), err)
		}
		frames = append(frames, f)
	}
}

func decodeSnapshotFrame(tb testing.TB, f attachwire.Frame) (attachwire.Screen, uint64) {
	tb.Helper()
	if f.Type != attachwire.TypeSnapshot || f.Seq != 0 || f.RelTime != 0 {
		tb.Fatalf("frame %+v is not an out-of-namespace snapshot", f)
	}
	env, err := attachwire.DecodeSnapshot(f.Payload)
	if err != nil {
		tb.Fatal(err)
	}
	scr, err := attachwire.DecodeScreen(env.Screen)
	if err != nil {
		tb.Fatal(err)
	}
	return scr, env.AtSeq
}

func TestAttachRoles(t *testing.T) {
	s := start(t, Spec{Command: []string{"sh", "-c", "read x"}}, newFakeTerm)
	a1 := attach(t, s, LocalAttachOptions{})
	a2 := attach(t, s, LocalAttachOptions{})
	if !a1.CanDrive() || a2.CanDrive() {
		t.Fatalf("CanDrive: first %v, second %v; want true, false", a1.CanDrive(), a2.CanDrive())
	}
	if _, err := a2.WriteInput([]byte("x")); !errors.Is(err, ErrReadOnly) {
		t.Errorf("read-only WriteInput: %v, want ErrReadOnly", err)
	}
	if _, err := a2.Resize(100, 30, 0, 0); !errors.Is(err, ErrReadOnly) {
		t.Errorf("read-only Resize: %v, want ErrReadOnly", err)
	}
	if _, err := a1.Resize(100, 30, 0, 0); err != nil {
		t.Errorf("driver Resize: %v", err)
	}
	a1.Close()
	a1.Close() // idempotent
	if _, err := a1.WriteInput([]byte("x")); !errors.Is(err, ErrAttachClosed) {
		t.Errorf("WriteInput after Close: %v, want ErrAttachClosed", err)
	}
	if a2.CanDrive() {
		t.Error("a read-only attach was promoted when the driver closed")
	}
	a3 := attach(t, s, LocalAttachOptions{})
	if !a3.CanDrive() {
		t.Fatal("the first attach after the driver closed does not drive")
	}
	if _, err := a3.WriteInput([]byte("\n")); err != nil {
		t.Fatalf("new driver WriteInput: %v", err)
	}
	waitDone(t, s)
}

func TestAttachSanitizesPerRole(t *testing.T) {
	// The child prints only after the attaches exist, so they see its
	// Output frames rather than a join snapshot of them.
	const script = `read x; printf '\033]52;c;aGVsbG8=\007\033[6n\033[?1000hvisible\033[1mbold'`
	s := start(t, Spec{Command: []string{"sh", "-c", script}}, realBackend(t))
	raw, err := s.Subscribe(0)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	driver := attach(t, s, LocalAttachOptions{})
	viewer := attach(t, s, LocalAttachOptions{})
	if _, err := driver.WriteInput([]byte("\n")); err != nil {
		t.Fatal(err)
	}
	rawOut := output(collect(t, raw))
	for _, want := range []string{"\x1b]52;", "\x1b[6n", "\x1b[?1000h", "visible"} {
		if !bytes.Contains(rawOut, []byte(want)) {
			t.Fatalf("raw subscription lacks %q: %q", want, rawOut)
		}
	}
	for _, tc := range []struct {
		name  string
		a     *LocalAttach
		mouse bool
	}{{"driver", driver, true}, {"viewer", viewer, false}} {
		frames := drainAttach(t, tc.a)
		if _, at := decodeSnapshotFrame(t, frames[0]); frames[1].Seq != at+1 {
			t.Errorf("%s: frame after the join snapshot has seq %d, want %d", tc.name, frames[1].Seq, at+1)
		}
		checkContiguous(t, frames[1:], frames[1].Seq)
		out := output(frames)
		if !bytes.Contains(out, []byte("visible\x1b[1mbold")) {
			t.Errorf("%s: text and SGR lost: %q", tc.name, out)
		}
		for _, bad := range []string{"]52", "[6n", "\x07"} {
			if bytes.Contains(out, []byte(bad)) {
				t.Errorf("%s: %q passed the sanitizer: %q", tc.name, bad, out)
			}
		}
		if got := bytes.Contains(out, []byte("\x1b[?1000h")); got != tc.mouse {
			t.Errorf("%s: mouse mode passed = %v, want %v", tc.name, got, tc.mouse)
		}
	}
}

func TestAttachResumeAndMiss(t *testing.T) {
	s := start(t, Spec{Command: []string{"sh", "-c", "echo one; echo two"}}, newFakeTerm)
	waitDone(t, s)
	all := collect(t, mustSubscribe(t, s, 0))
	a := attach(t, s, LocalAttachOptions{FromSeq: 1})
	frames := drainAttach(t, a)
	checkContiguous(t, frames, 2)
	if len(frames) != len(all)-1 {
		t.Fatalf("resumed attach got %d frames, want %d", len(frames), len(all)-1)
	}
	if _, err := s.AttachLocal(LocalAttachOptions{FromSeq: all[len(all)-1].Seq + 1}); !errors.Is(err, attachwire.ErrRingMiss) {
		t.Fatalf("AttachLocal ahead of the head: %v, want ErrRingMiss", err)
	}
	// A join after exit still delivers the Exit frame after its snapshot.
	j := drainAttach(t, attach(t, s, LocalAttachOptions{}))
	if len(j) != 2 || j[1].Type != attachwire.TypeExit {
		t.Fatalf("join after exit: %d frames, want snapshot then Exit", len(j))
	}
	if _, at := decodeSnapshotFrame(t, j[0]); at+1 != j[1].Seq {
		t.Fatalf("join snapshot atSeq %d, Exit seq %d", at, j[1].Seq)
	}
}

func mustSubscribe(tb testing.TB, s *Session, after uint64) *Subscription {
	tb.Helper()
	sub, err := s.Subscribe(after)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { sub.Close() })
	return sub
}

// TestAttachResync stalls an attach while many times RingBytes flow: it
// is not ended but resynced with a snapshot equal to the session's at that
// atSeq, then continues with contiguous frames.
func TestAttachResync(t *testing.T) {
	const ring = 2 << 10
	s := start(t, Spec{
		Command:   []string{"sh", "-c", "seq 1 30000; read x; echo bye"},
		RingBytes: ring,
	}, newEngine) // fast enough to push many frames through a tiny ring
	a := attach(t, s, LocalAttachOptions{})
	_, joinAt := decodeSnapshotFrame(t, nextFrame(t, a)) // then stall
	waitScreen(t, s, "30000")                            // the child printed everything and waits

	if _, _, tail, _ := s.ring.stats(); tail <= joinAt+1 {
		t.Fatalf("the ring (tail %d) still holds the stalled attach's next frame %d", tail, joinAt+1)
	}
	want, wantAt, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	f := nextFrame(t, a)
	got, at := decodeSnapshotFrame(t, f)
	if at != wantAt {
		t.Fatalf("resync atSeq %d, session idle at %d", at, wantAt)
	}
	if !reflect.DeepEqual(normalizeScreen(got), normalizeScreen(want)) {
		t.Fatal("resync snapshot differs from the session's screen at its atSeq")
	}
	if a.Resyncs() != 1 {
		t.Fatalf("Resyncs = %d, want 1", a.Resyncs())
	}
	if _, err := a.WriteInput([]byte("\n")); err != nil {
		t.Fatal(err)
	}
	rest := drainAttach(t, a)
	checkContiguous(t, rest, at+1)
	if !bytes.Contains(output(rest), []byte("bye")) || rest[len(rest)-1].Type != attachwire.TypeExit {
		t.Fatalf("after the resync: %q, last frame type %d", output(rest), rest[len(rest)-1].Type)
	}
}

// normalizeScreen makes a decoded and an in-memory Screen comparable: nil
// and empty slices are the same.
func normalizeScreen(s attachwire.Screen) string {
	var b bytes.Buffer
	fmt.Fprintln(&b, s.Epoch, s.Echo, s.Cols, s.Rows, s.Active,
		s.CursorRow, s.CursorCol, s.CursorVisible, s.CursorShape, s.Modes, s.Mouse, s.SavedCursorRow, s.SavedCursorCol)
	fmt.Fprintln(&b, s.Primary, len(s.Alt), s.Alt)
	for _, l := range s.Scrollback {
		fmt.Fprintln(&b, l)
	}
	return b.String()
}

func TestAttachCloseUnblocksNext(t *testing.T) {
	s := start(t, Spec{Command: []string{"sh", "-c", "read x"}}, newFakeTerm)
	a := attach(t, s, LocalAttachOptions{})
	nextFrame(t, a) // join snapshot
	errc := make(chan error, 1)
	go func() {
		_, err := a.Next(context.Background())
		errc <- err
	}()
	a.Close()
	if err := <-errc; !errors.Is(err, ErrAttachClosed) {
		t.Fatalf("Next after Close: %v, want ErrAttachClosed", err)
	}
}

// waitTail reads sub until the Output ends with want; on failure it shows
// only the tail of what arrived.
func waitTail(tb testing.TB, sub *Subscription, want string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	var out []byte
	for !bytes.HasSuffix(out, []byte(want)) {
		f, err := sub.Next(ctx)
		if err != nil {
			tb.Fatalf("waiting for %q (last bytes %q): %v", want, out[max(0, len(out)-64):], err)
		}
		if f.Type == attachwire.TypeOutput {
			out = append(out, f.Payload...)
		}
	}
}

// waitScreen polls the session's snapshot until a row shows exactly want.
func waitScreen(tb testing.TB, s *Session, want string) {
	tb.Helper()
	deadline := time.Now().Add(watchdog)
	for {
		scr, _, err := s.Snapshot()
		if err != nil {
			tb.Fatal(err)
		}
		grid := termtest.FromScreen(&scr)
		for _, line := range strings.Split(grid.Text(), "\n") {
			if strings.TrimSpace(line) == want {
				return
			}
		}
		if time.Now().After(deadline) {
			tb.Fatalf("no row shows %q", want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
