//go:build linux

package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// A recording that fails (here every write: /dev/full) stops, the program
// runs to its end, and run says that the cast file is incomplete once the
// terminal is back.
func TestRunSaysTheRecordingStopped(t *testing.T) {
	master, tty, err := pty.Open()
	if err != nil {
		t.Skipf("SKIPPING: no PTY available: %v", err)
	}
	defer master.Close()
	defer tty.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	err = runCmd(ctx, []string{"--record", "/dev/full", "--", "sh", "-c", "echo still running"}, tty, &out)
	if err != nil {
		t.Fatalf("run: %v; output %q", err, out.String())
	}
	got := out.String()
	if !strings.Contains(got, "still running") {
		t.Errorf("the program's output is missing: %q", got)
	}
	if !strings.Contains(got, "run: recording stopped, the cast file is incomplete: record /dev/full: ") ||
		!strings.Contains(got, "no space left on device") {
		t.Errorf("run did not say the recording stopped: %q", got)
	}
}
