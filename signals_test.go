package ptyhost

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// helperSigHost is a host as the launches of TestChildSignalsDefault make
// it: with PTYHOST_TEST_IGNORE set it ignores SIGHUP, SIGINT and SIGQUIT
// itself. It prints its own SigIgn mask, the mask of a child that reads
// its own (cat /proc/self/status), and how a sleep(1) ended by Stop died.
func helperSigHost() int {
	if os.Getenv("PTYHOST_TEST_IGNORE") != "" {
		signal.Ignore(syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT)
	}
	mask, err := ignoredMask()
	if err != nil {
		fmt.Println("host:", err)
		return 1
	}
	fmt.Printf("host %016x\n", mask)
	s, err := spawn(Spec{Command: []string{"cat", "/proc/self/status"}}, newFakeTerm)
	if err != nil {
		fmt.Println("spawn cat:", err)
		return 1
	}
	sub, _ := s.Subscribe(0)
	var out []byte
	for {
		f, err := sub.Next(context.Background())
		if err != nil {
			break
		}
		out = append(out, f.Payload...)
	}
	s.Stop(context.Background())
	for _, l := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(l, "SigIgn:"); ok {
			fmt.Printf("child %s\n", strings.TrimSpace(v))
		}
	}
	s, err = spawn(Spec{Command: []string{"sleep", "60"}}, newFakeTerm)
	if err != nil {
		fmt.Println("spawn sleep:", err)
		return 1
	}
	s.Stop(context.Background())
	ex, _ := s.Exit()
	fmt.Printf("stop %d %s\n", ex.Code, ex.Signal)
	return 0
}

// TestChildSignalsDefault launches a host that ignores signals the three
// ways it happens (ignoring them itself, under nohup, as a background job
// of a non-interactive shell, which ignores SIGINT and SIGQUIT for it):
// its children must start with nothing ignored, and Stop's SIGHUP must
// end a sleep(1).
func TestChildSignalsDefault(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("SKIP: the masks are read from /proc")
	}
	self := []string{os.Args[0], "-test.run=^$"}
	hupIntQuit := uint64(1<<(syscall.SIGHUP-1) | 1<<(syscall.SIGINT-1) | 1<<(syscall.SIGQUIT-1))
	tests := []struct {
		name     string
		argv     []string
		env      string
		hostMask uint64 // the bits the host must show, or the launch did not work
	}{
		// The Go runtime catches SIGQUIT whatever it inherits, so only
		// SIGHUP and SIGINT show as ignored in a Go host.
		{"host ignores", self, "PTYHOST_TEST_IGNORE=1", hupIntQuit},
		{"nohup", append([]string{"nohup"}, self...), "", 1 << (syscall.SIGHUP - 1)},
		{"background job", []string{"sh", "-c", `"$@" & wait`, "sh"}, "", 1 << (syscall.SIGINT - 1)},
	}
	tests[2].argv = append(tests[2].argv, self...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := exec.LookPath(tt.argv[0]); err != nil {
				t.Skipf("SKIP: no %s: %v", tt.argv[0], err)
			}
			cmd := exec.Command(tt.argv[0], tt.argv[1:]...)
			cmd.Env = append(os.Environ(), helperEnv+"=sighost", "GORACE=atexit_sleep_ms=0", tt.env)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("host: %v\n%s", err, out)
			}
			var host, child uint64
			var code int
			var sig string
			if _, err := fmt.Sscanf(string(out), "host %x\nchild %x\nstop %d %s\n", &host, &child, &code, &sig); err != nil {
				t.Fatalf("host printed %q: %v", out, err)
			}
			if host&tt.hostMask != tt.hostMask {
				t.Fatalf("host ignores %x, want at least %x: the launch did not set up the case", host, tt.hostMask)
			}
			if child != 0 {
				t.Errorf("child ignores %x, want nothing", child)
			}
			if code != 129 || sig != "SIGHUP" {
				t.Errorf("Stop ended sleep with %d %s, want 129 SIGHUP", code, sig)
			}
		})
	}
}

// ignoredMask returns this process's SigIgn mask from /proc.
func ignoredMask() (uint64, error) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "SigIgn:"); ok {
			return strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		}
	}
	return 0, fmt.Errorf("no SigIgn in /proc/self/status")
}
