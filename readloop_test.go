package ptyhost

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term"
)

// gatedTerm is a fake terminal whose first Write waits for release, so a
// test can keep the feed busy.
type gatedTerm struct {
	term.Terminal
	started chan struct{} // closed when the first Write begins
	release chan struct{}
	writes  int
}

func (g *gatedTerm) Write(p []byte) {
	if g.writes++; g.writes == 1 {
		close(g.started)
		<-g.release
	}
	g.Terminal.Write(p)
}

// TestReadCoalescesWhileFeedBusy: output that arrives in separate writes
// while the feed is busy with an earlier chunk is published as one frame
// once the feed is free, and the Output payloads still concatenate to the
// bytes written (docs/invariants.md, invariant 7).
func TestReadCoalescesWhileFeedBusy(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "written")
	g := &gatedTerm{started: make(chan struct{}), release: make(chan struct{})}
	newTerm := func(o term.Options) (term.Terminal, error) {
		ft, err := newFakeTerm(o)
		g.Terminal = ft
		return g, err
	}
	s := start(t, Spec{Command: []string{"sh", "-c", `stty -echo; printf a; read x; printf b; sleep 0.05; printf c; : > "$0"; read y`, marker}}, newTerm)
	sub, err := s.Subscribe(0)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-g.started:
	case <-time.After(watchdog):
		t.Fatal("the feed never got the first chunk")
	}
	if _, err := s.WriteInput([]byte("\n")); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(watchdog); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the child never wrote b and c")
		}
	}
	close(g.release)
	if _, err := s.WriteInput([]byte("\n")); err != nil {
		t.Fatal(err)
	}
	var outs []string
	for _, f := range collect(t, sub) {
		if f.Type == attachwire.TypeOutput {
			outs = append(outs, string(f.Payload))
		}
	}
	if len(outs) != 2 || outs[0] != "a" || outs[1] != "bc" {
		t.Fatalf("Output frames %q, want [\"a\" \"bc\"]: b and c read while the feed was busy, in one frame", outs)
	}
}
