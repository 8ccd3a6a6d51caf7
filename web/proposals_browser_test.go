package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/mcpserver"
	"github.com/ptyhost/ptyhost/internal/share"
	"github.com/ptyhost/ptyhost/internal/testkit"
)

// agent is an MCP client (the go-sdk's) of an in-process `ptyhost mcp`
// server whose sessions all need approval, shared on embedded relays.
func agent(t *testing.T) *mcp.ClientSession {
	t.Helper()
	sharer := &mcpserver.RelaySharer{}
	srv := mcpserver.New(mcpserver.Options{Sharer: sharer, Approval: mcpserver.Approval{All: true}})
	st, ct := mcp.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		<-done
		sharer.Close()
	})
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		t.Fatalf("%s: %v", tool, res.Content)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out map[string]any
	json.Unmarshal(b, &out)
	return out
}

// waitProposal waits until the page shows one proposal waiting, and
// returns its text as shown.
func waitProposal(t *testing.T, ctx context.Context) string {
	t.Helper()
	var shown string
	testkit.EventuallyDescribe(t, "a proposal in the page", func() bool {
		shown = eval[string](t, ctx, `(() => { const e = document.querySelector('#proposal-list .proposal .text');
			return e && !document.getElementById('proposals').hidden ? e.textContent : ''; })()`)
		return shown != ""
	}, func() string { return "none shown" })
	return shown
}

// TestBrowserApprovesAgentInput: an agent's input in approval mode waits
// in the page of the person who holds the pen, and reaches the program
// only as that person decided: approved as proposed, or edited first.
func TestBrowserApprovesAgentInput(t *testing.T) {
	bctx := startBrowser(t)
	cs := agent(t)
	st := call(t, cs, "start", map[string]any{"command": "sh", "args": []string{"-c", `stty -echo; echo ready; while read -r l; do echo "got:$l"; done`}})
	id := st["id"].(string)
	if st["approval"] != true {
		t.Fatalf("start: %v", st)
	}
	links := call(t, cs, "share", map[string]any{"id": id})
	drive, _ := links["drive"].(string)
	if !strings.Contains(drive, "/view#token=") {
		t.Fatalf("share: %v", links)
	}
	ctx := page(t, bctx, drive)
	waitScreen(t, ctx, "ready")
	waitHolding(t, ctx)

	typed := func(text string) chan map[string]any {
		ch := make(chan map[string]any, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "type", Arguments: map[string]any{"id": id, "text": text, "keys": []string{"Enter"}}})
			out := map[string]any{}
			if err != nil || res.IsError {
				out["error"] = fmt.Sprint(err, res)
			} else {
				b, _ := json.Marshal(res.StructuredContent)
				json.Unmarshal(b, &out)
			}
			ch <- out
		}()
		return ch
	}

	ch := typed("echo hi")
	if shown := waitProposal(t, ctx); shown != "echo hi⏎" {
		t.Fatalf("proposal shown as %q", shown)
	}
	saveScreenshot(t, ctx, "proposal")
	if strings.Contains(pageScreen(t, ctx), "got:echo hi") {
		t.Fatal("the program read the input before the approval")
	}
	eval[bool](t, ctx, `(document.querySelector('#proposal-list .proposal button.approve').click(), true)`)
	if out := <-ch; out["outcome"] != "approved" || out["by"] != "web-driver" {
		t.Fatalf("approved: %v", out)
	}
	waitScreen(t, ctx, "got:echo hi")

	ch = typed("rm -rf /")
	waitProposal(t, ctx)
	eval[bool](t, ctx, `(() => { const row = document.querySelector('#proposal-list .proposal');
		row.querySelector('button.edit').click();
		row.querySelector('input.editor').value = 'echo safer⏎';
		row.querySelector('button.edit').click(); return true; })()`)
	if out := <-ch; out["outcome"] != "edited" || out["written"] != "echo safer\r" {
		t.Fatalf("edited: %v", out)
	}
	waitScreen(t, ctx, "got:echo safer")
	if strings.Contains(pageScreen(t, ctx), "rm -rf") {
		t.Fatal("the proposed input reached the program after an edit")
	}
	testkit.Eventually(t, "the panel hides once nothing waits", func() bool {
		return eval[bool](t, ctx, `document.getElementById('proposals').hidden`)
	})
}

// TestBrowserProposerProposes: with `share --approve` the page of a drive
// link proposes lines from its propose bar instead of typing; what the
// sharer approves reaches the program, what it rejects never does, and
// the page says which.
func TestBrowserProposerProposes(t *testing.T) {
	bctx := startBrowser(t)
	props := make(chan attachwire.Proposal, 16)
	sh, err := share.Start(share.Config{Approve: true, OnProposal: func(p attachwire.Proposal) { props <- p }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sh.Close() })
	sess, err := ptyhost.Spawn(ptyhost.Spec{Command: []string{"sh", "-c", `stty -echo; echo ready; while read -r l; do echo "got:$l"; done`}, Cols: 80, Rows: 24})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	carried := make(chan error, 1)
	go func() { carried <- sh.Carry(ctx, sess.Agent(), nil) }()
	t.Cleanup(func() {
		cancel()
		<-carried
		sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer scancel()
		sess.Stop(sctx)
	})
	pctx := page(t, bctx, sh.Links.BrowserURL(sh.Links.PageDriverToken))
	waitScreen(t, pctx, "ready")
	if eval[bool](t, pctx, `document.getElementById('propose-bar').hidden || !document.getElementById('pen-button').hidden`) {
		t.Fatal("a proposer's page shows no propose bar, or a pen button")
	}
	pending := func(want string) attachwire.Proposal {
		t.Helper()
		for {
			select {
			case p := <-props:
				if p.State == attachwire.ProposalPending {
					if p.Text != want || p.FromUserID != share.PageDriverUser {
						t.Fatalf("proposal %+v, want %q from %s", p, want, share.PageDriverUser)
					}
					return p
				}
			case <-time.After(testkit.Deadline):
				t.Fatalf("no proposal of %q", want)
			}
		}
	}
	proposeLine := func(line string) {
		t.Helper()
		eval[bool](t, pctx, fmt.Sprintf(`(() => { document.getElementById('propose-text').value = %q;
			document.getElementById('propose-button').click(); return true; })()`, line))
	}

	proposeLine("echo hi")
	p := pending("echo hi\r")
	if shown := waitProposal(t, pctx); shown != "echo hi⏎" {
		t.Fatalf("the proposer's page shows %q", shown)
	}
	if !eval[bool](t, pctx, `document.querySelector('#proposal-list .proposal button.approve').disabled`) {
		t.Fatal("a page without the pen may click approve")
	}
	if !sh.Decide(p.ID, true, "") {
		t.Fatal("the sharer's approval found no proposal")
	}
	waitScreen(t, pctx, "got:echo hi")

	proposeLine("rm -rf /")
	p = pending("rm -rf /\r")
	sh.Decide(p.ID, false, "no")
	var note string
	testkit.EventuallyDescribe(t, "the page says it was rejected", func() bool {
		note = eval[string](t, pctx, `document.getElementById('notice').textContent`)
		return strings.Contains(note, "rejected by the sharer: no")
	}, func() string {
		return "notice: " + note + "\noutcomes: " + fmt.Sprint(eval[any](t, pctx, `ptyhostViewer.proposalOutcomes()`))
	})
	if strings.Contains(pageScreen(t, pctx), "got:rm") {
		t.Fatal("a rejected line reached the program")
	}
}
