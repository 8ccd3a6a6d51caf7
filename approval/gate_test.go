package approval

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
)

// room is a fake relay: it keeps what the gate announced and what was
// written, and decides on request.
type room struct {
	mu      sync.Mutex
	said    []attachwire.Proposal
	written []string
	labels  []string
	ann     chan attachwire.Proposal
}

func newRoom() *room { return &room{ann: make(chan attachwire.Proposal, 64)} }

func (r *room) config() Config {
	return Config{
		Write: func(_ context.Context, text string) error {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.written = append(r.written, text)
			return nil
		},
		Announce: func(_ context.Context, p attachwire.Proposal) error {
			r.mu.Lock()
			r.said = append(r.said, p)
			r.mu.Unlock()
			r.ann <- p
			return nil
		},
		Record: func(label string) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.labels = append(r.labels, label)
		},
	}
}

func (r *room) writtenNow() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.written...)
}

// propose runs Propose in the background and returns its result channel.
func propose(g *Gate, ctx context.Context, text string) chan result {
	ch := make(chan result, 1)
	go func() {
		o, err := g.Propose(ctx, Request{Text: text, From: Person{UserID: "agent", Name: "claude"}})
		ch <- result{o, err}
	}()
	return ch
}

type result struct {
	o   Outcome
	err error
}

func next(t *testing.T, r *room) attachwire.Proposal {
	t.Helper()
	select {
	case p := <-r.ann:
		return p
	case <-time.After(10 * time.Second):
		t.Fatal("nothing announced")
	}
	return attachwire.Proposal{}
}

func TestGateDecisions(t *testing.T) {
	cases := []struct {
		name    string
		d       attachwire.Decision
		state   attachwire.ProposalState
		written string
	}{
		{"approve", attachwire.Decision{Verdict: attachwire.VerdictApprove}, attachwire.ProposalApproved, "ls -la\r"},
		{"edit", attachwire.Decision{Verdict: attachwire.VerdictEdit, Text: "ls\r"}, attachwire.ProposalEdited, "ls\r"},
		{"reject", attachwire.Decision{Verdict: attachwire.VerdictReject, Reason: "not that"}, attachwire.ProposalRejected, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRoom()
			g := New(r.config())
			res := propose(g, context.Background(), "ls -la\r")
			p := next(t, r)
			if p.State != attachwire.ProposalPending || p.Text != "ls -la\r" || p.FromUserID != "agent" || p.FromName != "claude" || p.ExpiresAt == 0 {
				t.Fatalf("announced %+v", p)
			}
			if w := r.writtenNow(); len(w) != 0 {
				t.Fatalf("written before a decision: %q", w)
			}
			if got := g.Pending(); len(got) != 1 || got[0].ID != p.ID {
				t.Fatalf("pending %+v", got)
			}
			d := tc.d
			d.ID, d.ByUserID, d.ByName = p.ID, "ada", "Ada"
			g.Decide(d)
			out := <-res
			if out.err != nil || out.o.State != tc.state || out.o.By.Name != "Ada" {
				t.Fatalf("outcome %+v, %v", out.o, out.err)
			}
			w := r.writtenNow()
			if tc.written == "" && len(w) != 0 || tc.written != "" && (len(w) != 1 || w[0] != tc.written) {
				t.Fatalf("written %q, want %q", w, tc.written)
			}
			told := next(t, r)
			if told.ID != p.ID || told.State != tc.state || told.ByName != "Ada" {
				t.Fatalf("outcome announced %+v", told)
			}
			if len(g.Pending()) != 0 {
				t.Fatal("still pending")
			}
			if len(r.labels) != 1 || !attachwire.IsProposalLabel(r.labels[0]) || !strings.Contains(r.labels[0], string(tc.state)+" by Ada") || !strings.Contains(r.labels[0], "proposed by claude") {
				t.Fatalf("recorded %q", r.labels)
			}
			g.Decide(d) // a second decision changes nothing
			if len(r.writtenNow()) != len(w) {
				t.Fatal("a repeated decision wrote again")
			}
		})
	}
}

