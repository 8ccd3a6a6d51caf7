package screen_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/repaint"
	"github.com/ptyhost/ptyhost/internal/term"
	termengine "github.com/ptyhost/ptyhost/internal/term/engine"
	"github.com/ptyhost/ptyhost/internal/term/termtest"
	"github.com/ptyhost/ptyhost/web/screen"
)

// testScrollback is the scrollback the host, the Screen and the terminal
// painted keep in these tests.
const testScrollback = 500

// splits returns the ways the tests cut a stream into Output frames.
func splits(data []byte) map[string][][]byte {
	out := map[string][][]byte{"whole": {data}}
	rng := rand.New(rand.NewPCG(1, 2))
	var random [][]byte
	for rest := data; len(rest) > 0; {
		n := min(len(rest), 1+rng.IntN(64))
		random, rest = append(random, rest[:n]), rest[n:]
	}
	out["random"] = random
	if len(data) <= 4096 {
		bytewise := make([][]byte, len(data))
		for i := range data {
			bytewise[i] = data[i : i+1]
		}
		out["bytewise"] = bytewise
	}
	return out
}

// standIn turns a paint into what the engine standing in for xterm.js
// reads as xterm.js reads the paint: with autowrap off, xterm.js keeps a
// glyph printed in the last column as the cell a following combining
// mark joins, where the engine joins the mark to the cell before it.
// With autowrap on both join the last cell, and the paint, which sets
// the column after every glyph, wraps nothing either way.
func standIn(paint []byte) []byte {
	return bytes.ReplaceAll(paint, []byte("\x1b[?7l"), []byte("\x1b[?7h"))
}

// run feeds chunks to a host engine and, from a snapshot taken after
// the first join chunks, to a Screen, whose paints go to a terminal of
// its own (another engine, standing in for the page's xterm.js); it
// returns the host's screen and the terminal's.
func run(t testing.TB, cols, rows, join int, chunks [][]byte) (host, page attachwire.Screen) {
	t.Helper()
	opts := term.Options{Cols: cols, Rows: rows, Scrollback: testScrollback}
	h := termengine.New(opts)
	defer h.Close()
	view := termengine.New(opts)
	defer view.Close()
	s := screen.New(testScrollback)
	defer s.Close()
	for i, c := range chunks {
		if i == join {
			var snap attachwire.Screen
			h.Screen(&snap)
			view.Write(standIn(s.Load(nil, &snap)))
		}
		h.Write(c)
		if i >= join {
			view.Write(standIn(s.Write(nil, c)))
		}
	}
	if join >= len(chunks) {
		var snap attachwire.Screen
		h.Screen(&snap)
		view.Write(standIn(s.Load(nil, &snap)))
	}
	h.Screen(&host)
	view.Screen(&page)
	return host, page
}

// diff compares the host's screen with the painted terminal's: every
// cell of the active grid exactly, the cursor, and the scrollback.
func diff(host, page *attachwire.Screen) []string {
	var out []string
	if host.Active != page.Active {
		return []string{fmt.Sprintf("active buffer: host %v, page %v", host.Active, page.Active)}
	}
	if host.CursorRow != page.CursorRow || host.CursorCol != page.CursorCol || host.CursorVisible != page.CursorVisible {
		out = append(out, fmt.Sprintf("cursor: host %d,%d visible %v; page %d,%d visible %v",
			host.CursorRow, host.CursorCol, host.CursorVisible, page.CursorRow, page.CursorCol, page.CursorVisible))
	}
	hg, pg := host.Primary, page.Primary
	if host.Active == attachwire.BufferAlternate {
		hg, pg = host.Alt, page.Alt
	}
	for i := range hg {
		if hg[i] != pg[i] && len(out) < 20 {
			out = append(out, fmt.Sprintf("r%dc%d: host %+v, page %+v", i/host.Cols, i%host.Cols, hg[i], pg[i]))
		}
	}
	// The terminal shows no pending wrap (the paint keeps autowrap off):
	// only the cursor's place compares.
	hg2, pg2 := termtest.FromScreenHistory(host), termtest.FromScreenHistory(page)
	hg2.Wrap, pg2.Wrap = termtest.WrapUnknown, termtest.WrapUnknown
	if d := termtest.Diff(hg2, pg2); len(d) > 0 {
		out = append(out, d...)
	}
	return out
}

// joins returns where the tests let the page join: at the start, at the
// end, and at the first frame boundary past the middle after a line
// feed (a snapshot is taken between frames, and a host's frames do not
// end inside an escape sequence, which a cut at random points would).
func joins(chunks [][]byte) []int {
	out := []int{0, len(chunks)}
	for i := len(chunks) / 2; i > 0 && i < len(chunks); i++ {
		if c := chunks[i-1]; c[len(c)-1] == '\n' {
			return append(out, i)
		}
	}
	return out
}

func TestCorpus(t *testing.T) {
	for _, rec := range termtest.LoadRecordings(t) {
		for name, chunks := range splits(rec.Data) {
			for _, join := range joins(chunks) {
				host, page := run(t, rec.Cols, rec.Rows, join, chunks)
				if join > 0 && join < len(chunks) && !snapshotHolds(rec.Cols, rec.Rows, join, chunks) {
					// A snapshot carries no margins or charsets: no viewer
					// joining there can know them.
					continue
				}
				if d := diff(&host, &page); len(d) > 0 {
					t.Errorf("%s, %s, joined at frame %d of %d:\n%v", rec.Name, name, join, len(chunks), d)
				}
			}
		}
	}
}

