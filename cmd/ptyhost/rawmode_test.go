//go:build linux

package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/creack/pty"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/repaint"
	"golang.org/x/sys/unix"
)

// openTTY returns the terminal side of a fresh PTY pair.
func openTTY(t *testing.T) int {
	t.Helper()
	master, tty, err := pty.Open()
	if err != nil {
		t.Skipf("SKIPPING: no PTY available: %v", err)
	}
	t.Cleanup(func() { tty.Close(); master.Close() })
	return int(tty.Fd())
}

func termios(t *testing.T, fd int) unix.Termios {
	t.Helper()
	tio, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		t.Fatal(err)
	}
	return *tio
}

// TestRawModeRestoredOnPanic checks both panic paths of run: in its own
// goroutine (the deferred restore) and in a helper goroutine (guard).
func TestRawModeRestoredOnPanic(t *testing.T) {
	for _, where := range []string{"run goroutine", "helper goroutine"} {
		t.Run(where, func(t *testing.T) {
			fd := openTTY(t)
			saved := termios(t, fd)
			raw, err := makeRaw(fd)
			if err != nil {
				t.Fatal(err)
			}
			if got := termios(t, fd); got.Lflag&(unix.ICANON|unix.ECHO|unix.ISIG) != 0 {
				t.Fatalf("raw mode kept lflag %#x", got.Lflag)
			}
			var out bytes.Buffer
			a := &attachment{fd: fd, out: &out, raw: raw}
			done := make(chan any)
			go func() {
				defer func() { done <- recover() }()
				if where == "run goroutine" {
					defer a.restore()
				} else {
					defer a.guard()
				}
				panic("boom")
			}()
			if r := <-done; r != "boom" {
				t.Fatalf("recovered %v, want the panic to continue", r)
			}
			if got := termios(t, fd); got != saved {
				t.Fatalf("termios after panic:\n%+v\nwant\n%+v", got, saved)
			}
			if out.String() != restoreTrailer {
				t.Fatalf("wrote %q, want the restore trailer", out.String())
			}
		})
	}
}

// fakeAttach yields fixed frames, then io.EOF.
type fakeAttach struct{ frames []attachwire.Frame }

func (f *fakeAttach) Next(context.Context) (attachwire.Frame, error) {
	if len(f.frames) == 0 {
		return attachwire.Frame{}, io.EOF
	}
	fr := f.frames[0]
	f.frames = f.frames[1:]
	return fr, nil
}
func (f *fakeAttach) WriteInput(p []byte) (int, error)          { return len(p), nil }
func (f *fakeAttach) Resize(int, int, int, int) (uint64, error) { return 0, nil }
func (f *fakeAttach) Close() error                              { return nil }

// TestStreamPaintsSnapshot checks that run paints a join snapshot with
// the repaint (input modes included), streams Output as it comes, and
// takes its exit status from the Exit frame.
func TestStreamPaintsSnapshot(t *testing.T) {
	scr := attachwire.Screen{
		Cols: 6, Rows: 2, Echo: attachwire.EchoOn, CursorVisible: true,
		Modes: attachwire.ModeBracketedPaste,
		Primary: []attachwire.Cell{
			{Content: "H"}, {Content: "I"}, attachwire.BlankCell(), attachwire.BlankCell(), attachwire.BlankCell(), attachwire.BlankCell(),
			attachwire.BlankCell(), attachwire.BlankCell(), attachwire.BlankCell(), attachwire.BlankCell(), attachwire.BlankCell(), attachwire.BlankCell(),
		},
	}
	snap, err := attachwire.NewSnapshot(7, &scr)
	if err != nil {
		t.Fatal(err)
	}
	snapFrame, err := snap.Frame(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	fake := &fakeAttach{frames: []attachwire.Frame{
		snapFrame,
		attachwire.NewOutputFrame(8, 1, []byte("more")),
		attachwire.Exit{Code: 5}.Frame(9, 2),
	}}
	var out bytes.Buffer
	a := &attachment{out: &out}
	if err := a.stream(context.Background(), fake); err != nil {
		t.Fatal(err)
	}
	want := string(repaint.AppendScreen(nil, &scr, repaint.Options{InputModes: true})) + "more"
	if out.String() != want {
		t.Fatalf("painted %q, want %q", out.String(), want)
	}
	if !strings.Contains(want, "\x1b[?2004h") {
		t.Fatalf("repaint %q does not restore bracketed paste", want)
	}
	if a.exit.Code != 5 {
		t.Fatalf("exit = %+v, want code 5", a.exit)
	}
}
