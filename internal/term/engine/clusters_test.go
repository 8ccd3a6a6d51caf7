package engine

import (
	"runtime"
	"strings"
	"testing"
)

// distinctCluster returns the k-th of many distinct clusters: a letter
// and three combining marks.
func distinctCluster(k int) string {
	const marks = 0x370 - 0x300
	return string([]rune{
		rune('A' + k%26),
		rune(0x300 + (k/26)%marks),
		rune(0x300 + (k/26/marks)%marks),
		rune(0x300 + (k/26/marks/marks)%marks),
	})
}

// floodClusters fills the screen with n distinct clusters, from k on.
func floodClusters(e *Engine, k, n int) {
	var b strings.Builder
	for i := range n {
		b.WriteString(distinctCluster(k + i))
	}
	e.Write([]byte(b.String()))
}

// TestClusterTableBoundedAcrossResizes floods distinct clusters and
// resizes, over and over: the table (and the heap) must stay within the
// bound clusters.go documents instead of doubling every cycle.
func TestClusterTableBoundedAcrossResizes(t *testing.T) {
	e, _ := newTest(t, 80, 24, 200)
	k := 0
	var peak int
	for cycle := range 20 {
		n := 80 * 24 * 2
		floodClusters(e, k, n)
		k += n
		e.Resize(80+cycle%2, 24+cycle%2, 0, 0)
		peak = max(peak, len(e.ct.strs))
		if bound := e.clusterBound(); len(e.ct.strs) > bound {
			t.Fatalf("cycle %d: %d clusters in the table, bound %d", cycle, len(e.ct.strs), bound)
		}
	}
	checkInvariants(t, screenOf(e))
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	t.Logf("table after 20 cycles: %d entries (peak %d, bound %d), heap %d KiB", len(e.ct.strs), peak, e.clusterBound(), m.HeapAlloc>>10)
	if m.HeapAlloc > 64<<20 {
		t.Errorf("heap %d MiB after the cycles", m.HeapAlloc>>20)
	}
}

// TestClusterNoAlias fills the screens with more distinct live clusters
// than the table may hold (its limit lowered for the test): every cell
// reads back either as what was printed there or as U+FFFD (with the
// marks that came after it), never as another cluster, and once the flood is gone a new cluster reads back
// exactly.
func TestClusterNoAlias(t *testing.T) {
	const cols, rows = 40, 10
	e, _ := newTest(t, cols, rows, 20)
	e.ct.limit = 300
	e.ct.next = min(e.ct.next, e.ct.limit)
	for pass := range 3 {
		base := pass * cols * rows
		e.Write([]byte("\x1b[H\x1b[2J"))
		floodClusters(e, base, cols*rows)
		if len(e.ct.strs) > e.ct.limit {
			t.Fatalf("pass %d: %d clusters, limit %d", pass, len(e.ct.strs), e.ct.limit)
		}
		s := screenOf(e)
		checkInvariants(t, s)
		fallback := 0
		for i, c := range s.Primary[:cols*(rows-1)] {
			want := distinctCluster(base + i)
			switch {
			case c.Content == want:
			case strings.HasPrefix(c.Content, "\uFFFD"):
				// A mark that found no room, and the marks after it.
				fallback++
			default:
				t.Fatalf("pass %d: cell %d reads %q, printed %q", pass, i, c.Content, want)
			}
		}
		if fallback == 0 {
			t.Fatalf("pass %d: no cell fell back, the limit was not reached", pass)
		}
	}
	// The flood leaves; after enough new clusters to pay for a
	// collection, a new one reads back exactly.
	e.Write([]byte("\x1b[H\x1b[2J\x1b[3J"))
	for i := range e.clusterInterval() + 1 {
		floodClusters(e, 1<<20+i, 1)
		e.Write([]byte("\x1b[H\x1b[K"))
	}
	e.Write([]byte("\x1b[HQ\u0301\u0302"))
	if got := gridText(screenOf(e))[0]; got != "Q\u0301\u0302" {
		t.Fatalf("after the flood a cluster reads %q", got)
	}
}

// TestClusterLimitFitsCell checks that no table index can reach past the
// cell's rune field.
func TestClusterLimitFitsCell(t *testing.T) {
	if maxClusters > runeMask+1 {
		t.Fatalf("maxClusters %d exceeds the cell's index field (%d)", maxClusters, runeMask+1)
	}
	e, _ := newTest(t, 10, 2, 0)
	if e.ct.limit != maxClusters {
		t.Fatalf("limit %d", e.ct.limit)
	}
}
