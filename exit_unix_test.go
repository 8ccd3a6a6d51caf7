//go:build unix

package ptyhost

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
)

func TestSignalName(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("SKIP: names checked against Linux numbering")
	}
	tests := []struct {
		sig  syscall.Signal
		want string
	}{
		{syscall.SIGHUP, "SIGHUP"},
		{syscall.SIGINT, "SIGINT"},
		{syscall.SIGKILL, "SIGKILL"},
		{syscall.SIGSEGV, "SIGSEGV"},
		{syscall.SIGTERM, "SIGTERM"},
		{syscall.Signal(31), "SIGSYS"},
		{syscall.Signal(32), "SIGRTMIN"},
		{syscall.Signal(34), "SIGRTMIN+2"},
		{syscall.Signal(64), "SIGRTMIN+32"},
		{syscall.Signal(65), "SIG65"},
		{syscall.Signal(0), "SIG0"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := SignalName(tt.sig); got != tt.want {
				t.Fatalf("SignalName(%d) = %q, want %q", int(tt.sig), got, tt.want)
			}
		})
	}
	seen := map[string]int{}
	for sig := 1; sig <= 64; sig++ {
		name := SignalName(syscall.Signal(sig))
		if !strings.HasPrefix(name, "SIG") || strings.TrimLeft(name[3:], "0123456789") == "" {
			t.Fatalf("signal %d has no proper name: %q", sig, name)
		}
		if prev, dup := seen[name]; dup {
			t.Fatalf("signals %d and %d share the name %q", prev, sig, name)
		}
		seen[name] = sig
	}
}

func TestExitForSignal(t *testing.T) {
	for sig, want := range map[syscall.Signal]attachwire.Exit{
		syscall.SIGKILL: {Code: 137, Signal: "SIGKILL"},
		syscall.SIGTERM: {Code: 143, Signal: "SIGTERM"},
	} {
		if got := exitForSignal(sig); got != want {
			t.Errorf("exitForSignal(%d) = %+v, want %+v", int(sig), got, want)
		}
	}
}

// TestExitFromProcessState maps real process ends: the exit code of the
// test binary run as the "exit" helper, or the signal that killed a
// sleep(1) (a Go child ignores real-time signals it does not watch).
func TestExitFromProcessState(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("SKIP: signal names checked against Linux numbering")
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("SKIP: no sleep(1) to kill")
	}
	tests := []struct {
		mode string
		want attachwire.Exit
	}{
		{"0", attachwire.Exit{Code: 0}},
		{"3", attachwire.Exit{Code: 3}},
		{"signal 9", attachwire.Exit{Code: 137, Signal: "SIGKILL"}},
		{"signal 15", attachwire.Exit{Code: 143, Signal: "SIGTERM"}},
		{"signal 35", attachwire.Exit{Code: 163, Signal: "SIGRTMIN+3"}},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			sig, signaled := strings.CutPrefix(tt.mode, "signal ")
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), helperEnv+"=exit", "PTYHOST_TEST_CODE="+tt.mode, "GORACE=atexit_sleep_ms=0")
			if signaled {
				cmd = exec.Command(sleep, "30")
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if signaled {
				n, _ := strconv.Atoi(sig)
				if err := cmd.Process.Signal(syscall.Signal(n)); err != nil {
					t.Fatal(err)
				}
			}
			_ = cmd.Wait()
			if got, ok := exitFromProcessState(cmd.ProcessState); !ok || got != tt.want {
				t.Fatalf("exitFromProcessState = %+v, %v; want %+v", got, ok, tt.want)
			}
		})
	}
	if _, ok := exitFromProcessState(nil); ok {
		t.Fatal("nil ProcessState reported a termination")
	}
}
