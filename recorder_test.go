package ptyhost

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/cast"
	"github.com/ptyhost/ptyhost/internal/term/termtest"
)

func readCast(tb testing.TB, path string) (cast.Header, []cast.Event) {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	r, err := cast.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	var evs []cast.Event
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			return r.Header(), evs
		}
		if err != nil {
			tb.Fatal(err)
		}
		evs = append(evs, ev)
	}
}

func secs(relTime uint64) string { return fmt.Sprintf("%.6f", float64(relTime)/1e6) }

// TestRecorderMatchesFrames records a session whose output splits "€"
// (E2 82 AC) across two reads with a marker and a resize in between: the
// cast's events must be the frames, at the frames' times, with the rune
// whole.
func TestRecorderMatchesFrames(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.cast")
	s := start(t, Spec{
		Command:    []string{"sh", "-c", `stty -echo; printf 'a\342'; read x; printf '\202\254b\n'`},
		RecordPath: path,
	}, newFakeTerm)
	raw := mustSubscribe(t, s, 0)
	waitTail(t, raw, "a\xe2")
	if _, err := s.EmitMarker("half way"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Resize(100, 30, 0, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WriteInput([]byte("\n")); err != nil {
		t.Fatal(err)
	}
	waitDone(t, s)
	if err := s.RecordErr(); err != nil {
		t.Fatal(err)
	}
	frames := collect(t, mustSubscribe(t, s, 0))
	hdr, evs := readCast(t, path)
	if hdr.Version != 3 || hdr.Width != 80 || hdr.Height != 24 || hdr.TermType != DefaultTERM || hdr.Timestamp == 0 {
		t.Fatalf("header %+v", hdr)
	}

	// Expected r and m events, and the times Output frames may give.
	var want []string
	outTimes := map[string]bool{}
	for _, f := range frames {
		switch f.Type {
		case attachwire.TypeOutput:
			outTimes[secs(f.RelTime)] = true
		case attachwire.TypeResize:
			want = append(want, "r "+secs(f.RelTime)+" 100x30")
		case attachwire.TypeMarker:
			want = append(want, "m "+secs(f.RelTime)+" half way")
		case attachwire.TypeExit:
			want = append(want, "x "+secs(f.RelTime)+" 0")
		}
	}
	var got []string
	var text strings.Builder
	last := 0.0
	for _, ev := range evs {
		if ev.Time < last {
			t.Errorf("event time %v after %v", ev.Time, last)
		}
		last = ev.Time
		at := fmt.Sprintf("%.6f", ev.Time)
		switch ev.Code {
		case cast.CodeOutput:
			if !outTimes[at] {
				t.Errorf("output event at %s matches no Output frame", at)
			}
			text.WriteString(ev.Data)
		default:
			got = append(got, ev.Code+" "+at+" "+ev.Data)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("r/m/x events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if out := string(output(frames)); text.String() != out || !utf8.ValidString(out) {
		t.Errorf("cast output %q, frames %q", text.String(), out)
	}
	if !strings.Contains(text.String(), "a€b") {
		t.Errorf("the split rune did not survive: %q", text.String())
	}
	// The split really happened: one Output frame ends inside the rune.
	split := false
	for _, f := range frames {
		split = split || (f.Type == attachwire.TypeOutput && bytes.HasSuffix(f.Payload, []byte("a\xe2")))
	}
	if !split {
		t.Error("no Output frame ended inside the rune: the test did not split it")
	}
}

// TestRecorderPlaysInAsciinema has the real asciinema CLI print the cast
// (under a ptyhost session, since asciinema 2.2's cat opens /dev/tty) and
// compares its output with the recorded session's. Debian's asciinema is
// 2.2, which reads no v3: the cast is v2, the version kept for it.
func TestRecorderPlaysInAsciinema(t *testing.T) {
	termtest.NeedTool(t, "asciinema")
	path := filepath.Join(t.TempDir(), "s.cast")
	s := start(t, Spec{
		Command:       []string{"sh", "-c", `printf '\033[1;31mred\033[0m Grüße 日本\n'; printf 'tab\there\n'`},
		RecordPath:    path,
		RecordVersion: 2,
	}, newFakeTerm)
	waitDone(t, s)
	want := output(collect(t, mustSubscribe(t, s, 0)))

	player := start(t, Spec{
		Command: []string{"sh", "-c", `stty raw -echo -opost; exec asciinema cat "$0"`, path},
		Env:     []string{"LANG=C.UTF-8", "LC_ALL=C.UTF-8"},
	}, newFakeTerm)
	if ex := waitDone(t, player); ex.Code != 0 {
		t.Fatalf("asciinema cat exited %+v", ex)
	}
	got := output(collect(t, mustSubscribe(t, player, 0)))
	if !bytes.Equal(got, want) {
		t.Fatalf("asciinema cat printed %q, want %q", got, want)
	}
}

func TestRecorderBadPathStartsNothing(t *testing.T) {
	dir := t.TempDir()
	_, err := Spawn(Spec{Command: []string{"sh", "-c", "touch " + filepath.Join(dir, "ran")}, RecordPath: dir})
	if err == nil {
		t.Fatal("Spawn with a directory as RecordPath succeeded")
	}
	if _, statErr := os.Stat(filepath.Join(dir, "ran")); statErr == nil {
		t.Fatal("the command ran although Spawn failed")
	}
}

// TestRecorderInputAndVersion records input only when asked, and writes
// v2 when asked, with no exit event (v2 has none).
func TestRecorderInputAndVersion(t *testing.T) {
	for _, tc := range []struct {
		version     int
		input       bool
		wantVersion int
		wantCodes   string
	}{
		{0, false, 3, "x"},
		{3, true, 3, "ix"},
		{2, true, 2, "i"},
		{2, false, 2, ""},
	} {
		path := filepath.Join(t.TempDir(), "s.cast")
		s := start(t, Spec{
			Command:    []string{"sh", "-c", `stty -echo; read x; exit 4`},
			RecordPath: path, RecordVersion: tc.version, RecordInput: tc.input,
		}, newFakeTerm)
		sub := mustSubscribe(t, s, 0)
		if _, err := s.WriteInput([]byte("secret\n")); err != nil {
			t.Fatal(err)
		}
		collect(t, sub)
		waitDone(t, s)
		if err := s.RecordErr(); err != nil {
			t.Fatal(err)
		}
		hdr, evs := readCast(t, path)
		codes := ""
		for _, ev := range evs {
			switch ev.Code {
			case cast.CodeInput:
				if ev.Data != "secret\n" {
					t.Errorf("input event %q", ev.Data)
				}
				codes += ev.Code
			case cast.CodeExit:
				if ev.Data != "4" {
					t.Errorf("exit event %q", ev.Data)
				}
				codes += ev.Code
			}
		}
		if hdr.Version != tc.wantVersion || codes != tc.wantCodes {
			t.Errorf("version %d input %v: cast v%d with events %q, want v%d %q",
				tc.version, tc.input, hdr.Version, codes, tc.wantVersion, tc.wantCodes)
		}
	}
	if _, err := Spawn(Spec{Command: []string{"true"}, RecordPath: filepath.Join(t.TempDir(), "x"), RecordVersion: 1}); !errors.Is(err, ErrInvalidSpec) {
		t.Errorf("record version 1: %v", err)
	}
}
