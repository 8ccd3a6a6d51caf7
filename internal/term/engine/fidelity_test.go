package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term"
	"github.com/ptyhost/ptyhost/internal/term/termtest"
	"github.com/ptyhost/ptyhost/internal/term/xvt"
)

// divergences lists the recordings where this engine's screen differs
// from tmux's, with the reason. Every other recording must match tmux
// under termtest.Diff, and every recording listed here must still differ.
var divergences = map[string]string{
	"seq-cursor-moves":   "tmux does not implement HPR (CSI a) and VPR (CSI e); the engine does, as xterm and x/vt do",
	"seq-wide-overwrite": "tmux keeps a wide glyph whose right half was overwritten and capture-pane shifts the rest of the row; the engine blanks the glyph as xterm and x/vt do",
}

// viewerDivergences lists the recordings where the engine differs from
// tmux, even where x/vt matches tmux, because it parses with the
// sanitizer's structure rules: tmux 3.3a and x/vt ignore
// UTF-8-encoded C1 controls, the sanitizer turns them into their 7-bit
// forms and so a viewer's terminal acts on them. For these the engine's screen
// must be the viewer's: the one it shows for the sanitizer's output.
var viewerDivergences = map[string]string{
	"seq-c1-in-text": "UTF-8-encoded CSI and NEL (C2 9B, C2 85): the engine follows the sanitizer's C1 rules so the host screen matches viewers (here REP and NEL); tmux and x/vt ignore them",
}

// xvtScreen feeds data to the x/vt backend and returns its grid.
func xvtScreen(tb testing.TB, cols, rows int, data []byte) termtest.Grid {
	tb.Helper()
	vt, err := xvt.New(term.Options{Cols: cols, Rows: rows, Scrollback: 100})
	if err != nil {
		tb.Fatal(err)
	}
	defer vt.Close()
	vt.Write(data)
	var s attachwire.Screen
	vt.Screen(&s)
	return termtest.FromScreen(&s)
}

func engineScreen(tb testing.TB, cols, rows int, data []byte) termtest.Grid {
	tb.Helper()
	e, _ := newTest(tb, cols, rows, 100)
	e.Write(data)
	s := screenOf(e)
	checkInvariants(tb, s)
	return termtest.FromScreen(s)
}

// TestRecordingsAgainstTmux feeds every committed recording to this
// engine and to x/vt and compares both with tmux's golden capture: the
// engine must match wherever x/vt does, and everywhere not listed in
// divergences.
func TestRecordingsAgainstTmux(t *testing.T) {
	seen := map[string]bool{}
	for _, rec := range termtest.LoadRecordings(t) {
		seen[rec.Name] = true
		t.Run(rec.Name, func(t *testing.T) {
			if rec.Golden == nil {
				t.Fatal("recording has no golden screen")
			}
			got := engineScreen(t, rec.Cols, rec.Rows, rec.Data)
			d := termtest.Diff(*rec.Golden, got)
			xd := termtest.Diff(*rec.Golden, xvtScreen(t, rec.Cols, rec.Rows, rec.Data))
			why, listed := divergences[rec.Name]
			vwhy, viewer := viewerDivergences[rec.Name]
			if viewer {
				why, listed = vwhy, true
				sameAsViewer(t, rec.Cols, rec.Rows, rec.Data)
			}
			if len(d) > 0 && len(xd) == 0 && !viewer {
				t.Errorf("engine differs from tmux where x/vt matches:\n%s\nengine text:\n%s", strings.Join(d, "\n"), got.Text())
				return
			}
			termtest.CheckDivergence(t, d, why, listed, "engine text:\n"+got.Text())
		})
	}
	termtest.CheckTableNames(t, viewerDivergences, seen)
	termtest.CheckTableNames(t, divergences, seen)
}

// streamDivergences lists the sanitizer's test streams where this engine
// differs from tmux, with the reason.
var streamDivergences = map[string]string{}

