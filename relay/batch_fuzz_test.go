package relay

import (
	"encoding/json"
	"errors"
	"testing"
)

// FuzzHostBatch: any body either parses into a batch whose frames span
// firstSeq..lastSeq one by one and whose outOfSeq frames are seq 0, or is
// refused with ErrBadBatch; never a panic. A parsed batch re-encodes to
// one that parses the same.
func FuzzHostBatch(f *testing.F) {
	for _, s := range []string{
		`{"batchId":"a","firstSeq":1,"lastSeq":1,"frames":["AwEBAWhp"],"outOfSeq":null}`,
		`{"batchId":"b","firstSeq":0,"lastSeq":0,"frames":null,"outOfSeq":[]}`,
		`{"batchId":"c","firstSeq":5,"lastSeq":5,"frames":["AwUFAA=="],"gapFrom":5}`,
		`{"batchId":"d","frames":["!!"]}`,
		`{"batchId":"e"} {}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := parseHostBatch(b)
		if err != nil {
			if !errors.Is(err, ErrBadBatch) {
				t.Fatalf("error %v does not wrap ErrBadBatch", err)
			}
			return
		}
		if len(p.frames) != len(p.Frames) || len(p.outOfSeq) != len(p.OutOfSeq) {
			t.Fatalf("decoded %d/%d frames of %d/%d", len(p.frames), len(p.outOfSeq), len(p.Frames), len(p.OutOfSeq))
		}
		for i, fr := range p.frames {
			if fr.Seq != p.FirstSeq+uint64(i) {
				t.Fatalf("frame %d seq %d, firstSeq %d", i, fr.Seq, p.FirstSeq)
			}
		}
		if n := len(p.frames); n > 0 && p.frames[n-1].Seq != p.LastSeq {
			t.Fatalf("last frame seq %d, lastSeq %d", p.frames[n-1].Seq, p.LastSeq)
		}
		for _, fr := range p.outOfSeq {
			if fr.Seq != 0 {
				t.Fatalf("outOfSeq frame with seq %d", fr.Seq)
			}
		}
		again, _ := json.Marshal(p.HostBatch)
		q, err := parseHostBatch(again)
		if err != nil || q.BatchID != p.BatchID || len(q.frames) != len(p.frames) {
			t.Fatalf("re-encoded batch %s: %v", again, err)
		}
	})
}

// FuzzViewerBatch: the same for a viewer's batch: inputs carry
// firstInputSeq..lastInputSeq one by one, controls are Control or Resize.
func FuzzViewerBatch(f *testing.F) {
	for _, s := range []string{
		`{"batchId":"a","firstInputSeq":1,"lastInputSeq":1,"inputs":["AQAAAwEBAAFh"],"controls":[]}`,
		`{"batchId":"b","inputs":[],"controls":["BwAAD3sidHlwZSI6ImdyYWIifQ=="]}`,
		`{"batchId":"c","firstInputSeq":2,"inputs":[]}`,
		`{"batchId":"","inputs":[]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := parseViewerBatch(b)
		if err != nil {
			if !errors.Is(err, ErrBadBatch) {
				t.Fatalf("error %v does not wrap ErrBadBatch", err)
			}
			return
		}
		if len(p.inputs) != len(p.Inputs) || len(p.controls) != len(p.Controls) {
			t.Fatalf("decoded %d/%d of %d/%d", len(p.inputs), len(p.controls), len(p.Inputs), len(p.Controls))
		}
		for i, in := range p.inputs {
			if in.InputSeq != *p.FirstInputSeq+uint64(i) {
				t.Fatalf("input %d seq %d", i, in.InputSeq)
			}
		}
		again, _ := json.Marshal(p.ViewerBatch)
		q, err := parseViewerBatch(again)
		if err != nil || q.BatchID != p.BatchID || len(q.inputs) != len(p.inputs) {
			t.Fatalf("re-encoded batch %s: %v", again, err)
		}
	})
}
