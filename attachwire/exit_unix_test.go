//go:build unix

package attachwire

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func TestSignalName(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("names checked against Linux numbering")
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
	if got := ExitCodeForSignal(syscall.SIGKILL); got != 137 {
		t.Fatalf("ExitCodeForSignal(SIGKILL) = %d", got)
	}
	if got := ExitForSignal(syscall.SIGTERM); got != (Exit{Code: 143, Signal: "SIGTERM"}) {
		t.Fatalf("ExitForSignal(SIGTERM) = %+v", got)
	}
}

// TestHelperProcess is not a test: it is the child process of
// TestExitFromProcessState.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv("ATTACHWIRE_HELPER")
	if mode == "" {
		return
	}
	code, _ := strconv.Atoi(mode)
	os.Exit(code)
}

func TestExitFromProcessState(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("signal names checked against Linux numbering")
	}
	tests := []struct {
		mode string
		want Exit
	}{
		{"0", Exit{Code: 0}},
		{"3", Exit{Code: 3}},
		{"signal 9", Exit{Code: 137, Signal: "SIGKILL"}},
		{"signal 15", Exit{Code: 143, Signal: "SIGTERM"}},
		{"signal 35", Exit{Code: 163, Signal: "SIGRTMIN+3"}},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
			cmd.Env = append(os.Environ(), "ATTACHWIRE_HELPER="+tt.mode)
			sig, signaled := strings.CutPrefix(tt.mode, "signal ")
			if signaled {
				// A Go child ignores real-time signals it does not
				// watch, so the victim is a plain sleep(1).
				sleep, err := exec.LookPath("sleep")
				if err != nil {
					t.Skip("no sleep(1) to kill")
				}
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
			got, ok := ExitFromProcessState(cmd.ProcessState)
			if !ok || got != tt.want {
				t.Fatalf("ExitFromProcessState = %+v, %v; want %+v", got, ok, tt.want)
			}
			ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if got, ok := ExitFromWaitStatus(ws); !ok || got != tt.want {
				t.Fatalf("ExitFromWaitStatus = %+v, %v; want %+v", got, ok, tt.want)
			}
		})
	}
	if _, ok := ExitFromProcessState(nil); ok {
		t.Fatal("nil ProcessState reported a termination")
	}
	// Linux encoding of a stopped process: 0x7f | SIGSTOP<<8.
	if _, ok := ExitFromWaitStatus(syscall.WaitStatus(0x7f | 19<<8)); ok {
		t.Fatal("stopped status reported as a termination")
	}
}
