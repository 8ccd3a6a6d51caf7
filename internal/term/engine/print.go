package engine

// printASCII prints a run of printable ASCII bytes: the hot path. Runs
// that need per-character care (a non-ASCII charset, insert mode, a
// pending joiner) go through printRune.
func (e *Engine) printASCII(s []byte) {
	e.work += uint64(len(s))
	if e.mode.insert || e.joinNext || e.cur.charsets[e.cur.gl] != charsetASCII {
		for _, c := range s {
			e.printRune(rune(c))
		}
		return
	}
	e.lastRune = rune(s[len(s)-1])
	cols := e.cols
	base := e.cur.pen.cellFor(0)
	for len(s) > 0 {
		if e.cur.wrapPending {
			e.wrapOrStay()
		}
		row := e.scr.row(e.cur.row)
		col := e.cur.col
		n := min(len(s), cols-col)
		splitWide(row, col)
		splitWide(row, col+n)
		dst := row[col : col+n]
		for k, ch := range s[:n] {
			dst[k] = cell{c: base.c | uint32(ch), fg: base.fg, bg: base.bg}
		}
		s = s[n:]
		col += n
		if col < cols {
			e.cur.col = col
			continue
		}
		e.cur.col = cols - 1
		if e.mode.autowrap {
			e.cur.wrapPending = true
		} else if len(s) > 0 {
			// Without autowrap the rest overwrites the last column; only
			// its last character remains.
			splitWide(row, cols-1)
			row[cols-1] = cell{c: base.c | uint32(s[len(s)-1]), fg: base.fg, bg: base.bg}
			e.work += uint64(len(s))
			s = nil
		}
	}
}

// wrapOrStay resolves a pending wrap before printing: it moves to the
// start of the next line (scrolling if needed) when autowrap is on.
func (e *Engine) wrapOrStay() {
	e.cur.wrapPending = false
	if !e.mode.autowrap {
		return
	}
	e.scr.line(e.cur.row).wrapped = true
	e.cur.col = 0
	e.index()
}

// printRune prints one character (already decoded, not a control).
func (e *Engine) printRune(r rune) {
	e.work++
	if r < 0x80 {
		r = e.mapCharset(byte(r))
	}
	w := 1
	if r >= 0x80 {
		w = runeWidth(r)
	}
	if e.joinNext || w == 0 {
		e.joinNext = r == zwj
		e.combine(r)
		return
	}
	e.lastRune = r
	if w > e.cols {
		return
	}
	if e.cur.wrapPending {
		e.wrapOrStay()
	}
	if w == 2 && e.cur.col == e.cols-1 {
		if e.mode.autowrap {
			e.scr.line(e.cur.row).wrapped = true
			e.cur.col = 0
			e.index()
		} else {
			e.cur.col--
		}
	}
	row := e.scr.row(e.cur.row)
	if e.mode.insert {
		e.insertCells(row, e.cur.col, w)
	}
	col := e.cur.col
	splitWide(row, col)
	splitWide(row, col+w)
	c := e.cur.pen.cellFor(uint32(r))
	if w == 2 {
		c.c |= wideBit
		row[col+1] = cell{c: contStyle, fg: c.fg, bg: c.bg}
	}
	row[col] = c
	if col+w < e.cols {
		e.cur.col = col + w
		return
	}
	e.cur.col = e.cols - 1
	e.cur.wrapPending = e.mode.autowrap
}

// combine appends a zero-width character (a combining mark, a variation
// selector, a joiner, or what follows a joiner) to the cell left of the
// cursor, as tmux does: the cluster keeps the base's width.
func (e *Engine) combine(r rune) {
	col := e.cur.col - 1
	if e.cur.wrapPending {
		col = e.cur.col
	}
	row := e.scr.row(e.cur.row)
	if col < 0 {
		return
	}
	if row[col].isCont() && col > 0 {
		col--
	}
	c := row[col]
	var buf [maxCluster + 4]byte
	n := 0
	if c.c&clusterBit != 0 {
		n = copy(buf[:], e.ct.get(c.c&runeMask))
	} else {
		n = encodeRune(buf[:], rune(c.c&runeMask))
	}
	if n+4 > maxCluster {
		return
	}
	n += encodeRune(buf[n:], r)
	if e.ct.full() {
		e.collectClusters()
		c = row[col]
	}
	idx := e.ct.intern(buf[:n])
	e.work += uint64(n)
	row[col].c = c.c&^(runeMask|clusterBit) | clusterBit | idx
}

// collectClusters compacts the cluster table to the clusters still on a
// screen. It runs when the table has doubled since the last collection,
// so its O(rows·cols) cost is amortized over as many interned clusters.
func (e *Engine) collectClusters() {
	t := &e.ct
	old := t.strs
	t.strs = make([]string, 0, len(old))
	if t.index == nil {
		t.index = make(map[string]uint32)
	}
	clear(t.index)
	remap := make(map[uint32]uint32)
	mark := func(cells []cell) {
		e.work += uint64(len(cells))
		for j := range cells {
			c := &cells[j]
			if c.c&clusterBit == 0 {
				continue
			}
			k := c.c & runeMask
			nk, ok := remap[k]
			if !ok {
				s := " "
				if int(k) < len(old) {
					s = old[k]
				}
				nk = uint32(len(t.strs))
				t.strs = append(t.strs, s)
				t.index[s] = nk
				remap[k] = nk
			}
			c.c = c.c&^runeMask | nk
		}
	}
	for _, b := range [...]*buffer{e.prim, e.alt} {
		if b != nil {
			for i := range b.lines {
				mark(b.lines[i].cells)
			}
		}
	}
	for i := range e.sb.rawN {
		mark(e.sb.raw[ringIndex(e.sb.rawStart, i, len(e.sb.raw))])
	}
	t.next = 2*len(t.strs) + e.clusterBudget()
}

// clusterBudget is the table growth allowed between collections.
func (e *Engine) clusterBudget() int { return 256 + e.cols*(e.rows+e.sb.rawMax())/4 }
