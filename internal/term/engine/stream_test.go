package engine

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/streamgen"
	"github.com/ptyhost/ptyhost/internal/term"
	"github.com/ptyhost/ptyhost/internal/term/termtest"
)

// TestMixedStreamSplits feeds the realistic benchmark stream whole and in
// seeded random chunks: screens, scrollback and answers must not depend on
// how the input was split.
func TestMixedStreamSplits(t *testing.T) {
	data := streamgen.Mixed(3, 256<<10)
	whole, _ := newTest(t, 120, 40, 300)
	whole.Write(data)
	want := screenOf(whole)
	checkInvariants(t, want)
	for seed := range uint64(3) {
		e, _ := newTest(t, 120, 40, 300)
		rng := rand.New(rand.NewPCG(seed, 7))
		for rest := data; len(rest) > 0; {
			n := min(len(rest), 1+rng.IntN(4096))
			e.Write(rest[:n])
			rest = rest[n:]
		}
		if got := screenOf(e); !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: screen differs from the whole write", seed)
		}
	}
}

// ambiguousRow reports whether row r holds a ZWJ sequence or a regional
// indicator: tmux's capture-pane prints such clusters as bare code points
// and termtest.ParseCapture gives them widths of its own (a regional
// indicator two cells, where tmux's cursor shows one), so those rows
// cannot be compared cell by cell. The cursor still is.
func ambiguousRow(s *attachwire.Screen, r int) bool {
	if r < 0 || r >= s.Rows {
		return false
	}
	for _, c := range s.Primary[r*s.Cols : (r+1)*s.Cols] {
		for _, x := range c.Content {
			if x == zwj || x >= 0x1F1E6 && x <= 0x1F1FF {
				return true
			}
		}
	}
	return false
}

// TestMixedStreamAgainstTmux compares the engine with tmux on the
// benchmark's realistic stream.
func TestMixedStreamAgainstTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a tmux server")
	}
	for _, seed := range []uint64{1, 2} {
		data := streamgen.Mixed(seed, 64<<10)
		if i := strings.LastIndexByte(string(data), '\n'); i >= 0 {
			data = data[:i+1] // whole sequences only
		}
		want := termtest.TmuxScreen(t, 120, 40, data)
		var s attachwire.Screen
		e, _ := newTest(t, 120, 40, 200)
		e.Write(data)
		e.Screen(&s)
		got := termtest.FromScreen(&s)
		xv := xvtScreen(t, 120, 40, data)
		for r := range s.Rows {
			if ambiguousRow(&s, r) {
				for c := range s.Cols {
					for _, g := range []*termtest.Grid{&want, &got, &xv} {
						g.Cells[r*s.Cols+c] = termtest.Cell{Text: " "}
					}
				}
			}
		}
		d := termtest.Diff(want, got)
		t.Logf("seed %d: engine %d differences from tmux, x/vt %d", seed, len(d), len(termtest.Diff(want, xv)))
		if len(d) > 0 {
			t.Errorf("seed %d: engine differs from tmux:\n%s", seed, strings.Join(d, "\n"))
		}
	}
}

// TestSplitCases: the engine gives the same screen and answers however
// its input is split, on termtest's cases and on every recording (the
// snapshot promise: replaying frames 1..N gives the snapshot at N, while
// frame boundaries fall wherever the host's reads do).
func TestSplitCases(t *testing.T) {
	for _, c := range termtest.SplitCases() {
		t.Run(c.Name, func(t *testing.T) {
			termtest.CheckSplits(t, newEngine, term.Options{Cols: 10, Rows: 4, Scrollback: 20, Version: "1.2.3"}, c.Data)
		})
	}
	if testing.Short() {
		return
	}
	for _, rec := range termtest.LoadRecordings(t) {
		t.Run(rec.Name, func(t *testing.T) {
			termtest.CheckSplits(t, newEngine, term.Options{Cols: rec.Cols, Rows: rec.Rows, Scrollback: 100}, rec.Data)
		})
	}
}
