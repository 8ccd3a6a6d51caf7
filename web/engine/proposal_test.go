package engine

import (
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
)

func TestProposalEventsAndDecide(t *testing.T) {
	e := New(Options{SessionID: "s"})
	evs := apply(t, e, controlMsg(t, attachwire.Proposal{ID: "p1", State: attachwire.ProposalPending, Text: "ls\x1b[A\r",
		FromUserID: "agent", FromName: "claude\x1b[31m", ExpiresAt: 5}))
	if len(evs) != 1 || evs[0].Kind != ProposalChanged {
		t.Fatalf("events %+v", evs)
	}
	p := evs[0].Proposal
	if p.ID != "p1" || !p.Pending() || p.Input != "ls\x1b[A\r" || p.Visible != "ls␛[A⏎" || p.ExpiresAt != 5 {
		t.Fatalf("proposal %+v", p)
	}
	for _, r := range p.From {
		if r == 0x1b {
			t.Fatalf("name not made displayable: %q", p.From)
		}
	}
	evs = apply(t, e, controlMsg(t, attachwire.Proposal{ID: "p1", State: attachwire.ProposalRejected, Text: "x", FromUserID: "agent", ByUserID: "ada", Reason: "no"}))
	if p := evs[0].Proposal; p.Pending() || p.By != "ada" || p.Reason != "no" {
		t.Fatalf("outcome %+v", p)
	}
	// A malformed proposal (the relay passes none on) shows nothing.
	if evs := apply(t, e, controlMsg(t, attachwire.Proposal{ID: "bad id", State: attachwire.ProposalPending, Text: "x"})); len(evs) != 0 {
		t.Fatalf("malformed: %+v", evs)
	}

	f, err := e.Decide("p1", "edit", InputFromVisible("ls -l⏎"), "")
	if err != nil {
		t.Fatal(err)
	}
	c, err := attachwire.DecodeControl(f.Payload)
	if d, ok := c.(attachwire.Decision); err != nil || !ok || d.Text != "ls -l\r" || d.Verdict != attachwire.VerdictEdit {
		t.Fatalf("decide frame %+v %v", c, err)
	}
	if _, err := e.Decide("p1", "edit", "", ""); err == nil {
		t.Fatal("an edit without text accepted")
	}
	if _, err := e.Decide("", "approve", "", ""); err == nil {
		t.Fatal("no id accepted")
	}
}

func TestInputFromVisible(t *testing.T) {
	in := "a\rb\nc\td\x1be^C"
	if got := InputFromVisible(attachwire.VisibleInput(in, 0)); got != "a\rb\nc\td\x1be^C" {
		t.Fatalf("round trip %q", got)
	}
}
