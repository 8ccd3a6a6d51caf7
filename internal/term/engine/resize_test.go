package engine

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/internal/term"
)

// fillScrollback writes lines of cols-wide text (two rows each after a
// resize that narrows by one column) until scrollback holds n lines.
func fillScrollback(tb testing.TB, e *Engine, n int) {
	tb.Helper()
	cols, _ := e.Size()
	for i := 0; e.sb.len() < n; i++ {
		s := fmt.Sprintf("\x1b[3%dm%06d 世界 e\u0301 ", i%8, i)
		s += strings.Repeat(string(rune('a'+i%26)), max(cols-len([]rune(s))-3, 0))
		fmt.Fprintf(writerFunc(e.Write), "%s\x1b[m\r\n", s)
	}
}

// resizeBytes returns the bytes allocated by one Resize, averaged over
// runs that alternate between two widths so that each one reflows.
func resizeBytes(e *Engine, runs int) (bytesPer, allocsPer float64) {
	cols, rows := e.Size()
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	for i := range runs {
		e.Resize(cols-1+i%2, rows, 0, 0)
	}
	runtime.ReadMemStats(&m1)
	return float64(m1.TotalAlloc-m0.TotalAlloc) / float64(runs), float64(m1.Mallocs-m0.Mallocs) / float64(runs)
}

// TestResizeAllocBounded checks that a resize allocates for the screen
// and the reflowed window of scrollback only, not per scrollback line:
// 10,000 lines cost about what 300 do.
func TestResizeAllocBounded(t *testing.T) {
	const cols, rows = 200, 50
	var perLines [2]float64
	for i, n := range [...]int{300, 10000} {
		e, _ := newTest(t, cols, rows, n)
		fillScrollback(t, e, n)
		bytes, allocs := resizeBytes(e, 10)
		t.Logf("%d scrollback lines at %dx%d: %.0f bytes, %.0f allocations a resize", n, cols, rows, bytes, allocs)
		// The screen twice, the reflow window (its logical lines and
		// its rows) and the cluster table: a few MiB at most.
		if limit := 8.0 * 12 * cols * (rows + rawLines); bytes > limit {
			t.Errorf("%d scrollback lines: a resize allocates %.0f bytes, want at most %.0f", n, bytes, limit)
		}
		if allocs > 200 {
			t.Errorf("%d scrollback lines: a resize allocates %.0f times, want at most 200", n, allocs)
		}
		checkInvariants(t, screenOf(e))
		perLines[i] = bytes
	}
	if perLines[1] > 1.5*perLines[0]+64<<10 {
		t.Errorf("a resize with 10,000 scrollback lines allocates %.0f bytes, with 300 %.0f: it grows with scrollback", perLines[1], perLines[0])
	}
}

// BenchmarkResize resizes an engine with 10,000 lines of scrollback
// between 200 and 199 columns, each resize reflowing.
func BenchmarkResize(b *testing.B) {
	const cols, rows, lines = 200, 50, 10000
	e := New(term.Options{Cols: cols, Rows: rows, Scrollback: lines})
	fillScrollback(b, e, lines)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		e.Resize(cols-i%2, rows, 0, 0)
		i++
	}
}
