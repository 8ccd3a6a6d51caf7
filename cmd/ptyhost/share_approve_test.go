package main

import (
	"strings"
	"testing"
)

// With --approve the drive link proposes: its holder's line (Ctrl-] p in
// attach) waits in the sharer's panel, reaches the program only once the
// sharer approves (Ctrl-] y), and a rejected one (Ctrl-] n) never does;
// the proposer is told each outcome.
func TestShareApproveUnderTmux(t *testing.T) {
	tm := newTmux(t)
	tm.run("new-session", "-d", "-s", "main", "-x", "100", "-y", "30", "/bin/sh")
	tm.typeLine(helperEnv + "=tui " + shellQuote(ptyhostBin) + " share --approve -- " + shellQuote(self(t)) + "; echo rc=$?")
	tm.waitFor("TUI-READY")
	l := readLinks(t, tm, "main")

	tm.run("new-window", "-d", "-t", "main:1", "/bin/sh")
	tm.run("resize-window", "-t", "main:1", "-x", "100", "-y", "30")
	tm.typeLineIn("main:1", l.driveLine+"; echo rc=$?")
	tm.waitIn("main:1", "TUI-READY")

	// Typing as a proposer types nothing; it is told how to propose.
	tm.run("send-keys", "-t", "main:1", "-l", "x")
	tm.waitIn("main:1", "Ctrl-] p proposes a line")

	propose := func(line string) {
		t.Helper()
		tm.run("send-keys", "-t", "main:1", "C-]", "p")
		tm.waitIn("main:1", "propose a line")
		tm.run("send-keys", "-t", "main:1", "-l", line)
		tm.run("send-keys", "-t", "main:1", "Enter")
	}
	propose("ppid")
	got := tm.waitIn("main:0", "waiting for your approval")
	if !strings.Contains(got, "driver: ppid⏎") || strings.Contains(got, "ppid=") {
		t.Fatalf("the sharer's panel:\n%s", got)
	}
	tm.waitIn("main:1", "waiting for approval by the pen holder")
	tm.run("send-keys", "-t", "main:0", "C-]", "y")
	tm.waitIn("main:0", "ppid=")
	tm.waitIn("main:1", "ppid=")
	tm.waitIn("main:1", "input was approved by the sharer")

	propose("quit")
	tm.waitIn("main:0", "driver: quit⏎")
	tm.run("send-keys", "-t", "main:0", "C-]", "n")
	tm.waitIn("main:1", "input was rejected by the sharer")
	// The program is still running: the rejected quit never reached it.
	tm.typeLine("size")
	tm.waitIn("main:1", "size=")
}
