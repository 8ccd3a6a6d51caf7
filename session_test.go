package ptyhost

import (
	"errors"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
)

func TestFlushBeforeExit(t *testing.T) {
	tests := []struct {
		name    string
		script  string
		wantOut string
		want    attachwire.Exit
	}{
		{"code", "printf hello; exit 3", "hello", attachwire.Exit{Code: 3}},
		{"zero", "printf bye", "bye", attachwire.Exit{Code: 0}},
		{"sigkill", "printf x; kill -KILL $$", "x", attachwire.Exit{Code: 137, Signal: "SIGKILL"}},
		{"sigusr2", "printf y; kill -USR2 $$", "y", attachwire.Exit{Code: 140, Signal: "SIGUSR2"}},
		{"sigterm", "kill -TERM $$", "", attachwire.Exit{Code: 143, Signal: "SIGTERM"}},
		{"background", "sleep 60 & echo hi", "hi\r\n", attachwire.Exit{}},
		{"background-nohup", "trap '' HUP; sleep 60 & echo hi", "hi\r\n", attachwire.Exit{}},
	}
	for _, bc := range backends(t) {
		for _, tt := range tests {
			t.Run(bc.name+"/"+tt.name, func(t *testing.T) {
				s := start(t, Spec{Command: []string{"sh", "-c", tt.script}}, bc.newTerm)
				sub, err := s.Subscribe(0)
				if err != nil {
					t.Fatal(err)
				}
				frames := collect(t, sub)
				checkContiguous(t, frames, 1)
				last := frames[len(frames)-1]
				if last.Type != attachwire.TypeExit {
					t.Fatalf("last frame is %v, want Exit", last.Type)
				}
				ex, err := attachwire.DecodeExit(last.Payload)
				if err != nil {
					t.Fatal(err)
				}
				if ex != tt.want {
					t.Errorf("exit = %+v, want %+v", ex, tt.want)
				}
				if got, _ := s.Exit(); got != tt.want {
					t.Errorf("Session.Exit = %+v, want %+v", got, tt.want)
				}
				if got := output(frames); string(got) != tt.wantOut {
					t.Errorf("output = %q, want %q", got, tt.wantOut)
				}
				if _, err := s.WriteInput([]byte("x")); !errors.Is(err, ErrExited) {
					t.Errorf("WriteInput after exit: %v, want ErrExited", err)
				}
				if _, err := s.Resize(100, 30, 0, 0); !errors.Is(err, ErrExited) {
					t.Errorf("Resize after exit: %v, want ErrExited", err)
				}
				if _, err := s.EmitMarker("m"); !errors.Is(err, ErrExited) {
					t.Errorf("EmitMarker after exit: %v, want ErrExited", err)
				}
			})
		}
	}
}

// TestExitSignals: a child killed by a signal exits with 128 + signum and
// the signal's name, whichever the signal.
func TestExitSignals(t *testing.T) {
	sigs := []struct {
		name string
		num  uint32
	}{
		{"HUP", 1}, {"INT", 2}, {"QUIT", 3}, {"ABRT", 6}, {"KILL", 9}, {"USR1", 10},
		{"SEGV", 11}, {"USR2", 12}, {"PIPE", 13}, {"ALRM", 14}, {"TERM", 15},
	}
	for _, sig := range sigs {
		t.Run(sig.name, func(t *testing.T) {
			// ulimit -c 0: no core file for QUIT, ABRT and SEGV.
			s := start(t, Spec{Command: []string{"sh", "-c", "ulimit -c 0; kill -s " + sig.name + " $$"}}, newFakeTerm)
			want := attachwire.Exit{Code: 128 + sig.num, Signal: "SIG" + sig.name}
			if ex := waitDone(t, s); ex != want {
				t.Fatalf("exit = %+v, want %+v", ex, want)
			}
		})
	}
}
