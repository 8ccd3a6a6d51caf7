package engine

// maxCluster caps the bytes of one grapheme cluster; marks beyond it are
// dropped, which keeps the work per combining character bounded.
const maxCluster = 48

// clusters interns multi-rune grapheme clusters so a cell refers to one by
// index. The table is compacted (see Engine.collectClusters) when it has
// grown to twice its live size, so its size stays bounded by the screen.
type clusters struct {
	strs  []string
	index map[string]uint32
	// next is the table size that triggers a collection.
	next int
}

func (t *clusters) get(i uint32) string {
	if int(i) < len(t.strs) {
		return t.strs[i]
	}
	return " "
}

// intern returns the index of s, adding it when new. Looking up an
// existing cluster does not allocate.
func (t *clusters) intern(s []byte) uint32 {
	if i, ok := t.index[string(s)]; ok {
		return i
	}
	if t.index == nil {
		t.index = make(map[string]uint32)
	}
	str := string(s)
	i := uint32(len(t.strs))
	t.strs = append(t.strs, str)
	t.index[str] = i
	return i
}

func (t *clusters) full() bool { return len(t.strs) >= t.next }
