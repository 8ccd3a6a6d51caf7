package ptyhost

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
)

// groupSpy replaces a session's group signaller: every signal it sees is
// checked to go to a group whose leader is still this process's unreaped
// child, which is what makes the group ID provably the session's.
type groupSpy struct {
	mu    sync.Mutex
	sent  []syscall.Signal
	wrong []string
}

func spyOnGroup(s *Session) *groupSpy {
	spy := &groupSpy{}
	s.group.Lock()
	s.kill = func(pid int, sig syscall.Signal) error {
		spy.mu.Lock()
		spy.sent = append(spy.sent, sig)
		if ppid, state, ok := procParent(pid); !ok || ppid != os.Getpid() {
			spy.wrong = append(spy.wrong, fmt.Sprintf("%v to group %d whose leader is gone (ppid %d, state %q)", sig, pid, ppid, state))
		}
		spy.mu.Unlock()
		return killGroup(pid, sig)
	}
	s.group.Unlock()
	return spy
}

// procParent reads the state and parent of pid from /proc/pid/stat.
func procParent(pid int) (ppid int, state string, ok bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, "", false
	}
	i := bytes.LastIndexByte(stat, ')')
	f := bytes.Fields(stat[i+1:])
	if i < 0 || len(f) < 2 {
		return 0, "", false
	}
	ppid, err = strconv.Atoi(string(f[1]))
	return ppid, string(f[0]), err == nil
}

// takePid tries to start an unrelated process group leader with the given
// pid, the way the kernel would reuse the number once it is free
// (ns_last_pid, root only). It returns nil when the number could not be
// had: in use, or taken by another fork first.
func takePid(tb testing.TB, pid int) *exec.Cmd {
	tb.Helper()
	for range 20 {
		if err := os.WriteFile("/proc/sys/kernel/ns_last_pid", []byte(strconv.Itoa(pid-1)), 0); err != nil {
			tb.Logf("cannot steer pid allocation: %v", err)
			return nil
		}
		cmd := exec.Command("sleep", "60")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			tb.Fatal(err)
		}
		if cmd.Process.Pid == pid {
			tb.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			return cmd
		}
		cmd.Process.Kill()
		cmd.Wait()
	}
	return nil
}

// TestLateStopSparesReusedGroup: a session exits leaving a background job
// in its process group; the job dies before Stop; an unrelated process
// then tries to take the group's number. Stop must kill nothing that is
// not the session's: every group signal goes out while the leader is
// still unreaped, and the leader's zombie keeps the number from reuse.
func TestLateStopSparesReusedGroup(t *testing.T) {
	s := start(t, Spec{Command: []string{"sh", "-c", "trap '' HUP; sleep 60 & echo $!"}}, newFakeTerm)
	spy := spyOnGroup(s)
	out := output(collect(t, mustSubscribe(t, s, 0)))
	var job int
	if _, err := fmtSscan(string(out), &job); err != nil {
		t.Fatalf("no pid in %q", out)
	}
	waitDone(t, s)
	if err := syscall.Kill(job, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(watchdog); alive(job); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("background job %d survived SIGKILL", job)
		}
	}
	// The number must still be held: by our child's zombie.
	if ppid, state, ok := procParent(s.PID()); !ok || ppid != os.Getpid() || state != "Z" {
		t.Errorf("leader %d: ppid %d state %q present %v; want our unreaped zombie", s.PID(), ppid, state, ok)
	}
	stranger := takePid(t, s.PID())
	if stranger != nil {
		t.Errorf("an unrelated process got pid %d, the group's number, before Stop", s.PID())
	}
	stopT(t, s)
	if stranger != nil && syscall.Kill(stranger.Process.Pid, 0) != nil {
		t.Error("Stop killed the unrelated process that reused the group's number")
	}
	spy.mu.Lock()
	defer spy.mu.Unlock()
	for _, w := range spy.wrong {
		t.Error(w)
	}
	if len(spy.sent) != 1 || spy.sent[0] != syscall.SIGKILL {
		t.Errorf("signals to the group: %v, want the one SIGKILL for leftovers", spy.sent)
	}
	if ppid, _, ok := procParent(s.PID()); ok && ppid == os.Getpid() {
		t.Errorf("leader %d still unreaped after Stop", s.PID())
	}
}

