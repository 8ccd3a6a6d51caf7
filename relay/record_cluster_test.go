package relay_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/castchain"
)

// TestRecordClusterOwnerOnly: in a cluster only the node holding the host
// records, and a viewer on another node is in its recording.
func TestRecordClusterOwnerOnly(t *testing.T) {
	ns := natsServer(t)
	cfg, pub := recordingConfig(t, true) // one directory for both nodes
	nodes := startClusterWith(t, ns, cfg, "a", "b")
	h, v := hostAndViewer(t, nodes[0], nodes[1])
	h.output("from the owner")
	untilFrame(t, v, attachwire.TypeOutput)
	h.exit(0)
	b := closedRecording(t, cfg.Record.Dir) // fails if the mirror wrote one too
	if !bytes.Contains(b, []byte(`"m", "join vic (viewer)"`)) || !bytes.Contains(b, []byte("from the owner")) {
		t.Errorf("recording lacks the remote viewer's join or the output:\n%s", b)
	}
	if rep, _ := castchain.Verify(bytes.NewReader(b), castchain.VerifyOptions{Key: pub}); !rep.Intact() {
		t.Fatal(rep.Problems)
	}
	for _, n := range nodes {
		n.Close()
	}
	if fs := castFiles(t, cfg.Record.Dir); len(fs) != 1 {
		names := ""
		for _, f := range fs {
			b, _ := os.ReadFile(f)
			names += f + ":\n" + string(b)
		}
		t.Fatalf("%d recordings, want the owner's alone:\n%s", len(fs), names)
	}
}
