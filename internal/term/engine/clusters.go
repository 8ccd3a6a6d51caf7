package engine

// maxCluster caps the bytes of one grapheme cluster; marks beyond it are
// dropped, which keeps the work per combining character bounded.
const maxCluster = 48

// maxClusters is how many clusters the table may hold: an index must fit
// the cell's rune field (runeMask), or a cell would show another cluster.
const maxClusters = runeMask + 1

// replacementChar is what a cell holds when its cluster cannot be
// interned because the clusters still in use fill the table.
const replacementChar = 0xFFFD

// clusters interns multi-rune grapheme clusters so a cell refers to one by
// index. Only cells of the screens and of the raw scrollback lines hold
// indices (encoded scrollback stores the text), so of the L cells they
// hold at most L clusters are live. Engine.collectClusters compacts the
// table to those; it runs when the table has grown past next (twice its
// live size plus clusterBudget) and at least clusterInterval new
// clusters were asked for since the last one, and at the end of every
// resize. So, between calls, the table holds at most
//
//	min(maxClusters, 2·L + clusterBudget + clusterInterval)
//
// entries (Engine.clusterBound), with L at most 2·cols·rows plus the
// cells of the rawLines newest scrollback lines (each cols wide, or
// wider when kept from before a resize: at most maxCols), and a
// collection costs
// O(cols) per cluster asked for, amortized. Past maxClusters a new
// cluster is not interned: its cell shows U+FFFD, never another cluster.
type clusters struct {
	strs  []string
	index map[string]uint32
	// next is the table size that triggers a collection.
	next int
	// limit is maxClusters (tests lower it).
	limit int
	// asked counts the new clusters asked for since the last collection.
	asked int
	// collections counts the collections, which renumber the table: a
	// cell's index then names another cluster (RowCache).
	collections uint64
}

func (t *clusters) get(i uint32) string {
	if int(i) < len(t.strs) {
		return t.strs[i]
	}
	return " "
}

// lookup returns the index of s when it is interned. It does not
// allocate.
func (t *clusters) lookup(s []byte) (uint32, bool) {
	i, ok := t.index[string(s)]
	return i, ok
}

// add interns str, which is not in the table yet, when there is room.
func (t *clusters) add(str string) (uint32, bool) {
	if len(t.strs) >= t.limit {
		return 0, false
	}
	if t.index == nil {
		t.index = make(map[string]uint32)
	}
	i := uint32(len(t.strs))
	t.strs = append(t.strs, str)
	t.index[str] = i
	return i, true
}

// internCluster returns the index of s, interning it, and collects first
// when the table is due. ok is false when the live clusters leave no
// room: the caller stores replacementChar. A collection rewrites the
// indices in the buffers and raw scrollback, so callers must not hold
// cells elsewhere.
func (e *Engine) internCluster(s []byte) (idx uint32, ok bool) {
	t := &e.ct
	if i, ok := t.lookup(s); ok {
		return i, true
	}
	t.asked++
	if len(t.strs) >= t.next && t.asked >= e.clusterInterval() {
		e.collectClusters()
	}
	return t.add(string(s))
}

// internString returns the index of str, adding it when there is room,
// without collecting.
func (t *clusters) internString(str string) (uint32, bool) {
	if i, ok := t.index[str]; ok {
		return i, true
	}
	return t.add(str)
}

// collectClusters compacts the cluster table to the clusters still on a
// screen or in raw scrollback. Writes run it when the table has doubled
// since the last collection and clusterInterval new clusters were asked
// for, so its O(cols·(2·rows + rawLines)) cost is amortized over them;
// Resize runs it once per call. Live clusters past the limit (a screen
// of more distinct clusters than the table holds) become U+FFFD.
func (e *Engine) collectClusters() {
	t := &e.ct
	t.collections++
	old := t.strs
	t.strs = make([]string, 0, min(len(old), t.limit))
	if t.index == nil {
		t.index = make(map[string]uint32)
	}
	clear(t.index)
	const unmapped = ^uint32(0)
	remap := make([]uint32, len(old))
	for i := range remap {
		remap[i] = unmapped
	}
	mark := func(cells []cell) {
		e.work += uint64(len(cells))
		for j := range cells {
			c := &cells[j]
			if c.c&clusterBit == 0 {
				continue
			}
			k := c.c & runeMask
			if int(k) >= len(old) {
				c.c = c.c&^(runeMask|clusterBit) | ' '
				continue
			}
			nk := remap[k]
			if nk == unmapped {
				i, ok := t.add(old[k])
				if !ok {
					c.c = c.c&^(runeMask|clusterBit) | replacementChar
					continue
				}
				nk, remap[k] = i, i
			}
			c.c = c.c&^runeMask | nk
		}
	}
	for _, b := range [...]*buffer{e.prim, e.alt} {
		if b != nil {
			for i := range b.lines {
				mark(b.lines[i].cells[:b.lines[i].n])
			}
		}
	}
	for i := range e.sb.rawN {
		l := &e.sb.raw[ringIndex(e.sb.rawStart, i, len(e.sb.raw))]
		mark(l.cells[:l.n])
	}
	t.next = min(2*len(t.strs)+e.clusterBudget(), t.limit)
	t.asked = 0
}

// clusterBudget is the table growth allowed between collections.
func (e *Engine) clusterBudget() int { return 256 + e.cols*(e.rows+e.sb.rawMax())/4 }

// clusterInterval is how many new clusters are asked for between two
// collections at least: a collection scans about cols·(2·rows+rawLines)
// cells, so this keeps it at O(cols) a cluster even when the live set
// fills the table.
func (e *Engine) clusterInterval() int { return 2*e.rows + e.sb.rawMax() }

// clusterBound is the documented bound on the table's size between
// calls. A raw scrollback slot counts at its own width or cols, whichever
// is more: lines kept from before a resize may be wider.
func (e *Engine) clusterBound() int {
	live := 2 * e.cols * e.rows
	for i := range e.sb.rawMax() {
		w := e.cols
		if i < len(e.sb.raw) {
			w = max(w, len(e.sb.raw[i].cells))
		}
		live += w
	}
	return min(e.ct.limit, 2*live+e.clusterBudget()+e.clusterInterval())
}