// TestExitReapsLoneChild: a child that leaves nothing behind is reaped at
// exit (no zombie waits for a Stop that may never come), and a Stop after
// it signals nothing.
func TestExitReapsLoneChild(t *testing.T) {
	s := start(t, Spec{Command: []string{"true"}}, newFakeTerm)
	spy := spyOnGroup(s)
	waitDone(t, s)
	if ppid, state, ok := procParent(s.PID()); ok && ppid == os.Getpid() {
		t.Errorf("child %d left unreaped (state %q) with no leftovers", s.PID(), state)
	}
	stopT(t, s)
	spy.mu.Lock()
	defer spy.mu.Unlock()
	if len(spy.sent) != 0 {
		t.Errorf("Stop after exit signalled the group: %v", spy.sent)
	}
}

// TestAwaitExit maps waitid's report of real process ends and leaves each
// process a zombie for the caller to reap.
func TestAwaitExit(t *testing.T) {
	tests := []struct {
		name string
		argv []string
		sig  syscall.Signal
		want attachwire.Exit
	}{
		{"code 0", []string{"true"}, 0, attachwire.Exit{Code: 0}},
		{"code 3", []string{"sh", "-c", "exit 3"}, 0, attachwire.Exit{Code: 3}},
		{"SIGKILL", []string{"sleep", "30"}, syscall.SIGKILL, attachwire.Exit{Code: 137, Signal: "SIGKILL"}},
		{"SIGQUIT core", []string{"sleep", "30"}, syscall.SIGQUIT, attachwire.Exit{Code: 131, Signal: "SIGQUIT"}},
		{"real-time", []string{"sleep", "30"}, syscall.Signal(35), attachwire.Exit{Code: 163, Signal: "SIGRTMIN+3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(tt.argv[0], tt.argv[1:]...)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Wait()
			if tt.sig != 0 {
				cmd.Process.Signal(tt.sig)
			}
			got, pinned := awaitExit(cmd.Process.Pid)
			if !pinned || got != tt.want {
				t.Fatalf("awaitExit = %+v, %v; want %+v, true", got, pinned, tt.want)
			}
			if ppid, state, ok := procParent(cmd.Process.Pid); !ok || ppid != os.Getpid() || state != "Z" {
				t.Fatalf("after awaitExit: ppid %d state %q present %v; want our zombie", ppid, state, ok)
			}
		})
	}
}

// TestStatPgrp parses the process group out of stat lines whose command
// names hold parentheses and spaces, and refuses malformed ones.
func TestStatPgrp(t *testing.T) {
	for _, tc := range []struct {
		line string
		pgrp int
		ok   bool
	}{
		{"42 (sh) S 1 42 42 0 -1 4194560 106 0 0 0\n", 42, true},
		{"42 (a) b) (c) R 7 9001 42 0\n", 9001, true},
		{"42 (sp ace)   S   1   77 42\n", 77, true},
		{"42 ()) S 1 5", 5, true},
		{"", 0, false},
		{"42 sh S 1 42", 0, false},
		{"42 (sh)", 0, false},
		{"42 (sh) S", 0, false},
		{"42 (sh) S 1", 0, false},
		{"42 (sh) S 1 x 42", 0, false},
		{"42 (sh) S 1 -3 42", 0, false},
		{"42 (sh) S 1 0 42", 0, false},
	} {
		pgrp, ok := statPgrp([]byte(tc.line))
		if pgrp != tc.pgrp || ok != tc.ok {
			t.Errorf("statPgrp(%q) = %d, %v; want %d, %v", tc.line, pgrp, ok, tc.pgrp, tc.ok)
		}
	}
}

// TestProcPgrpAgrees: for this process and every process /proc lists, the
// in-place parse gives what the kernel's field list gives.
func TestProcPgrpAgrees(t *testing.T) {
	var buf [512]byte
	if pgrp, ok := procPgrp(os.Getpid(), buf[:]); !ok || pgrp != syscall.Getpgrp() {
		t.Fatalf("procPgrp(self) = %d, %v; want %d", pgrp, ok, syscall.Getpgrp())
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		fields := bytes.Fields(stat[bytes.LastIndexByte(stat, ')')+1:])
		want, _ := strconv.Atoi(string(fields[2]))
		got, ok := procPgrp(pid, buf[:])
		if ok && got != want && want != 0 {
			t.Errorf("pid %d: procPgrp %d, the field list %d", pid, got, want)
		}
	}
}
