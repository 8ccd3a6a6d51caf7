package attachclient_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/internal/testkit"
)

// TestHostAsksTheRelayToRecord: HostConfig.Record makes a relay that
// records on request record the room.
func TestHostAsksTheRelayToRecord(t *testing.T) {
	rcfg := fastRelay()
	rcfg.Record.Dir = t.TempDir()
	r := newRig(t, "lines", rcfg)
	cfg := r.config()
	cfg.Record = true
	r.start(t, cfg)
	r.sess.WriteInput([]byte("exit 0\n"))
	testkit.Eventually(t, "the relay records the child's output", func() bool {
		m, _ := filepath.Glob(filepath.Join(rcfg.Record.Dir, "*.cast"))
		if len(m) != 1 {
			return false
		}
		b, _ := os.ReadFile(m[0])
		return strings.Contains(string(b), "ready")
	})
	if err := r.wait(t); err != nil {
		t.Fatal(err)
	}
}
