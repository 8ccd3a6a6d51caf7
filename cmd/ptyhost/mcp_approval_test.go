package main

import (
	"context"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relaytest"
)

type mcpShared struct {
	Watch         string `json:"watch"`
	Drive         string `json:"drive"`
	AttachDrive   string `json:"attach_drive"`
	ApproverLinks string `json:"approver_links"`
}

// approverLinks reads the file a session in approval mode keeps its drive
// links in: the browser's and the terminal's.
func approverLinks(t *testing.T, sh mcpShared) (browser, terminal string) {
	t.Helper()
	if sh.Drive != "" || sh.AttachDrive != "" || sh.ApproverLinks == "" {
		t.Fatalf("share of a session in approval mode returned %+v: the agent got the approver's links, or no file", sh)
	}
	fi, err := os.Stat(sh.ApproverLinks)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("approver links file %s: %v %v", sh.ApproverLinks, fi, err)
	}
	b, err := os.ReadFile(sh.ApproverLinks)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "browser: "); ok {
			browser = v
		}
		if v, ok := strings.CutPrefix(l, "terminal: "); ok {
			terminal = v
		}
	}
	if browser == "" || terminal == "" {
		t.Fatalf("approver links file:\n%s", b)
	}
	return browser, terminal
}

type mcpTyped struct {
	Bytes   int    `json:"bytes"`
	Outcome string `json:"outcome"`
	Written string `json:"written"`
	By      string `json:"by"`
	Reason  string `json:"reason"`
}

// approver shares session id and joins its room as a driver, holding the
// pen: the person who decides.
func approver(t *testing.T, cs *mcp.ClientSession, id string) (driver, watcher *relaytest.Conn) {
	t.Helper()
	var sh mcpShared
	mustCall(t, cs, "share", map[string]any{"id": id, "drive": true}, &sh)
	drive, attachDrive := approverLinks(t, sh)
	u, err := url.Parse(drive)
	if err != nil {
		t.Fatal(err)
	}
	tok := strings.TrimPrefix(u.Fragment, "token=")
	fields := strings.Fields(attachDrive)
	attachURL := fields[len(fields)-1]
	d := relaytest.MustDial(t, attachURL, tok, attachwire.Subscribe{SessionID: path.Base(attachURL), AsRole: attachwire.RoleDriver})
	relaytest.ExpectControl[attachwire.PenGranted](t, d)
	if u, err = url.Parse(sh.Watch); err != nil {
		t.Fatal(err)
	}
	w := relaytest.MustDial(t, attachURL, strings.TrimPrefix(u.Fragment, "token="), attachwire.Subscribe{SessionID: path.Base(attachURL), AsRole: attachwire.RoleViewer})
	return d, w
}

// typeAsync calls type in the background: in approval mode it returns only
// once a person decided.
func typeAsync(t *testing.T, cs *mcp.ClientSession, args map[string]any) chan mcpTyped {
	ch := make(chan mcpTyped, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "type", Arguments: args})
		var out mcpTyped
		if err != nil || res.IsError {
			out.Outcome = "error"
			if res != nil {
				out.Reason = resultText(res)
			}
		} else {
			out.Outcome = res.StructuredContent.(map[string]any)["outcome"].(string)
			if w, ok := res.StructuredContent.(map[string]any)["written"].(string); ok {
				out.Written = w
			}
			out.By, _ = res.StructuredContent.(map[string]any)["by"].(string)
			out.Reason, _ = res.StructuredContent.(map[string]any)["reason"].(string)
		}
		ch <- out
	}()
	return ch
}

