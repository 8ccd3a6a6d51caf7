package version_test

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/internal/version"
)

func TestFromBuildInfo(t *testing.T) {
	rev := []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0123456789abcdef0123"}}
	dep := func(v string, r *debug.Module) []*debug.Module {
		return []*debug.Module{{Path: "example.com/other", Version: "v9.9.9"}, {Path: version.Module, Version: v, Replace: r}}
	}
	for _, tt := range []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want string
	}{
		{"no build info", nil, false, "devel"},
		{"main, tagged", &debug.BuildInfo{Main: debug.Module{Path: version.Module, Version: "v1.4.0"}, Settings: rev}, true, "v1.4.0"},
		{"main, work tree", &debug.BuildInfo{Main: debug.Module{Path: version.Module, Version: "(devel)"}, Settings: rev}, true, "devel-0123456789ab"},
		{"main, no vcs", &debug.BuildInfo{Main: debug.Module{Path: version.Module, Version: "(devel)"}}, true, "devel"},
		{"dependency", &debug.BuildInfo{Main: debug.Module{Path: "example.com/app", Version: "v0.1.0"}, Deps: dep("v1.2.3", nil), Settings: rev}, true, "v1.2.3"},
		{"replaced dependency", &debug.BuildInfo{Main: debug.Module{Path: "example.com/app"}, Deps: dep("v1.2.3", &debug.Module{Path: "example.com/fork", Version: "v1.2.4-fork"})}, true, "v1.2.4-fork"},
		{"replaced by a directory", &debug.BuildInfo{Main: debug.Module{Path: "example.com/app"}, Deps: dep("v1.2.3", &debug.Module{Path: "../ptyhost"})}, true, "devel"},
		{"not linked", &debug.BuildInfo{Main: debug.Module{Path: "example.com/app", Version: "v0.1.0"}}, true, "devel"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := version.FromBuildInfo(tt.bi, tt.ok); got != tt.want {
				t.Errorf("FromBuildInfo = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestString: in this test binary ptyhost is the main module, built from
// a work tree, so the version is devel (with a revision if stamped).
func TestString(t *testing.T) {
	if v := version.String(); v != "devel" && !strings.HasPrefix(v, "devel-") {
		t.Errorf("String() = %q, want devel[-revision]", v)
	}
}
