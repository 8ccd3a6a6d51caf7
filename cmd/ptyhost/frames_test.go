//go:build linux

package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestFramesTargetSurvivesFailedExec: a failed exec (the command does not
// exist) leaves an existing --frames target as it was: a regular file
// keeps its contents, a device node stays.
func TestFramesTargetSurvivesFailedExec(t *testing.T) {
	dir := t.TempDir()
	fileSurvivesFailedExec(t, "--frames", filepath.Join(dir, "precious"))
	full := fullCopy(t, dir)
	r := cli(t, "", "", "exec", "--frames", full, "--", "/nonexistent-ptyhost-cmd")
	if r.code != exitNotFound {
		t.Fatalf("device: exit %d, stderr %q; want %d", r.code, r.stderr, exitNotFound)
	}
	if fi, err := os.Stat(full); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("after a failed exec the device node is gone or changed: %v, %v", fi, err)
	}
	if left := listDir(t, dir); left != "full precious" {
		t.Fatalf("directory holds %q, want only the two targets (no temporary left)", left)
	}
}

// TestFramesTargets: a new file is created, an existing one replaced (its
// permissions kept), a FIFO written in place, a directory refused.
func TestFramesTargets(t *testing.T) {
	dir := t.TempDir()
	fresh := filepath.Join(dir, "fresh.frames")
	if r := cli(t, "draw", "", "exec", "--frames", fresh, "--", self(t)); r.code != 0 {
		t.Fatalf("new file: exit %d, stderr %q", r.code, r.stderr)
	}
	checkFramesFile(t, fresh)

	old := filepath.Join(dir, "old.frames")
	os.WriteFile(old, []byte("old"), 0o600)
	if r := cli(t, "draw", "", "exec", "--frames", old, "--", self(t)); r.code != 0 {
		t.Fatalf("existing file: exit %d, stderr %q", r.code, r.stderr)
	}
	checkFramesFile(t, old)
	if fi, _ := os.Stat(old); fi.Mode().Perm() != 0o600 {
		t.Errorf("replaced file has mode %v, want the old 0600", fi.Mode().Perm())
	}

	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- nil
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- b
	}()
	if r := cli(t, "draw", "", "exec", "--frames", fifo, "--", self(t)); r.code != 0 {
		t.Fatalf("FIFO: exit %d, stderr %q", r.code, r.stderr)
	}
	if b := <-got; !bytes.HasPrefix(b, []byte("PTYHFRM")) {
		t.Fatalf("FIFO reader got %q, want a frames file", b[:min(len(b), 16)])
	}
	if fi, err := os.Stat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO is gone or changed: %v, %v", fi, err)
	}

	r := cli(t, "draw", "", "exec", "--frames", dir, "--", self(t))
	if r.code != exitUsage || !strings.Contains(r.stderr, "is a directory") {
		t.Fatalf("directory: exit %d, stderr %q; want 2 and a clear refusal", r.code, r.stderr)
	}
	if left := listDir(t, dir); left != "fifo fresh.frames old.frames" {
		t.Fatalf("directory holds %q, want no temporary left", left)
	}
}

func checkFramesFile(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(b, []byte("PTYHFRM")) {
		t.Fatalf("%s: %q, %v; want a frames file", path, b[:min(len(b), 16)], err)
	}
}

func listDir(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return strings.Join(names, " ")
}

// TestRecordTargetSurvivesFailedWrite: --record naming a copy of
// /dev/full (every write fails) ends the recording with an error, but the
// device node is still there afterwards; a pre-existing file survives an
// exec whose program cannot start.
func TestRecordTargetSurvivesFailedWrite(t *testing.T) {
	dir := t.TempDir()
	fileSurvivesFailedExec(t, "--record", filepath.Join(dir, "precious.cast"))
	full := fullCopy(t, dir)
	cli(t, "", "", "exec", "--record", full, "--", "true")
	if fi, err := os.Stat(full); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("after exec --record to a failing device the node is gone or changed: %v, %v", fi, err)
	}
}

// fileSurvivesFailedExec checks that exec with flag naming an existing
// file, whose program cannot start, leaves the file as it was.
func fileSurvivesFailedExec(t *testing.T, flag, file string) {
	t.Helper()
	if err := os.WriteFile(file, []byte("precious"), 0o640); err != nil {
		t.Fatal(err)
	}
	r := cli(t, "", "", "exec", flag, file, "--", "/nonexistent-ptyhost-cmd")
	if r.code != exitNotFound {
		t.Fatalf("%s: exit %d, stderr %q; want %d", flag, r.code, r.stderr, exitNotFound)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "precious" {
		t.Fatalf("%s: after a failed exec the file holds %q (%v), want its old contents", flag, b, err)
	}
}

// fullCopy makes a copy of /dev/full (every write fails) in dir, or skips
// the rest of the test when this process may not create device nodes.
func fullCopy(t *testing.T, dir string) string {
	t.Helper()
	full := filepath.Join(dir, "full")
	if err := unix.Mknod(full, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 7))); err != nil {
		t.Skipf("SKIPPING the device half: cannot create a copy of /dev/full (mknod needs root): %v", err)
	}
	return full
}
