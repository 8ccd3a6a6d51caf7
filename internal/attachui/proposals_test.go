package attachui

import (
	"testing"

	"github.com/ptyhost/ptyhost/web/engine"
)

func TestProposalsList(t *testing.T) {
	var ps Proposals
	a := engine.Proposal{ID: "a", State: "pending", Visible: "ls -la⏎", From: "claude"}
	b := engine.Proposal{ID: "b", State: "pending", Visible: "make⏎"}
	if !ps.Update(a) || !ps.Update(b) || ps.Len() != 2 {
		t.Fatal("not added")
	}
	if p, _ := ps.Oldest(); p.ID != "a" {
		t.Fatalf("oldest %q", p.ID)
	}
	lines := ps.Lines(10, 5)
	if lines[0] != "claude: l…" || lines[1] != "someone: …" {
		t.Fatalf("lines %q", lines)
	}
	a.State = "rejected"
	if !ps.Update(a) || ps.Len() != 1 {
		t.Fatal("outcome did not remove it")
	}
	if ps.Update(engine.Proposal{ID: "z", State: "expired"}) {
		t.Fatal("an unknown outcome changed the list")
	}
	if got := Outcome(engine.Proposal{From: "claude", State: "rejected", By: "ada", Reason: "no"}); got != "claude's input was rejected by ada: no" {
		t.Fatalf("outcome %q", got)
	}
}

func TestLineEdit(t *testing.T) {
	e := NewLineEdit(engine.Proposal{ID: "a", Visible: "rm -rf /⏎"})
	if e.Text() != "rm -rf /" {
		t.Fatalf("starts with %q", e.Text())
	}
	if r := e.Feed([]byte("\x15ls ✅\x7f-l")); r != EditGoing || e.Text() != "ls -l" {
		t.Fatalf("%v %q", r, e.Text())
	}
	if r := e.Feed([]byte("\x01\r")); r != EditSend || e.Input() != "ls -l\r" {
		t.Fatalf("%v %q", r, e.Input())
	}
	e = NewLineEdit(engine.Proposal{ID: "b", Visible: "y"})
	if r := e.Feed([]byte("\x1b")); r != EditCancel {
		t.Fatal("escape did not cancel")
	}
	if e.Input() != "y" {
		t.Fatalf("no Enter added to a proposal without one: %q", e.Input())
	}
}
