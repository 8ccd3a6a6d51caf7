package testkit

import (
	"os"
	"os/exec"
	"testing"
)

// RequireToolsEnv is the environment variable that turns a missing tool
// from a loud skip into a failure; CI sets it to "1" after installing
// every tool the tests use.
const RequireToolsEnv = "PTYHOST_REQUIRE_TOOLS"

// RequireTool returns the path of the program name, or skips the test
// saying so (fails it when RequireToolsEnv is "1").
func RequireTool(tb testing.TB, name string) string {
	tb.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if os.Getenv(RequireToolsEnv) == "1" {
		tb.Fatalf("%s is required (%s=1) but not found: %v", name, RequireToolsEnv, err)
	}
	tb.Skipf("SKIPPING: %s not installed (%v); set %s=1 to make this a failure", name, err, RequireToolsEnv)
	return ""
}
