package attachwire

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
		p, err := ParseHostBatch(b)
		if err != nil {
			if !errors.Is(err, ErrBadBatch) {
				t.Fatalf("error %v does not wrap ErrBadBatch", err)
			}
			return
		}
		if len(p.SeqFrames) != len(p.Frames) || len(p.OutOfSeqFrames) != len(p.OutOfSeq) {
			t.Fatalf("decoded %d/%d frames of %d/%d", len(p.SeqFrames), len(p.OutOfSeqFrames), len(p.Frames), len(p.OutOfSeq))
		}
		for i, fr := range p.SeqFrames {
			if fr.Seq != p.FirstSeq+uint64(i) {
				t.Fatalf("frame %d seq %d, firstSeq %d", i, fr.Seq, p.FirstSeq)
			}
		}
		if n := len(p.SeqFrames); n > 0 && p.SeqFrames[n-1].Seq != p.LastSeq {
			t.Fatalf("last frame seq %d, lastSeq %d", p.SeqFrames[n-1].Seq, p.LastSeq)
		}
		for _, fr := range p.OutOfSeqFrames {
			if fr.Seq != 0 {
				t.Fatalf("outOfSeq frame with seq %d", fr.Seq)
			}
		}
		again, _ := json.Marshal(p.HostBatch)
		q, err := ParseHostBatch(again)
		if err != nil || q.BatchID != p.BatchID || len(q.SeqFrames) != len(p.SeqFrames) {
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
		p, err := ParseViewerBatch(b)
		if err != nil {
			if !errors.Is(err, ErrBadBatch) {
				t.Fatalf("error %v does not wrap ErrBadBatch", err)
			}
			return
		}
		if len(p.InputPayloads) != len(p.Inputs) || len(p.ControlFrames) != len(p.Controls) {
			t.Fatalf("decoded %d/%d of %d/%d", len(p.InputPayloads), len(p.ControlFrames), len(p.Inputs), len(p.Controls))
		}
		for i, in := range p.InputPayloads {
			if in.InputSeq != *p.FirstInputSeq+uint64(i) {
				t.Fatalf("input %d seq %d", i, in.InputSeq)
			}
		}
		again, _ := json.Marshal(p.ViewerBatch)
		q, err := ParseViewerBatch(again)
		if err != nil || q.BatchID != p.BatchID || len(q.InputPayloads) != len(p.InputPayloads) {
			t.Fatalf("re-encoded batch %s: %v", again, err)
		}
	})
}
