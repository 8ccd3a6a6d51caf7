package attachwire

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// The batch bodies as the peers write them, byte for byte.
func TestBatchBodiesGolden(t *testing.T) {
	hb, err := NewHostBatch("a1", []Frame{NewOutputFrame(1, 1, []byte("hi")), NewOutputFrame(2, 2, []byte("!"))})
	if err != nil {
		t.Fatal(err)
	}
	gap := uint64(1)
	hb.GapFrom = &gap
	got, _ := json.Marshal(hb)
	if want := `{"batchId":"a1","firstSeq":1,"lastSeq":2,"frames":["AQEBaGk=","AQICIQ=="],"outOfSeq":[],"gapFrom":1}`; string(got) != want {
		t.Fatalf("host batch %s, want %s", got, want)
	}
	if p, err := ParseHostBatch(got); err != nil || len(p.SeqFrames) != 2 || string(p.SeqFrames[0].Payload) != "hi" {
		t.Fatalf("parsed back %+v, %v", p, err)
	}
	in := Input{UserID: "u", PenGeneration: 1, InputSeq: 4, Data: []byte("q")}.Frame(0, 0)
	in2 := Input{UserID: "u", PenGeneration: 1, InputSeq: 5, Data: []byte("r")}.Frame(0, 0)
	grab, _ := ControlFrame(Grab{})
	vb, err := NewViewerBatch("b2", []Frame{in, in2}, []Frame{grab})
	if err != nil {
		t.Fatal(err)
	}
	got, _ = json.Marshal(vb)
	p, err := ParseViewerBatch(got)
	if err != nil || len(p.InputPayloads) != 2 || p.InputPayloads[1].InputSeq != 5 || len(p.ControlFrames) != 1 {
		t.Fatalf("viewer batch %s parsed %+v, %v", got, p, err)
	}
	if !strings.HasPrefix(string(got), `{"batchId":"b2","firstInputSeq":4,"lastInputSeq":5,"inputs":["`) {
		t.Fatalf("viewer batch %s", got)
	}
	only, _ := NewViewerBatch("c3", nil, nil)
	if got, _ = json.Marshal(only); string(got) != `{"batchId":"c3","inputs":[],"controls":[]}` {
		t.Fatalf("empty viewer batch %s", got)
	}
}

func TestBatchRefusals(t *testing.T) {
	long := strings.Repeat("x", MaxBatchIDBytes+1)
	for _, body := range []string{
		``, `null`, `[]`, `{"batchId":"a"} {}`, `{"batchId":"a","extra":1}`,
		`{"batchId":""}`, `{"batchId":"` + long + `"}`,
		`{"batchId":"a","firstSeq":1,"lastSeq":2,"frames":["AQEBaGk="]}`,
		`{"batchId":"a","firstSeq":0,"lastSeq":0,"frames":["AQABaGk="]}`,
		`{"batchId":"a","firstSeq":2,"lastSeq":2,"frames":["AQEBaGk="]}`,
		`{"batchId":"a","firstSeq":1,"lastSeq":1,"frames":["!!"]}`,
		`{"batchId":"a","outOfSeq":["AQEBaGk="]}`,
	} {
		if _, err := ParseHostBatch([]byte(body)); !errors.Is(err, ErrBadBatch) {
			t.Errorf("host batch %q: %v, want ErrBadBatch", body, err)
		}
	}
	for _, body := range []string{
		`{"batchId":"a","inputs":["AQAAAwEBAAFh"]}`,
		`{"batchId":"a","firstInputSeq":2,"inputs":[]}`,
		`{"batchId":"a","firstInputSeq":1,"lastInputSeq":1,"inputs":["AQEBaGk="]}`,
		`{"batchId":"a","controls":["AQEBaGk="]}`,
		`{"batchId":"a","controls":["BwAAAXs="]}`,
	} {
		if _, err := ParseViewerBatch([]byte(body)); !errors.Is(err, ErrBadBatch) {
			t.Errorf("viewer batch %q: %v, want ErrBadBatch", body, err)
		}
	}
}

func TestBatchAnswers(t *testing.T) {
	if a, err := ParseHostBatchAnswer([]byte(`{"batchId":"a","ackSeq":9}` + "\n")); err != nil || a.AckSeq != 9 {
		t.Fatalf("host answer %+v, %v", a, err)
	}
	if a, err := ParseViewerBatchAnswer([]byte(`{"batchId":"a","ackInputSeq":3}`)); err != nil || a.AckInputSeq != 3 {
		t.Fatalf("viewer answer %+v, %v", a, err)
	}
	var fe *FramingError
	for _, body := range []string{`{"ackSeq":-1}`, `not json`, `{"batchId":"` + strings.Repeat("x", MaxBatchAnswerBytes) + `"}`} {
		if _, err := ParseHostBatchAnswer([]byte(body)); !errors.As(err, &fe) {
			t.Errorf("answer %.40q: %v, want a FramingError", body, err)
		}
	}
}
