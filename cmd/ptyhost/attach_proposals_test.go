package main

import (
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
)

// The pen holder in `ptyhost attach` sees an agent's proposals and
// rejects one (Ctrl-] n) and edits another (Ctrl-] e) from the keyboard;
// the agent's type calls return those outcomes and only the edited line
// reaches the program.
func TestAttachDecidesProposals(t *testing.T) {
	tm := newTmux(t)
	cs := mcpClient(t, "--approve")
	var st mcpStarted
	mustCall(t, cs, "start", map[string]any{"command": "sh", "args": []string{"-c", `stty -echo; echo ready; while read -r l; do echo "got:$l"; done`}}, &st)
	var sh mcpShared
	mustCall(t, cs, "share", map[string]any{"id": st.ID}, &sh)
	line, ok := strings.CutPrefix(sh.AttachDrive, "PTYHOST_TOKEN=")
	tok, rest, _ := strings.Cut(line, " ")
	env := "PTYHOST_TOKEN=" + tok + " "
	if key, after, sealed := strings.Cut(rest, " "); sealed && strings.HasPrefix(key, "PTYHOST_KEY=") {
		env, rest = env+key+" ", after // the room is sealed: the line carries its key
	}
	if !ok || !strings.HasPrefix(rest, "ptyhost attach --drive ") {
		t.Fatalf("share's attach line %q", sh.AttachDrive)
	}
	cmd := env + shellQuote(ptyhostBin) + strings.TrimPrefix(rest, "ptyhost") + "; echo rc=$?"
	tm.run("new-session", "-d", "-s", "main", "-x", "100", "-y", "20", "/bin/sh")
	tm.run("send-keys", "-t", "main:0", "-l", cmd)
	tm.run("send-keys", "-t", "main:0", "Enter")
	tm.waitIn("main:0", "ready")
	tm.waitIn("main:0", "pen: you")

	ch := typeAsync(t, cs, map[string]any{"id": st.ID, "text": "rm -rf ~", "keys": []string{"Enter"}})
	got := tm.waitIn("main:0", "Ctrl-] y approves")
	if !strings.Contains(got, "ptyhost-test: rm -rf ~⏎") {
		t.Fatalf("the panel does not show the proposal:\n%s", got)
	}
	tm.run("send-keys", "-t", "main:0", "C-]", "n")
	if r := <-ch; r.Outcome != string(attachwire.ProposalRejected) || r.By != "driver" {
		t.Fatalf("rejected from attach: %+v", r)
	}
	tm.waitIn("main:0", "input was rejected by driver")

	ch = typeAsync(t, cs, map[string]any{"id": st.ID, "text": "rm -rf ~", "keys": []string{"Enter"}})
	tm.waitIn("main:0", "Ctrl-] y approves")
	tm.run("send-keys", "-t", "main:0", "C-]", "e")
	tm.waitIn("main:0", "edit the first")
	tm.run("send-keys", "-t", "main:0", "C-u")
	tm.run("send-keys", "-t", "main:0", "-l", "echo safe")
	tm.waitIn("main:0", "echo safe▌")
	tm.run("send-keys", "-t", "main:0", "Enter")
	if r := <-ch; r.Outcome != string(attachwire.ProposalEdited) || r.Written != "echo safe\r" {
		t.Fatalf("edited from attach: %+v", r)
	}
	got = tm.waitIn("main:0", "got:echo safe")
	if strings.Contains(got, "got:rm") {
		t.Fatalf("a rejected or replaced line reached the program:\n%s", got)
	}
}
