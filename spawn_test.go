package ptyhost

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestSpawnRejects(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "data.txt")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		spec Spec
		want error
		fake bool // use the fake terminal: the failure is past backend selection
	}{
		{"nil command", Spec{}, ErrInvalidSpec, false},
		{"empty name", Spec{Command: []string{""}}, ErrInvalidSpec, false},
		{"not found", Spec{Command: []string{"ptyhost-no-such-command"}}, exec.ErrNotFound, false},
		{"not found by path", Spec{Command: []string{filepath.Join(dir, "missing")}}, exec.ErrNotFound, false},
		{"not found in spec PATH", Spec{Command: []string{"sh"}, Env: []string{"PATH=" + dir}}, exec.ErrNotFound, false},
		{"not executable", Spec{Command: []string{notExec}}, fs.ErrPermission, false},
		{"directory", Spec{Command: []string{dir}}, fs.ErrPermission, false},
		{"negative cols", Spec{Command: []string{"true"}, Cols: -1}, ErrBadGeometry, false},
		{"absurd cols", Spec{Command: []string{"true"}, Cols: MaxCols + 1}, ErrBadGeometry, false},
		{"absurd rows", Spec{Command: []string{"true"}, Rows: 1 << 20}, ErrBadGeometry, false},
		{"negative ring", Spec{Command: []string{"true"}, RingBytes: -1}, ErrInvalidSpec, false},
		{"absurd scrollback", Spec{Command: []string{"true"}, Scrollback: MaxScrollback + 1}, ErrInvalidSpec, false},
		{"bad env", Spec{Command: []string{"true"}, Env: []string{"NOEQUALS"}}, ErrInvalidSpec, false},
		{"unwritable record path", Spec{Command: []string{"true"}, RecordPath: filepath.Join(dir, "no-such-dir", "x.cast")}, fs.ErrNotExist, false},
		{"unknown backend", Spec{Command: []string{"true"}, Backend: 99}, ErrInvalidSpec, false},
		{"bad dir", Spec{Command: []string{"true"}, Dir: filepath.Join(dir, "nope")}, fs.ErrNotExist, true},
	}
	fdsBefore := openFDs(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spawnFn := Spawn
			if tt.fake {
				spawnFn = func(spec Spec) (*Session, error) { return spawn(spec, newFakeTerm) }
			}
			s, err := spawnFn(tt.spec)
			if err == nil {
				stopT(t, s)
				t.Fatal("Spawn succeeded")
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("Spawn: %v, want %v", err, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "ptyhost: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
		})
	}
	if fds := openFDs(t); fds != fdsBefore {
		t.Errorf("open fds %d after rejected spawns, %d before", fds, fdsBefore)
	}
}

func TestChildEnv(t *testing.T) {
	parent := []string{"HOME=/h", "TERM=screen", "FOO=parent", "PATH=/bin"}
	got := childEnv(parent, []string{"FOO=1", "BAR=x", "FOO=2", "COLORTERM="})
	want := []string{"HOME=/h", "TERM=xterm-256color", "FOO=2", "PATH=/bin", "COLORTERM=", "BAR=x"}
	if !slices.Equal(got, want) {
		t.Fatalf("childEnv = %q, want %q", got, want)
	}
}

func TestSpawnEnvAndDir(t *testing.T) {
	dir := t.TempDir()
	s := start(t, Spec{
		Command: []string{"sh", "-c", `printf '%s|%s|%s|%s' "$TERM" "$COLORTERM" "$FOO" "$(pwd)"`},
		Env:     []string{"FOO=1", "FOO=2"},
		Dir:     dir,
	}, newFakeTerm)
	sub, err := s.Subscribe(0)
	if err != nil {
		t.Fatal(err)
	}
	got := string(output(collect(t, sub)))
	real, _ := filepath.EvalSymlinks(dir)
	if want := "xterm-256color|truecolor|2|" + real; got != want {
		t.Fatalf("child printed %q, want %q", got, want)
	}
}

func TestSpawnSessionLeader(t *testing.T) {
	// /proc/PID/stat: pid (comm) state ppid pgrp session tty_nr ...
	s := start(t, Spec{Command: []string{"sh", "-c", `read -r line < /proc/$$/stat; echo "$line"`}}, newFakeTerm)
	sub, err := s.Subscribe(0)
	if err != nil {
		t.Fatal(err)
	}
	stat := string(output(collect(t, sub)))
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		t.Fatalf("no /proc stat line: %q", stat)
	}
	fields := strings.Fields(stat[i+1:])
	if len(fields) < 5 {
		t.Fatalf("short /proc stat line: %q", stat)
	}
	pid := strconv.Itoa(s.PID())
	if pgrp, sid, tty := fields[2], fields[3], fields[4]; pgrp != pid || sid != pid || tty == "0" {
		t.Fatalf("child %s has pgrp %s, session %s, tty %s: want it leading both, on a tty", pid, pgrp, sid, tty)
	}
}

// openFDs counts this process's open file descriptors.
func openFDs(tb testing.TB) int {
	tb.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		tb.Skipf("SKIP: no /proc/self/fd: %v", err)
	}
	return len(ents)
}

// TestSpawnRelativeToDir: a relative command (and a relative PATH entry)
// is found in Spec.Dir, where the child runs, not in the host's directory.
func TestSpawnRelativeToDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.sh"), []byte("#!/bin/sh\necho hi from dir\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, spec := range []Spec{
		{Command: []string{"./hello.sh"}, Dir: dir},
		{Command: []string{"hello.sh"}, Dir: dir, Env: []string{"PATH=.:/usr/bin:/bin"}},
	} {
		s := start(t, spec, newFakeTerm)
		if out := output(collect(t, mustSubscribe(t, s, 0))); !bytes.Contains(out, []byte("hi from dir")) {
			t.Fatalf("%q printed %q", spec.Command, out)
		}
	}
	if _, err := Spawn(Spec{Command: []string{"./hello.sh"}}); !errors.Is(err, exec.ErrNotFound) {
		t.Fatalf("./hello.sh outside its dir: %v, want exec.ErrNotFound", err)
	}
}
