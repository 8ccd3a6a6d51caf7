package engine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/internal/term/termtest"
)

// genSequences returns n random but valid tokens: text (ASCII, wide,
// combining), C0 controls and the sequences both tmux and xterm implement
// the same way, with counts kept near the screen size.
func genSequences(seed uint64, n, cols, rows int) []byte {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	var b strings.Builder
	num := func(limit int) int { return r.IntN(limit) + 1 }
	top, bot := 0, rows-1 // the scroll region as set so far
	words := []string{"alpha", "beta", "gamma", "x", "hello world", "0123456789", "日本", "中文字", "café", "e\u0301", "ñ", "─┼─", "│", "❤\ufe0f", "😀", "👍🏽"}
	for range n {
		switch k := r.IntN(100); {
		case k < 30:
			b.WriteString(words[r.IntN(len(words))])
		case k < 36:
			b.WriteString("\r\n")
		case k < 39:
			b.WriteString([]string{"\r", "\n", "\b", "\t"}[r.IntN(4)])
		case k < 48:
			fmt.Fprintf(&b, "\x1b[%d;%dH", num(rows+2), num(cols+2))
		case k < 54:
			fmt.Fprintf(&b, "\x1b[%d%c", num(rows), "ABCDEFGd"[r.IntN(8)])
		case k < 58:
			fmt.Fprintf(&b, "\x1b[%dJ", r.IntN(3))
		case k < 62:
			fmt.Fprintf(&b, "\x1b[%dK", r.IntN(3))
		case k < 67:
			fmt.Fprintf(&b, "\x1b[%d%c", num(cols/2), "X@PST"[r.IntN(5)])
		case k < 70: // IL/DL with the cursor inside the region (outside it
			// tmux is erratic and xterm ignores them)
			fmt.Fprintf(&b, "\x1b[%dH\x1b[%d%c", top+1+r.IntN(bot-top+1), num(rows), "LM"[r.IntN(2)])
		case k < 80:
			b.WriteString(genSGR(r))
		case k < 83:
			t, bt := num(rows), 0
			bt = t + num(rows)
			fmt.Fprintf(&b, "\x1b[%d;%dr", t, bt)
			if bt = min(bt, rows); t < bt {
				top, bot = t-1, bt-1
			}
		case k < 85:
			b.WriteString("\x1b[r")
			top, bot = 0, rows-1
		case k < 88:
			b.WriteString([]string{"\x1b7", "\x1b8", "\x1bM", "\x1bD", "\x1bE"}[r.IntN(5)])
		case k < 90:
			fmt.Fprintf(&b, "\x1b[%db", num(cols))
		case k < 92: // HT (tmux 3.3 does not implement CHT)
			b.WriteString("\t")
		case k < 94:
			b.WriteString([]string{"\x1b[4h", "\x1b[4l"}[r.IntN(2)])
		case k < 96:
			b.WriteString([]string{"\x1b[?1049h", "\x1b[?1049l"}[r.IntN(2)])
		default:
			b.WriteString([]string{"\x1b(0lqk\x1b(B", "\x1b[?25l", "\x1b[?25h", "\x1b[3g", "\x1bH",
				"\x1b[?6h", "\x1b[?6l", "\x1b[?7l", "\x1b[?7h", "\x1b)0\x0eaq\x0f"}[r.IntN(10)])
		}
	}
	return []byte(b.String())
}

func genSGR(r *rand.Rand) string {
	var parts []string
	for range 1 + r.IntN(3) {
		switch k := r.IntN(10); {
		case k < 2:
			parts = append(parts, []string{"0", "1", "2", "3", "4", "7", "9", "22", "23", "24", "27", "29", "39", "49"}[r.IntN(14)])
		case k < 5:
			parts = append(parts, fmt.Sprint(30+r.IntN(8)), fmt.Sprint(40+r.IntN(8)))
		case k < 6:
			parts = append(parts, fmt.Sprint(90+r.IntN(8)))
		case k < 8:
			parts = append(parts, fmt.Sprintf("38;5;%d", r.IntN(256)))
		default:
			parts = append(parts, fmt.Sprintf("48;2;%d;%d;%d", r.IntN(256), r.IntN(256), r.IntN(256)))
		}
	}
	return "\x1b[" + strings.Join(parts, ";") + "m"
}

// randomDivergences lists generator seeds whose screen differs from tmux's
// where x/vt's does not differ either, with the reason.
var randomDivergences = map[uint64]string{
	5: "ICH of more cells than are shifted, on a line tmux stores short (here a freshly cleared alternate screen): tmux gives the SGR background only to as many inserted blanks as it moved cells, the rest keep the default; the engine gives all inserted blanks the SGR background (BCE), as xterm does",
}

// TestRandomAgainstTmux feeds generated streams to the engine, x/vt and a
// live tmux: the engine must match tmux wherever x/vt does, and on every
// seed not listed in randomDivergences.
func TestRandomAgainstTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a tmux server per case")
	}
	type run struct {
		cols, rows, tokens int
		seeds              []uint64
	}
	var seeds []run
	for _, r := range []run{{30, 8, 120, nil}, {40, 10, 150, nil}} {
		first := uint64(1)
		if r.cols == 40 {
			first = 100
		}
		for s := first; s < first+20; s++ {
			r.seeds = append(r.seeds, s)
		}
		seeds = append(seeds, r)
	}
	total, engineMatches, xvtMatches := 0, 0, 0
	for _, r := range seeds {
		for _, seed := range r.seeds {
			t.Run(fmt.Sprint(seed), func(t *testing.T) {
				total++
				data := genSequences(seed, r.tokens, r.cols, r.rows)
				want := termtest.TmuxScreen(t, r.cols, r.rows, data)
				got := engineScreen(t, r.cols, r.rows, data)
				d := termtest.Diff(want, got)
				xd := termtest.Diff(want, xvtScreen(t, r.cols, r.rows, data))
				if len(d) == 0 {
					engineMatches++
				}
				if len(xd) == 0 {
					xvtMatches++
				}
				detail := fmt.Sprintf("input %q\nengine:\n%s\ntmux:\n%s", data, got.Text(), want.Text())
				if len(d) > 0 && len(xd) == 0 {
					t.Errorf("engine differs from tmux where x/vt matches:\n%s\n%s", strings.Join(d, "\n"), detail)
					return
				}
				why, listed := randomDivergences[seed]
				termtest.CheckDivergence(t, d, why, listed, detail)
			})
		}
	}
	t.Logf("screens matching tmux: engine %d/%d, x/vt %d/%d", engineMatches, total, xvtMatches, total)
}
