package engine

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/streamgen"
)

// TestScrollOneMatchesScrollUp pins the line feed's short path (scrollOne,
// and scrollback.push's inline case) against the general scrollUp: two
// engines take the same stream, one scrolling through scrollOne as Write
// does, the other with every line feed at the bottom replayed through
// scrollUp and scrollback.slot, and must show the same screen and scrollback throughout,
// with scrollback sizes on both sides of a full raw ring.
func TestScrollOneMatchesScrollUp(t *testing.T) {
	data := streamgen.Mixed(3, 64<<10)
	for _, sbLines := range []int{0, 1, 7, 200, rawLines, rawLines + 30} {
		t.Run(fmt.Sprint(sbLines), func(t *testing.T) {
			// A row the fast path scrolled wrongly off a 6-row screen is
			// soon gone from it, so with little scrollback the screens are
			// compared often; with a large one the wrong row stays in the
			// scrollback, and a comparison (which copies all of it) every
			// few hundred bytes still finds it, at a tenth of the cost.
			every := 97
			if sbLines >= 200 {
				every = 997
			}
			fast, _ := newTest(t, 30, 6, sbLines)
			slow, _ := newTest(t, 30, 6, sbLines)
			for i, c := range data {
				fast.Write(data[i : i+1])
				if c == '\n' && slow.p.state == stGround && slow.p.utf.need == 0 && slow.cur.row == slow.bot && slow.top == 0 && slow.bot == slow.rows-1 {
					// What indexBg does, through the general path:
					// scrollUp with push's general case.
					b := slow.scr
					l := b.line(0)
					if !slow.altActive {
						if slot, ok := slow.sb.slot(&slow.ct); ok {
							slow.sb.swapIn(slot, l)
						}
					}
					b.scrollUp(0, b.rows-1, 1, slow.cur.pen.bg, nil, &slow.ct)
					slow.lastRune = -1
				} else {
					slow.Write(data[i : i+1])
				}
				if i%every == 0 || i == len(data)-1 {
					if f, s := screenOf(fast), screenOf(slow); !reflect.DeepEqual(f, s) {
						t.Fatalf("after byte %d:\nscrollOne:\n%s\nscrollUp:\n%s", i, screenDump(f), screenDump(s))
					}
				}
			}
		})
	}
}

// TestLineFeedBackground checks that a line feed at the bottom gives the
// line it scrolls in the pen's background, and a wrap the default one
// (tmux does so).
func TestLineFeedBackground(t *testing.T) {
	e, _ := newTest(t, 4, 2, 5)
	lastBg := func() attachwire.Color {
		s := screenOf(e)
		return s.Primary[2*s.Cols-1].Bg
	}
	e.Write([]byte("\n\x1b[44m\n\x1b[0mab"))
	if got, want := lastBg(), attachwire.IndexedColor(4); got != want {
		t.Errorf("after a line feed in blue, the new row ends in %v, want %v", got, want)
	}
	e.Write([]byte("\x1b[44mcdxy"))
	if got := lastBg(); got != 0 {
		t.Errorf("after a wrap in blue, the new row ends in %v, want the default", got)
	}
}
