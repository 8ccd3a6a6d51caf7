package engine

import (
	"fmt"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term"
)

// TestPlainSGRTable checks that sgrOps, which csiFast's plainSGR applies,
// does what the general sgrFrom does for every code, from several pens
// and in pairs.
func TestPlainSGRTable(t *testing.T) {
	pens := []pen{
		{},
		{style: 0x3F, fg: attachwire.IndexedColor(3), bg: attachwire.RGBColor(1, 2, 3)},
		{style: attachwire.StyleBold | attachwire.StyleUnderline, fg: attachwire.RGBColor(9, 8, 7)},
	}
	codes := []int32{0, 1, 2, 3, 4, 5, 7, 9, 21, 22, 23, 24, 27, 29, 30, 37, 38, 39, 40, 47, 48, 49, 58, 90, 97, 100, 107, 108, 200}
	for v := range int32(120) {
		codes = append(codes, v)
	}
	e := New(term.Options{Cols: 10, Rows: 2})
	for _, start := range pens {
		for _, a := range codes {
			for _, params := range [][]int32{{a}, {a, 1}, {31, a}, {a, 5, 200}} {
				e.p.params = [maxParams]int32{}
				copy(e.p.params[:], params)
				e.p.nparams, e.p.colons = len(params), 0

				e.cur.pen = start
				e.sgrFrom(0)
				want := e.cur.pen

				e.cur.pen = start
				e.plainSGR()
				if got := e.cur.pen; got != want {
					t.Fatalf("SGR %v from %+v: plainSGR gives %+v, sgrFrom %+v", params, start, got, want)
				}
			}
		}
	}
}

// TestShortSGR checks csiFast's shortcut for an SGR of one code of one or
// two digits against the general path: each code, written whole (the
// shortcut) and from several pens, gives the pen sgrFrom gives.
func TestShortSGR(t *testing.T) {
	starts := []string{"", "\x1b[1;3;38;2;1;2;3;48;5;9m", "\x1b[4:3;7;31m"}
	for v := range 100 {
		for _, start := range starts {
			e := New(term.Options{Cols: 10, Rows: 2})
			e.Write([]byte(start))
			from := e.cur.pen
			e.Write(fmt.Appendf(nil, "\x1b[%dmx", v))
			got := e.cur.pen

			e.cur.pen = from
			e.p.params = [maxParams]int32{int32(v)}
			e.p.nparams, e.p.colons = 1, 0
			e.sgrFrom(0)
			if want := e.cur.pen; got != want {
				t.Fatalf("SGR %d from %q: %+v, want %+v", v, start, got, want)
			}
		}
	}
	checkSplits(t, 20, 3, fmt.Appendf(nil, "\x1b[1mA\x1b[32mB\x1b[4mC\x1b[0mD\x1b[38mE\x1b[99mF\x1b[7m\x1b[27mG"))
}
