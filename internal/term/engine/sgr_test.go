package engine

import (
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
