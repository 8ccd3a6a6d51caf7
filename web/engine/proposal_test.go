package engine

import (
	"math/rand/v2"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
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

// Whatever a proposal holds, its whole visible text reads back exactly:
// an editor that starts from it changes only what the person changes.
func TestInputFromVisibleRoundTrip(t *testing.T) {
	cases := []string{
		"a\rb\nc\td\x1be^C", "^C\x03^?\x7f", "⏎␤⇥␛ are text", "<U+0041> <U+ <b>", "\u202e\u200b", "\u0085\u009b[2J",
		"2^3 ^^ ^", "<U+110000> <U+D800>",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("ab^<U+0123>⏎␤⇥␛\r\n\t\x1b\x03\x7f\u0085\u202e✅ ?@_")
	for range 2000 {
		r := make([]rune, rng.IntN(12))
		for i := range r {
			r[i] = alphabet[rng.IntN(len(alphabet))]
		}
		cases = append(cases, string(r))
	}
	for _, in := range cases {
		if got := InputFromVisible(attachwire.VisibleInput(in, 0)); got != in {
			t.Fatalf("%q shows as %q and reads back as %q", in, attachwire.VisibleInput(in, 0), got)
		}
	}
	// What a person types in the editor: the marks and caret notation.
	if got := InputFromVisible("ls -l⏎^C<U+1F600>"); got != "ls -l\r\x03😀" {
		t.Fatalf("typed marks read as %q", got)
	}
}

// In a sealed room the proposal texts travel sealed: the engine opens
// them, drops one that does not open, and seals its own decisions and
// proposals.
func TestSealedProposals(t *testing.T) {
	k, _ := seal.GenerateKey()
	other, _ := seal.GenerateKey()
	room := seal.NewRoom(k, "s")
	e := New(Options{SessionID: "s", Key: k})
	sealed := attachwire.Proposal{ID: "p1", State: attachwire.ProposalPending, FromUserID: "agent",
		Text: room.SealText(seal.TextProposal, "p1", "ls\r")}
	evs := apply(t, e, controlMsg(t, sealed))
	if len(evs) != 1 || evs[0].Proposal.Input != "ls\r" || evs[0].Proposal.Visible != "ls⏎" {
		t.Fatalf("sealed proposal: %+v", evs)
	}
	forged := sealed
	forged.Text = seal.NewRoom(other, "s").SealText(seal.TextProposal, "p1", "rm -rf /\r")
	if evs := apply(t, e, controlMsg(t, forged)); len(evs) != 0 {
		t.Fatalf("a proposal under another key was shown: %+v", evs)
	}
	moved := sealed
	moved.ID = "p2" // the relay passing p1's text off as p2's
	if evs := apply(t, e, controlMsg(t, moved)); len(evs) != 0 {
		t.Fatalf("a text moved to another proposal was shown: %+v", evs)
	}
	f, err := e.Decide("p1", "edit", "ls -l\r", "")
	if err != nil {
		t.Fatal(err)
	}
	c, _ := attachwire.DecodeControl(f.Payload)
	d := c.(attachwire.Decision)
	if d.Text == "ls -l\r" {
		t.Fatal("an edit travels in the clear in a sealed room")
	}
	if got, err := room.OpenText(seal.TextDecision, "p1", d.Text); err != nil || got != "ls -l\r" {
		t.Fatalf("the host opens %q, %v", got, err)
	}
	f, _ = e.Propose("make\r")
	c, _ = attachwire.DecodeControl(f.Payload)
	if got, err := room.OpenText(seal.TextPropose, "", c.(attachwire.Propose).Text); err != nil || got != "make\r" {
		t.Fatalf("the host opens the proposal as %q, %v", got, err)
	}
}
