//go:build !ptyhost_natsembedded

package main

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/token"
)

// TestRelayCommandNATSEmbeddedNotBuilt: without the ptyhost_natsembedded
// tag, --nats embedded is a usage error (exit status 2) raised before the
// relay listens, whose message names both ways out: the build tag, and a
// nats-server of one's own given as nats://HOST:PORT.
func TestRelayCommandNATSEmbeddedNotBuilt(t *testing.T) {
	pub, _, err := token.WriteKeyFiles(filepath.Join(t.TempDir(), "k"))
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--public-key", pub, "--listen", "127.0.0.1:0", "--nats", "embedded"}
	// A relay that did start would serve until ctx ends: the watchdog.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = relayCmd(ctx, args, nil, new(lockedBuffer))
	var ue *usageError
	if !errors.Is(err, errNoEmbeddedNATS) || !errors.As(err, &ue) {
		t.Fatalf("relayCmd: %v, want a usage error matching errNoEmbeddedNATS", err)
	}
	r := cli(t, "", "", append([]string{"relay"}, args...)...)
	if r.code != exitUsage {
		t.Errorf("exit status %d, want %d", r.code, exitUsage)
	}
	for _, want := range []string{"ptyhost: relay: --nats embedded", "go build -tags ptyhost_natsembedded ./cmd/ptyhost", "--nats nats://HOST:PORT"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr %q does not say %q", r.stderr, want)
		}
	}
	if strings.Contains(r.stdout, "listening") {
		t.Errorf("the relay started: stdout %q", r.stdout)
	}
}
