package ptyhost_test

import (
	"bytes"
	"context"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/internal/testkit"
)

// buildFlags returns the environment assignments, flags and package of
// the first `go build` line in the file at path whose package is
// ./cmd/ptyhost, without its -o and output (which differ by design).
func buildFlags(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// A shell word: a quoted span or a run of anything else.
	word := regexp.MustCompile(`(?:[^\s"']|"[^"]*"|'[^']*')+`)
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.Contains(line, "go build") || !strings.Contains(line, "./cmd/ptyhost") {
			continue
		}
		var out []string
		words := word.FindAllString(line, -1)
		for i := 0; i < len(words); i++ {
			w := strings.NewReplacer(`"`, "", `'`, "").Replace(words[i])
			if w == "&&" || w == "||" || w == "|" || w == ";" || w == `\` {
				break
			}
			switch {
			case w == "-o":
				i++
			case w == "RUN", strings.HasPrefix(w, "$(") || w == "go" || w == "build":
			default:
				out = append(out, w)
			}
		}
		slices.Sort(out)
		return out
	}
	t.Fatalf("%s has no go build of ./cmd/ptyhost", path)
	return nil
}

// TestDockerfileBuildsWhatCIChecks: the image is built with the command
// CI runs and checks to be static (.ci/run), so the two cannot drift
// apart, and that command is a static, reproducible, stripped build.
func TestDockerfileBuildsWhatCIChecks(t *testing.T) {
	docker := buildFlags(t, "Dockerfile")
	ci := buildFlags(t, ".ci/run")
	if !slices.Equal(docker, ci) {
		t.Fatalf("the Dockerfile builds with %q, CI with %q", docker, ci)
	}
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath", "-ldflags=-s -w", "./cmd/ptyhost"} {
		if !slices.Contains(docker, want) {
			t.Errorf("the Dockerfile's build has no %q: %q", want, docker)
		}
	}
	b, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"FROM gcr.io/distroless/static", "USER nonroot", "VOLUME ", "EXPOSE "} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the Dockerfile has no %q", want)
		}
	}
}

// TestStaticBinary checks that the binary CI built as the Dockerfile does
// (PTYHOST_STATIC_BIN, set by .ci/run) runs FROM scratch or distroless:
// no ELF interpreter and no shared library.
func TestStaticBinary(t *testing.T) {
	path := os.Getenv("PTYHOST_STATIC_BIN")
	if path == "" {
		t.Skip("PTYHOST_STATIC_BIN is not set: .ci/run builds the static binary and runs this test on it")
	}
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s has an ELF interpreter: it is dynamically linked", path)
		}
		if p.Type == elf.PT_DYNAMIC {
			t.Errorf("%s has a dynamic segment", path)
		}
	}
	if libs, err := f.ImportedLibraries(); err == nil && len(libs) > 0 {
		t.Errorf("%s needs shared libraries %q", path, libs)
	}
	if st, err := os.Stat(path); err == nil {
		t.Logf("%s: %d bytes, statically linked", path, st.Size())
	}
}

// TestDeployUnit: the systemd unit docs/deploy.md gives loads without a
// complaint from systemd-analyze verify, and systemd-analyze security
// rates its exposure 2.0 or better (of 10; 1.8 as written).
func TestDeployUnit(t *testing.T) {
	analyze := testkit.RequireTool(t, "systemd-analyze")
	doc, err := os.ReadFile("docs/deploy.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), "```ini\n")
	unit, _, ok2 := strings.Cut(after, "```")
	if !ok || !ok2 {
		t.Fatal("docs/deploy.md has no ```ini block")
	}
	// verify checks that ExecStart's program exists: any one does.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(unit, "ExecStart=/usr/local/bin/ptyhost relay") {
		t.Fatalf("the unit does not start /usr/local/bin/ptyhost relay:\n%s", unit)
	}
	unit = strings.ReplaceAll(unit, "/usr/local/bin/ptyhost", self)
	path := filepath.Join(t.TempDir(), "ptyhost-relay.service")
	if err := os.WriteFile(path, []byte(unit), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, analyze, "verify", "--man=no", path).CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
	out, err = exec.CommandContext(ctx, analyze, "security", "--offline=yes", "--threshold=20", path).CombinedOutput()
	if err != nil {
		t.Errorf("systemd-analyze security: %v\n%s", err, out)
	}
	if i := bytes.Index(out, []byte("Overall exposure level")); i >= 0 {
		t.Logf("%s", bytes.TrimSpace(out[i:]))
	}
}
