package main

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// natsServerModule is the module whose packages (server/pse's init timer
// among them) the default build must not link.
const natsServerModule = "github.com/nats-io/nats-server/"

// TestNATSServerNotLinked: the CLI in a default build and package relay in
// any build link no package of nats-server; only the CLI built with the
// ptyhost_natsembedded tag does (which also shows the check can fail).
func TestNATSServerNotLinked(t *testing.T) {
	gotool := requireTool(t, "go")
	const cli, relay = "github.com/ptyhost/ptyhost/cmd/ptyhost", "github.com/ptyhost/ptyhost/relay"
	for _, tc := range []struct {
		name  string
		tags  string
		pkg   string
		links bool
	}{
		{"ptyhost", "", cli, false},
		{"relay", "", relay, false},
		{"relay with the tag", natsEmbeddedTag, relay, false},
		{"ptyhost with the tag", natsEmbeddedTag, cli, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			deps := listDeps(t, gotool, tc.tags, tc.pkg)
			i := slices.IndexFunc(deps, func(p string) bool { return strings.HasPrefix(p, natsServerModule) })
			switch {
			case !tc.links && i >= 0:
				t.Errorf("go list -deps -tags=%q %s has %s", tc.tags, tc.pkg, deps[i])
			case tc.links && i < 0:
				t.Errorf("go list -deps -tags=%q %s has no nats-server package in %d", tc.tags, tc.pkg, len(deps))
			}
		})
	}
}

// listDeps returns the import paths pkg depends on, built with tags only
// (the command line's -tags overrides any in GOFLAGS).
func listDeps(t *testing.T, gotool, tags, pkg string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, gotool, "list", "-deps", "-tags="+tags, "-f", "{{.ImportPath}}", pkg).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, stderr)
	}
	return strings.Fields(string(out))
}