func TestGateExpiresAndWithdraws(t *testing.T) {
	r := newRoom()
	cfg := r.config()
	cfg.Timeout = 50 * time.Millisecond
	g := New(cfg)
	o, err := g.Propose(context.Background(), Request{Text: "rm -rf /\r", From: Person{UserID: "agent"}})
	if err != nil || o.State != attachwire.ProposalExpired || len(r.writtenNow()) != 0 {
		t.Fatalf("%+v %v written %q", o, err, r.writtenNow())
	}
	ctx, cancel := context.WithCancel(context.Background())
	res := propose(g, ctx, "x")
	next(t, r) // expired's outcome
	next(t, r) // the new one
	cancel()
	out := <-res
	if !errors.Is(out.err, context.Canceled) || out.o.State != attachwire.ProposalWithdrawn {
		t.Fatalf("%+v", out)
	}
	if len(r.writtenNow()) != 0 {
		t.Fatal("written")
	}
}

func TestGateRulesAndRefusals(t *testing.T) {
	r := newRoom()
	cfg := r.config()
	cfg.AutoApprove = []*regexp.Regexp{regexp.MustCompile(`ls( -[a-z]+)?\r`)}
	g := New(cfg)
	o, err := g.Propose(context.Background(), Request{Text: "ls -l\r"})
	if err != nil || o.State != attachwire.ProposalApproved || o.Rule == "" {
		t.Fatalf("%+v %v", o, err)
	}
	if w := r.writtenNow(); len(w) != 1 {
		t.Fatalf("written %q", w)
	}
	// A rule matches the whole text only.
	res := propose(g, context.Background(), "ls -l\r; rm -rf ~\r")
	p := next(t, r)
	g.Decide(attachwire.Decision{ID: p.ID, Verdict: attachwire.VerdictReject})
	if out := <-res; out.o.State != attachwire.ProposalRejected {
		t.Fatalf("%+v", out)
	}
	if told := next(t, r); told.State != attachwire.ProposalRejected {
		t.Fatalf("told %+v", told)
	}
	if _, err := g.Propose(context.Background(), Request{Text: ""}); !errors.Is(err, ErrBadText) {
		t.Fatalf("empty: %v", err)
	}
	if _, err := g.Propose(context.Background(), Request{Text: "\xff"}); !errors.Is(err, ErrBadText) {
		t.Fatalf("bad UTF-8: %v", err)
	}
	alone := New(Config{Write: cfg.Write})
	if _, err := alone.Propose(context.Background(), Request{Text: "x"}); !errors.Is(err, ErrNoApprover) {
		t.Fatalf("no approver: %v", err)
	}
	var chs []chan result
	for range MaxPending {
		chs = append(chs, propose(g, context.Background(), "y"))
	}
	for range MaxPending {
		next(t, r)
	}
	if _, err := g.Propose(context.Background(), Request{Text: "z", Timeout: time.Second}); !errors.Is(err, ErrTooManyPending) {
		t.Fatalf("over the bound: %v", err)
	}
	g.Close()
	for _, ch := range chs {
		if out := <-ch; !errors.Is(out.err, ErrClosed) || out.o.State != attachwire.ProposalWithdrawn {
			t.Fatalf("%+v", out)
		}
	}
	if _, err := g.Propose(context.Background(), Request{Text: "z"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("after close: %v", err)
	}
}

func TestGateReannounce(t *testing.T) {
	r := newRoom()
	g := New(Config{Write: r.config().Write})
	g.SetAnnounce(context.Background(), r.config().Announce) // nothing waiting yet
	res := propose(g, context.Background(), "a")
	p := next(t, r)
	g.Reannounce(context.Background())
	if again := next(t, r); again != p {
		t.Fatalf("re-announced %+v, want %+v", again, p)
	}
	g.Decide(attachwire.Decision{ID: p.ID, Verdict: attachwire.VerdictApprove})
	if out := <-res; out.o.State != attachwire.ProposalApproved {
		t.Fatalf("%+v", out)
	}
}
