package castchain

import (
	"bytes"
	"fmt"
)

// locate explains why chain line l (at file line at) does not hold over
// the lines seen since the last one that did, using the per-line digests
// it lists: the common head and tail are intact, what lies between them
// was changed, removed, inserted or swapped.
func (v *verifier) locate(l *Line, at int) {
	want := int(l.Seq - l.From)
	got := v.seg
	digest := func(i int) []byte { return l.Digests[i*DigestSize : (i+1)*DigestSize] }
	head := 0
	for head < want && head < len(got) && bytes.Equal(got[head].digest[:], digest(head)) {
		head++
	}
	tail := 0
	for tail < want-head && tail < len(got)-head &&
		bytes.Equal(got[len(got)-1-tail].digest[:], digest(want-1-tail)) {
		tail++
	}
	gotMid, wantMid := got[head:len(got)-tail], want-head-tail
	// lineAfter is the file line of the first chained line after the
	// intact head, or the chain line itself when the head runs to it.
	lineAfter := at
	if head < len(got) {
		lineAfter = got[head].line
	}
	switch {
	case len(gotMid) == 0 && wantMid == 0:
		v.problemAt(at, Changed, "lines %s were changed or the chain state before them was", v.span(at))
	case len(gotMid) == 0:
		v.problemAt(lineAfter, Removed, "%d chained line(s) removed before this line", wantMid)
	case wantMid == 0:
		for _, s := range gotMid {
			v.problemAt(s.line, Inserted, "a line no checkpoint covers was inserted")
		}
	case len(gotMid) == 2 && wantMid == 2 &&
		bytes.Equal(gotMid[0].digest[:], digest(head+1)) && bytes.Equal(gotMid[1].digest[:], digest(head)):
		v.problemAt(gotMid[0].line, Reordered, "this line and line %d were swapped", gotMid[1].line)
	case len(gotMid) == wantMid:
		for i, s := range gotMid {
			if !bytes.Equal(s.digest[:], digest(head+i)) {
				v.problemAt(s.line, Changed, "the line differs from the one signed")
			}
		}
	default:
		v.problemAt(gotMid[0].line, Changed, "lines %d to %d differ from the %d signed (%s)",
			gotMid[0].line, gotMid[len(gotMid)-1].line, wantMid, countDiff(len(gotMid), wantMid))
	}
}

func countDiff(got, want int) string {
	if got < want {
		return fmt.Sprintf("%d fewer", want-got)
	}
	return fmt.Sprintf("%d more", got-want)
}

// span names the file lines since the last chain line that held.
func (v *verifier) span(at int) string {
	if len(v.seg) == 0 {
		return fmt.Sprintf("before line %d", at)
	}
	return fmt.Sprintf("%d to %d", v.seg[0].line, v.seg[len(v.seg)-1].line)
}
