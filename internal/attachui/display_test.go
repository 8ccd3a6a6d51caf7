package attachui

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/status"
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

// newDisplay returns a Display of cols×rows writing to out, over a mirror
// the test feeds.
func newDisplay(t *testing.T, cols, rows int) (*fakeMirror, *Display, *bytes.Buffer) {
	m := &fakeMirror{e: engine.New(term.Options{Cols: cols, Rows: rows})}
	t.Cleanup(func() { m.e.Close() })
	out := new(bytes.Buffer)
	return m, NewDisplay(out, m.get, cols, rows), out
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

// The status line shows on the bottom row over the mirrored screen; output while
// it shows does not corrupt the screen, and once it goes the terminal
// shows exactly the mirror.
func TestStatusLineDoesNotCorruptTheScreen(t *testing.T) {
	const cols, rows = 20, 4
	m, d, out := newDisplay(t, cols, rows)
	feed := func(p string) {
		m.e.Write([]byte(p))
		m.seq++
		d.Output(m.seq, []byte(p))
	}
	scr, _, _ := m.get()
	d.Snapshot(&scr, 0)
	feed("one\r\ntwo\r\nthree\r\nfour")
	d.SetState(status.State{Link: status.Connected, Room: attachwire.RoomLive, PenKnown: true})
	d.Message("hi ann")
	if got := rowText(terminalOf(out.Bytes(), cols, rows), rows-1); got != "hi ann · live" {
		t.Fatalf("bottom row %q, want the notice", got)
	}
	feed("\r\nfive")
	term := terminalOf(out.Bytes(), cols, rows)
	if rowText(term, rows-1) != "hi ann · live" || rowText(term, 0) != "two" {
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

// TestStatusLineIsOneState: the pen, who is here and the room arrive as
// separate events; the status line says each once, from one state, so a
// later event never leaves an earlier, contradicting notice beside it.
// A message shows with the state and goes with its time; a lost host
// stays up until it is back.
func TestStatusLineIsOneState(t *testing.T) {
	var out strings.Builder
	d := NewDisplay(&out, func() (attachwire.Screen, uint64, bool) { return attachwire.Screen{}, 0, false }, 200, 5)
	st := status.State{Link: status.Connected, Room: attachwire.RoomLive, ConnID: "c1"}
	st.PenKnown = true
	d.SetState(st)
	st.PenMine, st.PenUser, st.PenConn = true, "ann", "c1"
	d.SetState(st)
	st.Members = []attachwire.Member{{UserID: "ann", ConnID: "c1"}, {UserID: "bob", ConnID: "c2", Driving: true}}
	d.SetState(st)
	if got, want := d.Line(), "live · pen: you · 2 here: you (driving), bob"; got != want {
		t.Fatalf("status line %q, want %q", got, want)
	}
	d.Message("read-only: Ctrl-] g takes the pen")
	if got := d.Line(); !strings.HasPrefix(got, "read-only: Ctrl-] g takes the pen · live · pen: you") {
		t.Fatalf("status line %q does not lead with the message", got)
	}
	// A change that comes while the message is up leaves it there.
	st.Members = st.Members[:1]
	d.SetState(st)
	if got, want := d.Line(), "read-only: Ctrl-] g takes the pen · live · pen: you · 1 here: you (driving)"; got != want {
		t.Fatalf("status line %q, want %q", got, want)
	}
	d.Tick(time.Now().Add(2 * NoticeFor))
	if got := d.Line(); got != "" {
		t.Fatalf("status line %q still up after its time", got)
	}
	st.Room = attachwire.RoomHostReconnecting
	d.SetState(st)
	d.Message("relay: host-lost: the host dropped")
	d.Tick(time.Now().Add(2 * NoticeFor))
	if got := d.Line(); !strings.HasPrefix(got, "host reconnecting…") {
		t.Fatalf("status line %q, want the lost host to stay up, the message gone", got)
	}
	st.Room = attachwire.RoomLive
	d.SetState(st)
	if got := d.Line(); !strings.HasPrefix(got, "live · ") {
		t.Fatalf("status line %q after the host came back", got)
	}
	d.Tick(time.Now().Add(2 * NoticeFor))
	if got := d.Line(); got != "" {
		t.Fatalf("status line %q still up after the host came back and the time passed", got)
	}
}

// A narrow terminal's status line drops whole parts: no name is cut.
func TestNarrowStatusLine(t *testing.T) {
	const cols, rows = 24, 4
	m, d, out := newDisplay(t, cols, rows)
	scr, _, _ := m.get()
	d.Snapshot(&scr, 0)
	d.SetState(status.State{Link: status.Connected, Room: attachwire.RoomLive, PenKnown: true, PenUser: "dorothea", PenConn: "c1",
		Members: []attachwire.Member{{UserID: "dorothea", ConnID: "c1"}}})
	if got := rowText(terminalOf(out.Bytes(), cols, rows), rows-1); got != "live · pen: dorothea" {
		t.Fatalf("bottom row %q, want the presence dropped whole", got)
	}
}

// A status line still up when attach ends is taken off: the user's terminal
// keeps the session's last screen, not attach's status line.
func TestCloseTakesTheStatusLineOff(t *testing.T) {
	const cols, rows = 20, 4
	for _, sticky := range []bool{false, true} {
		m := &fakeMirror{e: engine.New(term.Options{Cols: cols, Rows: rows})}
		var out bytes.Buffer
		d := NewDisplay(&out, m.get, cols, rows)
		m.e.Write([]byte("hello\r\nbottom row\r\n\r\nlast"))
		m.seq = 1
		scr, _, _ := m.get()
		d.Snapshot(&scr, 1)
		st := status.State{Link: status.Connected, Room: attachwire.RoomLive, PenKnown: true}
		if sticky {
			st.Room = attachwire.RoomHostGone
		}
		d.SetState(st)
		if got, want := rowText(terminalOf(out.Bytes(), cols, rows), rows-1), status.Line(st, cols-1); got != want {
			t.Fatalf("sticky %v: bottom row %q, want %q", sticky, got, want)
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
		d.Message("late")
		d.Close()
		if out.Len() != n {
			t.Errorf("sticky %v: painted after Close", sticky)
		}
		m.e.Close()
	}
}

// TestPanel draws a panel above the status line, keeps it over output,
// trims it to the terminal, and paints the screen back when it goes.
func TestPanel(t *testing.T) {
	const cols, rows = 30, 6
	m, d, out := newDisplay(t, cols, rows)
	feed := func(p string) {
		m.e.Write([]byte(p))
		m.seq++
		d.Output(m.seq, []byte(p))
	}
	scr, _, _ := m.get()
	d.Snapshot(&scr, 0)
	feed("a\r\nb\r\nc\r\nd\r\ne\r\nprompt$ ")
	d.ShowPanel("recent commands", []string{"#1 ✓ 0   ls", "#2 ✗ 2   make"})
	d.Message("note")
	feed("typed")
	term := terminalOf(out.Bytes(), cols, rows)
	for r, want := range map[int]string{2: "recent commands", 3: "#1 ✓ 0   ls", 4: "#2 ✗ 2   make", 5: "note"} {
		if got := rowText(term, r); !strings.HasPrefix(got, want) {
			t.Errorf("row %d %q, want %q", r, got, want)
		}
	}
	if rowText(term, 0) != "a" {
		t.Errorf("top row %q: the screen above the panel is the mirror's", rowText(term, 0))
	}
	// A panel taller than the terminal keeps its title and its last lines.
	d.ShowPanel("title", []string{"1", "2", "3", "4", "5", "6", "7"})
	term = terminalOf(out.Bytes(), cols, rows)
	if rowText(term, 1) != "title" || rowText(term, 4) != "7" {
		t.Errorf("tall panel rows %q %q", rowText(term, 1), rowText(term, 4))
	}
	if !d.HidePanel() || d.HidePanel() {
		t.Fatal("HidePanel reports wrongly")
	}
	d.Tick(time.Now().Add(2 * NoticeFor))
	want, _, _ := m.get()
	got := terminalOf(out.Bytes(), cols, rows)
	for r := range rows {
		if rowText(got, r) != rowText(want, r) {
			t.Errorf("row %d %q after the panel, want %q", r, rowText(got, r), rowText(want, r))
		}
	}
	if got.CursorRow != want.CursorRow || got.CursorCol != want.CursorCol {
		t.Errorf("cursor (%d,%d), want (%d,%d)", got.CursorRow, got.CursorCol, want.CursorRow, want.CursorCol)
	}
}
