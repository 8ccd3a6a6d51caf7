package attachwire

import (
	"strings"
	"testing"
)

func TestValidateProposal(t *testing.T) {
	ok := Proposal{ID: "p1", State: ProposalPending, Text: "ls\r", FromUserID: "agent"}
	if err := ValidateProposal(ok); err != nil {
		t.Fatalf("valid proposal refused: %v", err)
	}
	bad := map[string]Proposal{
		"empty id":      {State: ProposalPending, Text: "x"},
		"long id":       {ID: strings.Repeat("a", MaxProposalID+1), State: ProposalPending, Text: "x"},
		"id with space": {ID: "a b", State: ProposalPending, Text: "x"},
		"id with ESC":   {ID: "a\x1b", State: ProposalPending, Text: "x"},
		"unknown state": {ID: "p", State: "maybe", Text: "x"},
		"pending empty": {ID: "p", State: ProposalPending},
		"not UTF-8":     {ID: "p", State: ProposalPending, Text: "\xff"},
		"text too long": {ID: "p", State: ProposalPending, Text: strings.Repeat("a", MaxProposalText+1)},
		"long reason":   {ID: "p", State: ProposalRejected, Text: "x", Reason: strings.Repeat("r", MaxProposalReason+1)},
	}
	for name, p := range bad {
		if err := ValidateProposal(p); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := ValidateProposal(Proposal{ID: "p", State: ProposalExpired}); err != nil {
		t.Errorf("an outcome without text refused: %v", err)
	}
}

func TestValidateDecision(t *testing.T) {
	for _, d := range []Decision{
		{ID: "p", Verdict: VerdictApprove},
		{ID: "p", Verdict: VerdictReject, Reason: "not now"},
		{ID: "p", Verdict: VerdictEdit, Text: "ls -l\r"},
	} {
		if err := ValidateDecision(d); err != nil {
			t.Errorf("%+v refused: %v", d, err)
		}
	}
	for name, d := range map[string]Decision{
		"no id":           {Verdict: VerdictApprove},
		"unknown verdict": {ID: "p", Verdict: "sure"},
		"edit no text":    {ID: "p", Verdict: VerdictEdit},
		"approve text":    {ID: "p", Verdict: VerdictApprove, Text: "x"},
		"reject text":     {ID: "p", Verdict: VerdictReject, Text: "x"},
		"edit bad UTF-8":  {ID: "p", Verdict: VerdictEdit, Text: "\xc3"},
	} {
		if err := ValidateDecision(d); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestProposalIsHostControlDecisionIsNot(t *testing.T) {
	if !IsHostControl(Proposal{}) || !IsHostControl(&Proposal{}) {
		t.Error("proposal is the host's to send")
	}
	if IsHostControl(Decision{}) {
		t.Error("decide comes from the pen holder")
	}
	for _, s := range []ProposalState{ProposalApproved, ProposalEdited, ProposalRejected, ProposalExpired, ProposalWithdrawn, "unknown"} {
		if !s.Done() {
			t.Errorf("%s not done", s)
		}
	}
	if ProposalPending.Done() {
		t.Error("pending is done")
	}
}

func TestIsProposalLabel(t *testing.T) {
	for label, want := range map[string]bool{
		"proposal 9c01e2a7b3f40d11 approved by ada: ls⏎ (proposed by claude)": true,
		"proposal 9c01 expired (proposed by claude)":                          true,
		"proposal 9c01 rejected by ada (no) (proposed by x)":                  true,
		"proposal 9c01 pending":                                               false,
		"proposal  approved":                                                  false,
		"proposals are welcome":                                               false,
		"$ proposal 1 approved":                                               false,
	} {
		if got := IsProposalLabel(label); got != want {
			t.Errorf("IsProposalLabel(%q) = %v", label, got)
		}
	}
}

func TestVisibleInput(t *testing.T) {
	for in, want := range map[string]string{
		"ls -la\r":          "ls -la⏎",
		"a\nb\tc":           "a␤b⇥c",
		"\x1b[A\x03\x7f":    "␛[A^C^?",
		"\xc2\x9b2J\xff ok": "�2J� ok",
		"héllo ✅":           "héllo ✅",
		"ls \u202etxt.exe":  "ls <U+202E>txt.exe",
		"a\u200bb":          "a<U+200B>b",
	} {
		if got := VisibleInput(in, 0); got != want {
			t.Errorf("VisibleInput(%q) = %q, want %q", in, got, want)
		}
	}
	if got := VisibleInput(strings.Repeat("x", 100), 10); got != strings.Repeat("x", 10)+"…" {
		t.Errorf("cut: %q", got)
	}
}
