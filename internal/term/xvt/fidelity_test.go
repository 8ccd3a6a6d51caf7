package xvt

import (
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term/termtest"
)

// divergences lists the recordings where this backend's screen differs
// from tmux's, with the reason. Every other recording must match tmux
// under termtest.Diff, and every recording listed here must still differ
// (fix one, and the test asks for its line to go).
var divergences = map[string]string{
	"seq-cup-overflow":        "the filter saturates a parameter over 65535 as xterm does, so the CUP lands on the last row; tmux discards a sequence whose parameter overflows",
	"seq-cursor-moves":        "tmux does not implement HPR (CSI a) and VPR (CSI e); x/vt does",
	"seq-decstbm-origin-home": "xterm and x/vt home the cursor after DECSTBM relative to the margins in origin mode; tmux homes it to the first row",
	"seq-il-dl-column":        "xterm (and VT510) move the cursor to the left margin after IL and DL, as x/vt does; tmux leaves it in its column",
	"seq-lnm":                 "tmux ignores LNM (CSI 20 h); x/vt, like xterm, makes LF return the carriage too",
	"seq-rep-huge":            "tmux stops REP at the right margin; the filter clamps REP to rows×cols and x/vt wraps as xterm does",
	"seq-wide-overwrite":      "tmux keeps a wide glyph whose right half was overwritten and capture-pane shifts the rest of the row; x/vt blanks the glyph as xterm does",
}

// TestRecordingsAgainstTmux feeds every committed recording to the backend
// and compares its screen with tmux's golden capture.
func TestRecordingsAgainstTmux(t *testing.T) {
	seen := map[string]bool{}
	for _, rec := range termtest.LoadRecordings(t) {
		seen[rec.Name] = true
		t.Run(rec.Name, func(t *testing.T) {
			if rec.Golden == nil {
				t.Fatal("recording has no golden screen")
			}
			vt := newTerm(t, rec.Cols, rec.Rows, nil)
			feed(t, vt, string(rec.Data))
			var s attachwire.Screen
			vt.Screen(&s)
			got := termtest.FromScreen(&s)
			why, listed := divergences[rec.Name]
			termtest.CheckDivergence(t, termtest.Diff(*rec.Golden, got), why, listed, "x/vt text:\n"+got.Text())
		})
	}
	termtest.CheckTableNames(t, divergences, seen)
}

// historyDivergences lists the scrollback cases where this backend's
// history differs from tmux's, with the reason.
var historyDivergences = map[string]string{}

// TestScrollbackAgainstTmux replays streams that scroll into a live tmux
// and compares the primary scrollback as well as the screen.
func TestScrollbackAgainstTmux(t *testing.T) {
	cases := []struct{ name, data string }{
		{"lines", lines(10)},
		{"styled and wide", "\x1b[1;31mred\x1b[0m \x1b[44mblue bg\x1b[0m\r\n\u4e2d\u6587 x\r\n" + lines(6)},
		{"erase display", "a\r\nb\r\n\r\nc\x1b[2J\x1b[Hd"},
		{"erase scrollback", lines(10) + "\x1b[3J"},
		{"erase display with background", "ab\r\n\x1b[44m\x1b[2J\x1b[0mx"},
		{"erase display on the alternate screen", lines(8) + "\x1b[?1049hq\x1b[2J\x1b[?1049l"},
		{"clear", lines(8) + "\x1b[H\x1b[2J\x1b[3J$ "},
		{"alternate screen", lines(8) + "\x1b[?1049h" + lines(8) + "\x1b[?1049l"},
		{"scroll region at the top", "\x1b[1;4r" + lines(8) + "\x1b[r"},
		{"scroll region below the top", "\x1b[2;5r\x1b[2;1H" + lines(8) + "\x1b[r"},
		{"scroll up", "x\r\ny\r\nz\x1b[2S"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := termtest.TmuxHistory(t, 20, 6, []byte(tc.data))
			vt := newTerm(t, 20, 6, nil)
			feed(t, vt, tc.data)
			var s attachwire.Screen
			vt.Screen(&s)
			why, listed := historyDivergences[tc.name]
			termtest.CheckDivergence(t, termtest.Diff(want, termtest.FromScreenHistory(&s)), why, listed, "")
		})
	}
}
