package viewer

import (
	"context"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/web/engine"
)

// newTestClient is a Client with no connection, for feeding frames to
// apply.
func newTestClient(t *testing.T) *Client {
	t.Helper()
	c := &Client{wake: make(chan struct{}, 1)}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.eng = engine.New(engine.Options{SessionID: "s", ConnID: "c1", Mirror: true})
	t.Cleanup(func() {
		c.cancel()
		c.mirror.close(0, 0)
	})
	return c
}

// A gap in the stream (which a conformant relay never makes) is not
// papered over: the frames after it wait, one resume_from asks for the
// rest, and the missing frame (a ring hit) lets the mirror go on.
func TestGapAsksForResume(t *testing.T) {
	c := newTestClient(t)
	scr := attachwire.Screen{Epoch: 4, Cols: 10, Rows: 2, Primary: make([]attachwire.Cell, 20)}
	for i := range scr.Primary {
		scr.Primary[i] = attachwire.BlankCell()
	}
	sn, err := attachwire.NewSnapshot(0, &scr)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := sn.Frame(1, 1)
	c.apply(f)
	out := func(seq uint64, p string) { c.apply(attachwire.NewOutputFrame(seq, seq, []byte(p))) }
	text := func() string {
		s, _, _ := c.Mirror()
		b := ""
		for _, cell := range s.Primary[:10] {
			b += cell.Content
		}
		return b
	}
	out(2, "a")
	out(4, "c") // gap: 3 is missing
	out(5, "d")
	if len(c.out) != 1 {
		t.Fatalf("queued %v, want one resume_from", c.out)
	}
	ctl, err := attachwire.DecodeControl(c.out[0].Payload)
	if rf, ok := ctl.(attachwire.ResumeFrom); err != nil || !ok || rf.Seq != 2 || rf.Epoch == nil || *rf.Epoch != 4 {
		t.Fatalf("queued %+v (%v), want resume_from{2, 4}", ctl, err)
	}
	if got := text(); got != "a         " {
		t.Fatalf("mirror %q applied frames past the gap", got)
	}
	// The ring hit's replay.
	out(3, "b")
	out(4, "c")
	out(5, "d")
	if got := text(); got != "abcd      " {
		t.Fatalf("mirror %q after the replay", got)
	}
}