// TestSanitizerStreamsAgainstTmux replays the sanitizer's recorded test
// streams (80×24) into the engine, x/vt and a live tmux.
func TestSanitizerStreamsAgainstTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a tmux server per stream")
	}
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "attachwire", "sanitize", "testdata", "streams", "*.raw"))
	if err != nil || len(files) == 0 {
		t.Skipf("no sanitizer streams: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".raw")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			want := termtest.TmuxScreen(t, 80, 24, data)
			got := engineScreen(t, 80, 24, data)
			d := termtest.Diff(want, got)
			xd := termtest.Diff(want, xvtScreen(t, 80, 24, data))
			if len(d) > 0 && len(xd) == 0 {
				t.Errorf("engine differs from tmux where x/vt matches:\n%s", strings.Join(d, "\n"))
				return
			}
			why, listed := streamDivergences[name]
			termtest.CheckDivergence(t, d, why, listed, fmt.Sprintf("x/vt: %d differences; engine:\n%s", len(xd), got.Text()))
		})
	}
}

// knownDivergences are the constructs the generator leaves out because
// the engine deliberately differs from tmux on them, each with the reason.
// TestKnownDivergences checks that each still differs, so the table
// cannot go stale.
var knownDivergences = []struct {
	name, in, why string
}{
	{"cht", "\x1b[2;8H\x1b[4Ix", "tmux 3.3 does not implement CHT (CSI I); the engine moves to the fourth next tab stop, as xterm and x/vt do"},
	{"hpr vpr", "\x1b[2;2H\x1b[3ax\x1b[2ey", "tmux does not implement HPR (CSI a) and VPR (CSI e); the engine does, as xterm and x/vt do"},
	{"il outside region", "A\r\nB\r\nC\r\nD\x1b[3;4r\x1b[1;1H\x1b[2L", "IL/DL with the cursor outside the scroll region: xterm ignores them, tmux is erratic (it shifts some counts and not others); the engine ignores them"},
	{"zwj sequence", "a👩\u200d💻b", "a ZWJ emoji sequence: the engine keeps it in one wide cell (the cursor agrees with tmux), but capture-pane prints the cluster's code points and the capture parser gives each its own cells"},
	{"wide overwritten", "中文\x1b[1;2Hx", "printing over the right half of a wide glyph: tmux keeps the glyph and capture-pane shifts the row; the engine blanks both halves, as xterm does"},
	{"raw c1 csi", "A\x9b2JB", "a raw C1 CSI (0x9B): tmux 3.3a ignores C1 in UTF-8 mode and prints 2JB; the engine follows the sanitizer's C1 rules so the host screen matches viewers (ED 2, as x/vt does too)"},
	{"utf-8 c1 nel", "A\xc2\x85B", "a UTF-8-encoded NEL (C2 85): tmux and x/vt ignore it; the engine follows the sanitizer's C1 rules so the host screen matches viewers (a new line)"},
	{"non-ascii in csi", "A\x1b[2éJB\x1b[1;31世mC", "a non-ASCII character inside a CSI: tmux ignores the character and runs ED 2 and SGR (x/vt aborts both and prints the rest); the engine follows the sanitizer's structure rules so the host screen matches viewers (both sequences dropped)"},
}

func TestKnownDivergences(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a tmux server per case")
	}
	for _, k := range knownDivergences {
		t.Run(k.name, func(t *testing.T) {
			data := []byte(k.in)
			want := termtest.TmuxScreen(t, 20, 4, data)
			d := termtest.Diff(want, engineScreen(t, 20, 4, data))
			xd := termtest.Diff(want, xvtScreen(t, 20, 4, data))
			t.Logf("%s: engine %d differences, x/vt %d", k.why, len(d), len(xd))
			if len(d) == 0 {
				t.Errorf("the engine matches tmux now: remove the entry")
			}
		})
	}
}