// snapshotHolds reports whether an engine loaded from the host's
// snapshot after chunks[:join] and fed the rest ends on the host's screen.
func snapshotHolds(cols, rows, join int, chunks [][]byte) bool {
	opts := term.Options{Cols: cols, Rows: rows, Scrollback: testScrollback}
	h, m := termengine.New(opts), termengine.New(opts)
	defer h.Close()
	defer m.Close()
	for i, c := range chunks {
		if i == join {
			var snap attachwire.Screen
			h.Screen(&snap)
			m.Write(repaint.AppendScreen(nil, &snap, repaint.Options{Scrollback: true, InputModes: true}))
		}
		h.Write(c)
		if i >= join {
			m.Write(c)
		}
	}
	var a, b attachwire.Screen
	h.Screen(&a)
	m.Screen(&b)
	return len(diff(&a, &b)) == 0
}

func TestSplitCases(t *testing.T) {
	for _, c := range termtest.SplitCases() {
		if c.Name == "zwj" {
			// The engine standing in for xterm.js joins what follows a
			// joiner even across the paint's escape sequences, where
			// xterm.js stops joining: a cluster painted while it still
			// ends in the joiner swallows the next glyph here only. The
			// browser test covers it on xterm.js.
			continue
		}
		for name, chunks := range splits(c.Data) {
			host, page := run(t, 20, 4, 0, chunks)
			if d := diff(&host, &page); len(d) > 0 {
				t.Errorf("%s, %s:\n%v", c.Name, name, d)
			}
		}
	}
}

// TestResize: after a resize the terminal shows the host's rewrapped
// screen and scrollback, however the terminal's own rewrap went.
func TestResize(t *testing.T) {
	for _, rec := range termtest.LoadRecordings(t) {
		opts := term.Options{Cols: rec.Cols, Rows: rec.Rows, Scrollback: testScrollback}
		h, view := termengine.New(opts), termengine.New(opts)
		s := screen.New(testScrollback)
		var snap attachwire.Screen
		h.Screen(&snap)
		view.Write(standIn(s.Load(nil, &snap)))
		h.Write(rec.Data)
		view.Write(standIn(s.Write(nil, rec.Data)))
		for _, size := range [][2]int{{rec.Cols - 3, rec.Rows + 2}, {rec.Cols + 5, rec.Rows - 1}} {
			h.Resize(size[0], size[1], 0, 0)
			view.Resize(size[0], size[1], 0, 0)
			view.Write(standIn(s.Resize(nil, size[0], size[1], 0, 0)))
			h.Write([]byte("after\r\n"))
			view.Write(standIn(s.Write(nil, []byte("after\r\n"))))
			var host, page attachwire.Screen
			h.Screen(&host)
			view.Screen(&page)
			if d := diff(&host, &page); len(d) > 0 {
				t.Errorf("%s resized to %dx%d:\n%v", rec.Name, size[0], size[1], d)
			}
		}
		h.Close()
		view.Close()
		s.Close()
	}
}

// TestInputModes: the program's input modes reach the terminal only
// while the page holds the pen, and are all turned off when it loses it.
func TestInputModes(t *testing.T) {
	s := screen.New(0)
	blank := attachwire.Screen{Cols: 10, Rows: 2, Primary: make([]attachwire.Cell, 20)}
	for i := range blank.Primary {
		blank.Primary[i] = attachwire.BlankCell()
	}
	s.Load(nil, &blank)
	if p := string(s.Write(nil, []byte("\x1b[?2004h\x1b[?1000;1006h"))); strings.Contains(p, "2004h") || strings.Contains(p, "1000") {
		t.Errorf("a page without the pen was painted the input modes: %q", p)
	}
	if p := string(s.SetInput(nil, true)); !strings.Contains(p, "2004") || !strings.Contains(p, "1000") || !strings.Contains(p, "1006") {
		t.Errorf("taking the pen painted %q, want bracketed paste and SGR mouse on", p)
	}
	if p := string(s.Write(nil, []byte("\x1b[?2004l"))); !strings.Contains(p, "2004") {
		t.Errorf("the program turning bracketed paste off painted %q", p)
	}
	if p := string(s.SetInput(nil, false)); !strings.HasPrefix(p, "\x1b[?1;2004;1004;1000;1002;1003;1005;1006l") || strings.Contains(p, "h") {
		t.Errorf("losing the pen painted %q, want every input mode off", p)
	}
	// The paint never carries what the program sent but cells: no
	// query, title or clipboard write.
	for _, q := range []string{"\x1b[c", "\x1b]0;title\x07", "\x1b]52;c;eA==\x07", "\x1b[6n", "\x1bP$qm\x1b\\"} {
		p := string(s.Write(nil, []byte(q+"x")))
		for _, bad := range []string{"]0;", "]52", "6n", "P$q", "[c"} {
			if strings.Contains(p, bad) {
				t.Errorf("writing %q painted %q", q, p)
			}
		}
	}
}
