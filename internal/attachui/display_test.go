package attachui

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term"
	"github.com/ptyhost/ptyhost/internal/term/engine"
	"github.com/ptyhost/ptyhost/internal/testkit"
)

// fakeMirror is a mirror fed by the test.
type fakeMirror struct {
	e   *engine.Engine
	seq uint64
}

func (m *fakeMirror) get() (attachwire.Screen, uint64, bool) {
	var s attachwire.Screen
	m.e.Screen(&s)
	return s, m.seq, true
}

// terminalOf replays what the Display wrote into a fresh engine: the
// user's terminal.
func terminalOf(out []byte, cols, rows int) attachwire.Screen {
	e := engine.New(term.Options{Cols: cols, Rows: rows})
	defer e.Close()
	e.Write(out)
	var s attachwire.Screen
	e.Screen(&s)
	return s
}

func rowText(s attachwire.Screen, row int) string {
	return testkit.Row(s.Primary, s.Cols, row)
}

// A notice shows on the bottom row over the mirrored screen; output while
// it shows does not corrupt the screen, and once it goes the terminal
// shows exactly the mirror.
func TestNoticeDoesNotCorruptTheScreen(t *testing.T) {
	const cols, rows = 20, 4
	m := &fakeMirror{e: engine.New(term.Options{Cols: cols, Rows: rows})}
	defer m.e.Close()
	var out bytes.Buffer
	d := NewDisplay(&out, m.get, cols, rows)
	feed := func(p string) {
		m.e.Write([]byte(p))
		m.seq++
		d.Output(m.seq, []byte(p))
	}
	scr, _, _ := m.get()
	d.Snapshot(&scr, 0)
	feed("one\r\ntwo\r\nthree\r\nfour")
	d.Notice("pen: ann", false)
	if got := rowText(terminalOf(out.Bytes(), cols, rows), rows-1); got != "pen: ann" {
		t.Fatalf("bottom row %q, want the notice", got)
	}
	feed("\r\nfive")
	term := terminalOf(out.Bytes(), cols, rows)
	if rowText(term, rows-1) != "pen: ann" || rowText(term, 0) != "two" {
		t.Fatalf("with the notice up: rows %q %q", rowText(term, 0), rowText(term, rows-1))
	}
	d.Tick(time.Now().Add(2 * NoticeFor))
	want, _, _ := m.get()
	got := terminalOf(out.Bytes(), cols, rows)
	for r := range rows {
		if rowText(got, r) != rowText(want, r) {
			t.Fatalf("row %d %q after the notice, want %q", r, rowText(got, r), rowText(want, r))
		}
	}
	if got.CursorRow != want.CursorRow || got.CursorCol != want.CursorCol {
		t.Fatalf("cursor (%d,%d), want (%d,%d)", got.CursorRow, got.CursorCol, want.CursorRow, want.CursorCol)
	}
	// Output already shown by a repaint is not painted twice.
	n := out.Len()
	d.Output(m.seq, []byte("dup"))
	if out.Len() != n {
		t.Fatal("an Output the repaint covered was painted again")
	}
	d.Close()
	feed("x")
	if out.Len() != n {
		t.Fatal("painted after Close")
	}
}

// TestNoticesInABurstStayReadable: the pen notice and the presence list a
// join brings arrive together; both stay on the status line, the newest
// maxNotices of a longer burst, until the time is up.
func TestNoticesInABurstStayReadable(t *testing.T) {
	var out strings.Builder
	d := NewDisplay(&out, func() (attachwire.Screen, uint64, bool) { return attachwire.Screen{}, 0, false }, 200, 5)
	d.Notice("you hold the pen", false)
	d.Notice("2 here: ann, bob", false)
	if !strings.Contains(d.notice, "you hold the pen") || !strings.Contains(d.notice, "2 here") {
		t.Fatalf("status line %q lost a notice of the burst", d.notice)
	}
	for i := range 5 {
		d.Notice(fmt.Sprintf("n%d", i), false)
	}
	if d.notice != "n4 · n3 · n2" {
		t.Fatalf("status line %q, want the newest %d notices", d.notice, maxNotices)
	}
	d.Tick(time.Now().Add(2 * NoticeFor))
	if d.notice != "" || d.parts != nil {
		t.Fatalf("notice %q (%d parts) still up after its time", d.notice, len(d.parts))
	}
	d.Notice("host reconnecting", true)
	d.Notice("pen: nobody", false)
	if d.notice != "pen: nobody" {
		t.Fatalf("a passing notice after a sticky one shows %q", d.notice)
	}
}

// A notice still up when attach ends is taken off: the user's terminal
// keeps the session's last screen, not attach's status line.
func TestCloseTakesTheNoticeOff(t *testing.T) {
	const cols, rows = 20, 4
	for _, sticky := range []bool{false, true} {
		m := &fakeMirror{e: engine.New(term.Options{Cols: cols, Rows: rows})}
		var out bytes.Buffer
		d := NewDisplay(&out, m.get, cols, rows)
		m.e.Write([]byte("hello\r\nbottom row\r\n\r\nlast"))
		m.seq = 1
		scr, _, _ := m.get()
		d.Snapshot(&scr, 1)
		d.Notice("pen: nobody is driving", sticky)
		if got := rowText(terminalOf(out.Bytes(), cols, rows), rows-1); got != "pen: nobody is driv" {
			t.Fatalf("sticky %v: bottom row %q, want the notice", sticky, got)
		}
		d.Close()
		got := terminalOf(out.Bytes(), cols, rows)
		for r := range rows {
			if rowText(got, r) != rowText(scr, r) {
				t.Errorf("sticky %v: row %d %q after Close, want the session's %q", sticky, r, rowText(got, r), rowText(scr, r))
			}
		}
		if got.CursorRow != scr.CursorRow || got.CursorCol != scr.CursorCol {
			t.Errorf("sticky %v: cursor (%d,%d) after Close, want the session's (%d,%d)", sticky, got.CursorRow, got.CursorCol, scr.CursorRow, scr.CursorCol)
		}
		n := out.Len()
		d.Notice("late", false)
		d.Close()
		if out.Len() != n {
			t.Errorf("sticky %v: painted after Close", sticky)
		}
		m.e.Close()
	}
}
