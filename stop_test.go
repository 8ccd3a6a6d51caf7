package ptyhost

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
)

// TestStopEscalation: a child that ignores SIGTERM and SIGHUP dies by
// SIGKILL once ctx expires, and Stop returns soon after ctx: well before
// StopGrace, which a Stop that ignored ctx would wait out. (The bound
// leaves 1.8 s of slack for a loaded machine.)
func TestStopEscalation(t *testing.T) {
	s := start(t, helperSpec("trap"), newFakeTerm)
	sub, err := s.Subscribe(0)
	if err != nil {
		t.Fatal(err)
	}
	waitOutput(t, sub, "ready")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	errc := make(chan error, 1)
	began := time.Now()
	go func() { errc <- s.Stop(ctx) }()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("Stop: %v", err)
		}
	case <-time.After(watchdog):
		t.Fatal("Stop did not return")
	}
	if took := time.Since(began); took >= StopGrace {
		t.Fatalf("Stop took %v with a 200ms context, not less than StopGrace %v", took, StopGrace)
	}
	if ex, _ := s.Exit(); ex != (attachwire.Exit{Code: 137, Signal: "SIGKILL"}) {
		t.Fatalf("exit = %+v, want SIGKILL", ex)
	}
	if err := s.Stop(context.Background()); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
}

// TestStopPolite: Stop's first signals end ordinary programs, interactive
// shells (which ignore SIGTERM) and programs that ignore SIGHUP, without
// resorting to SIGKILL.
func TestStopPolite(t *testing.T) {
	tests := []struct {
		name  string
		cmd   []string
		ready string // output that shows the child has set itself up
		want  attachwire.Exit
	}{
		{"sleep", []string{"sleep", "60"}, "", attachwire.Exit{Code: 129, Signal: "SIGHUP"}},
		{"interactive shell", []string{"sh", "-i"}, "$ ", attachwire.Exit{Code: 129, Signal: "SIGHUP"}},
		{"ignores SIGHUP", []string{"sh", "-c", "trap '' HUP; echo ready; sleep 60; :"}, "ready", attachwire.Exit{Code: 143, Signal: "SIGTERM"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := start(t, Spec{Command: tt.cmd, Env: []string{"PS1=$ "}}, newFakeTerm)
			if tt.ready != "" {
				sub, err := s.Subscribe(0)
				if err != nil {
					t.Fatal(err)
				}
				waitOutput(t, sub, tt.ready)
				sub.Close()
			}
			var wg sync.WaitGroup
			for range 3 { // concurrent Stops are fine
				wg.Add(1)
				go func() {
					defer wg.Done()
					stopT(t, s)
				}()
			}
			wg.Wait()
			if ex, _ := s.Exit(); ex != tt.want {
				t.Fatalf("exit = %+v, want %+v", ex, tt.want)
			}
		})
	}
}

// TestStopKillsLeftovers: a background process that ignores SIGHUP and
// outlives the leader is killed by Stop.
func TestStopKillsLeftovers(t *testing.T) {
	s := start(t, Spec{Command: []string{"sh", "-c", "trap '' HUP; sleep 60 & echo $!"}}, newFakeTerm)
	sub, err := s.Subscribe(0)
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	out := collect(t, sub)
	if _, err := fmtSscan(string(output(out)), &pid); err != nil {
		t.Fatalf("no pid in %q", output(out))
	}
	if !alive(pid) {
		t.Fatalf("background sleep %d is not running after exit", pid)
	}
	stopT(t, s)
	deadline := time.Now().Add(watchdog)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("background sleep %d survived Stop", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestMasterInterruptible: the master is under Go's poller, so a deadline
// and Close both interrupt a blocked Read.
func TestMasterInterruptible(t *testing.T) {
	for _, how := range []string{"deadline", "close"} {
		t.Run(how, func(t *testing.T) {
			master, tty, err := openPTY(80, 24)
			if err != nil {
				t.Fatal(err)
			}
			defer tty.Close()
			errc := make(chan error, 1)
			go func() {
				_, err := master.Read(make([]byte, 10))
				errc <- err
			}()
			time.Sleep(20 * time.Millisecond) // let Read block (not required for correctness)
			if how == "deadline" {
				master.SetReadDeadline(time.Now())
			} else {
				master.Close()
			}
			select {
			case err := <-errc:
				want := os.ErrDeadlineExceeded
				if how == "close" {
					want = os.ErrClosed
				}
				if !errors.Is(err, want) {
					t.Fatalf("Read: %v, want %v", err, want)
				}
			case <-time.After(watchdog):
				t.Fatal("Read was not interrupted")
			}
			master.Close()
		})
	}
}

// alive reports whether pid runs and is not a zombie waiting to be reaped
// (an orphan is reaped by init, which may take its time in a container).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}