func fileText(t *testing.T, name string) string {
	b, err := os.ReadFile(name)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

// An agent's input in approval mode reaches the program only once the pen
// holder approves it (as proposed, or edited); a rejection or no decision
// in time writes nothing; each outcome is a marker in the stream; a
// routine line an --auto-approve rule matches is typed at once.
func TestMCPApproval(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "got")
	// Unsealed: this test's approver is a bare protocol leg; the sealed
	// path is the attach and browser tests'.
	cs := mcpClient(t, "--auto-approve", `echo ok\r`, "--approval-timeout", "3s", "--no-e2e")
	var st mcpStarted
	mustCall(t, cs, "start", map[string]any{"command": "sh", "args": []string{"-c", "stty -echo; echo ready; while read -r l; do echo \"$l\" >> " + out + "; echo \"got $l\"; done"}, "approval": true}, &st)
	mcpWaitFor(t, cs, st.ID, `^ready$`)

	// Without a room, nobody could approve: the agent is told to share.
	res := callTool(t, cs, "type", map[string]any{"id": st.ID, "text": "early", "keys": []string{"Enter"}}, nil)
	if !res.IsError || !strings.Contains(resultText(res), "share") {
		t.Fatalf("type before share: %s", resultText(res))
	}
	d, w := approver(t, cs, st.ID)

	decide := func(verdict attachwire.Verdict, text, reason string) (attachwire.Proposal, mcpTyped, chan mcpTyped) {
		t.Helper()
		before := fileText(t, out)
		ch := typeAsync(t, cs, map[string]any{"id": st.ID, "text": "rm -rf /tmp/x", "keys": []string{"Enter"}})
		p := relaytest.ExpectControl[attachwire.Proposal](t, d)
		for p.State.Done() { // the previous one's outcome
			p = relaytest.ExpectControl[attachwire.Proposal](t, d)
		}
		if p.State != attachwire.ProposalPending || p.Text != "rm -rf /tmp/x\r" || p.FromUserID != "agent" || p.FromName != "ptyhost-test" {
			t.Fatalf("proposal %+v", p)
		}
		// Nothing reached the program while it waits.
		time.Sleep(200 * time.Millisecond)
		if got := fileText(t, out); got != before {
			t.Fatalf("the program read %q before any decision", got)
		}
		if verdict == "" {
			return p, mcpTyped{}, ch
		}
		if err := d.SendControl(context.Background(), attachwire.Decision{ID: p.ID, Verdict: verdict, Text: text, Reason: reason}); err != nil {
			t.Fatal(err)
		}
		return p, <-ch, nil
	}

	_, r, _ := decide(attachwire.VerdictApprove, "", "")
	if r.Outcome != "approved" || r.By != "web-driver" {
		t.Fatalf("approve: %+v", r)
	}
	testkit.Eventually(t, "the approved line reaches the program", func() bool { return fileText(t, out) == "rm -rf /tmp/x\n" })

	_, r, _ = decide(attachwire.VerdictEdit, "ls /tmp/x\r", "")
	if r.Outcome != "edited" || r.Written != "ls /tmp/x\r" {
		t.Fatalf("edit: %+v", r)
	}
	testkit.Eventually(t, "the edited line reaches the program", func() bool { return fileText(t, out) == "rm -rf /tmp/x\nls /tmp/x\n" })

	_, r, _ = decide(attachwire.VerdictReject, "", "not on my machine")
	if r.Outcome != "rejected" || r.Reason != "not on my machine" {
		t.Fatalf("reject: %+v", r)
	}
	_, _, ch := decide("", "", "")
	if r := <-ch; r.Outcome != "expired" {
		t.Fatalf("no decision: %+v", r)
	}
	if got := fileText(t, out); got != "rm -rf /tmp/x\nls /tmp/x\n" {
		t.Fatalf("after a rejection and an expiry the program read %q", got)
	}

	var typed mcpTyped
	mustCall(t, cs, "type", map[string]any{"id": st.ID, "text": "echo ok", "keys": []string{"Enter"}}, &typed)
	if typed.Outcome != "approved" || !strings.HasPrefix(typed.By, "rule ") {
		t.Fatalf("auto-approved: %+v", typed)
	}
	testkit.Eventually(t, "the auto-approved line reaches the program", func() bool {
		return strings.HasSuffix(fileText(t, out), "echo ok\n")
	})

	// Every outcome is a marker in the stream the relay carries.
	want := []string{"approved by web-driver: rm -rf /tmp/x⏎", "edited by web-driver: ls /tmp/x⏎", "rejected by web-driver (not on my machine)", "expired", "approved by rule"}
	for _, want := range want {
		for {
			f, err := w.Next(ctxDeadline(t))
			if err != nil {
				t.Fatalf("waiting for a marker with %q: %v", want, err)
			}
			if f.Type != attachwire.TypeMarker {
				continue
			}
			m, err := attachwire.DecodeMarker(f.Payload)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(m.Label, want) && strings.Contains(m.Label, "(proposed by ptyhost-test (agent))") {
				break
			}
		}
	}
}

func ctxDeadline(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Deadline)
	t.Cleanup(cancel)
	return ctx
}
