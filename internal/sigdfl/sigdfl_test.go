//go:build linux

package sigdfl

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"

	"go.uber.org/goleak"
)

// helperEnv makes the re-executed test binary run helperHost instead of
// the tests.
const helperEnv = "SIGDFL_TEST_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "host":
		os.Exit(helperHost())
	case "failure":
		os.Exit(helperExecFailure())
	}
	goleak.VerifyTestMain(m)
}

// ignoredSet is what helperHost ignores; SIGTTOU is one the Go runtime
// does not track.
var ignoredSet = []syscall.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTTOU}

func maskOf(sigs ...syscall.Signal) uint64 {
	var m uint64
	for _, s := range sigs {
		m |= 1 << (s - 1)
	}
	return m
}

// helperHost ignores ignoredSet and prints the SigIgn mask of cat(1)
// started directly ("direct") and through Start ("wrapped"), and whether
// it thinks it needs the trampoline.
func helperHost() int {
	for _, sig := range ignoredSet {
		signal.Ignore(sig)
	}
	cat, err := exec.LookPath("cat")
	if err != nil {
		fmt.Println("no cat:", err)
		return 1
	}
	fmt.Printf("ignored %v\n", Ignored())
	for _, wrapped := range []bool{false, true} {
		var out strings.Builder
		c := &exec.Cmd{Path: cat, Args: []string{"cat", "/proc/self/status"}, Stdout: &out}
		if wrapped {
			if fallback, err := Start(c); fallback != nil || err != nil {
				fmt.Println("start:", fallback, err)
				return 1
			}
		} else if err := c.Start(); err != nil {
			fmt.Println("start:", err)
			return 1
		}
		if err := c.Wait(); err != nil {
			fmt.Println("wait:", err)
			return 1
		}
		for _, l := range strings.Split(out.String(), "\n") {
			if v, ok := strings.CutPrefix(l, "SigIgn:"); ok {
				fmt.Println("mask", strings.TrimSpace(v))
			}
		}
	}
	return 0
}

// TestStartResetsIgnored: a host ignoring SIGHUP, SIGINT, SIGQUIT and
// SIGTTOU passes them on to a child it starts directly, and none to one
// it starts through Start.
func TestStartResetsIgnored(t *testing.T) {
	out, err := runHelper("host")
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	want := fmt.Sprintf("ignored true\nmask %016x\nmask %016x\n", maskOf(ignoredSet...), 0)
	if out != want {
		t.Fatalf("helper printed\n%s\nwant\n%s", out, want)
	}
}

func runHelper(name string) (string, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+name, "GORACE=atexit_sleep_ms=0")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// helperExecFailure starts, through the trampoline, a program that is not
// there (as if it vanished after the caller's checks) and one whose
// environment it prints: the first must fail with ENOENT, the second must
// not see the marker.
func helperExecFailure() int {
	signal.Ignore(syscall.SIGHUP)
	c := &exec.Cmd{Path: "/nonexistent/ptyhost-sigdfl-test", Args: []string{"x"}}
	_, err := Start(c)
	fmt.Printf("missing: %v %v\n", errors.Is(err, fs.ErrNotExist), err)
	var out strings.Builder
	env, _ := exec.LookPath("env")
	c = &exec.Cmd{Path: env, Args: []string{"env"}, Env: []string{"A=1"}, Stdout: &out}
	if _, err := Start(c); err != nil {
		fmt.Println("env:", err)
		return 1
	}
	c.Wait()
	fmt.Printf("env: %q\n", out.String())
	return 0
}

// TestStartExecFailure: a failed second exec is Start's error, with its
// errno, and the real program never sees the trampoline's marker.
func TestStartExecFailure(t *testing.T) {
	out, err := runHelper("failure")
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	want := "missing: true exec /nonexistent/ptyhost-sigdfl-test: no such file or directory\nenv: \"A=1\\n\"\n"
	if out != want {
		t.Fatalf("helper printed\n%s\nwant\n%s", out, want)
	}
}

// BenchmarkStart measures what the trampoline costs a child's start: a
// true(1) started and reaped, directly and through the re-exec (this
// binary is the trampoline; SIGTTOU is ignored for the second case, and
// restored after).
func BenchmarkStart(b *testing.B) {
	if Ignored() {
		b.Skip("SKIP: this process already ignores signals; no direct start to compare")
	}
	tr, err := exec.LookPath("true")
	if err != nil {
		b.Skip("SKIP: no true(1)")
	}
	run := func(b *testing.B) {
		for b.Loop() {
			c := &exec.Cmd{Path: tr, Args: []string{"true"}, Env: []string{"GORACE=atexit_sleep_ms=0"}}
			if _, err := Start(c); err != nil {
				b.Fatal(err)
			}
			if err := c.Wait(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("direct", run)
	signal.Ignore(syscall.SIGTTOU)
	defer signal.Reset(syscall.SIGTTOU)
	b.Run("trampoline", run)
}

// TestStrayMarker: a binary started with the marker in its environment
// but not by Start (no report pipe) runs as itself, not as a trampoline.
func TestStrayMarker(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.count=1")
	cmd.Env = append(os.Environ(), markerEnv+"=1", "GORACE=atexit_sleep_ms=0")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PASS") {
		t.Fatalf("the test binary with a stray marker: %v\n%s", err, out)
	}
}
