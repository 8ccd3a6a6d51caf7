package outfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// fullDevice makes a copy of /dev/full (character device 1,7) in dir, or
// skips when this process may not create device nodes.
func fullDevice(tb testing.TB, dir string) string {
	tb.Helper()
	p := filepath.Join(dir, "full")
	if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|7); err != nil {
		tb.Skipf("SKIP: cannot mknod a /dev/full copy (needs root): %v", err)
	}
	return p
}

func write(tb testing.TB, f *File, s string) {
	tb.Helper()
	if err := f.Begin(); err != nil {
		tb.Fatal(err)
	}
	if _, err := f.Write([]byte(s)); err != nil {
		tb.Fatal(err)
	}
}

func content(tb testing.TB, p string) string {
	tb.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

func TestNewFileIsOwned(t *testing.T) {
	p := filepath.Join(t.TempDir(), "out")
	f, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !f.Created() || !f.Regular() {
		t.Fatalf("created %v regular %v", f.Created(), f.Regular())
	}
	if err := f.Abort(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Abort left the file it created: %v", err)
	}
}

func TestExistingFileSurvivesAbort(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	os.WriteFile(p, []byte("precious"), 0o600)
	link := filepath.Join(dir, "link")
	os.Symlink(p, link)
	for _, name := range []string{p, link} {
		f, err := Open(name, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if f.Created() {
			t.Fatal("an existing file reported as created")
		}
		if err := f.Abort(); err != nil {
			t.Fatal(err)
		}
		if got := content(t, p); got != "precious" {
			t.Fatalf("after Open and Abort of %s: %q", name, got)
		}
	}
	f, err := Open(link, Options{})
	if err != nil {
		t.Fatal(err)
	}
	write(t, f, "new")
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if got := content(t, p); got != "new" {
		t.Fatalf("after Begin and Write: %q, want the old content replaced", got)
	}
}

func TestAbortSparesReplacement(t *testing.T) {
	p := filepath.Join(t.TempDir(), "out")
	f, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(p)
	os.WriteFile(p, []byte("someone else's"), 0o644)
	f.Abort()
	if got := content(t, p); got != "someone else's" {
		t.Fatalf("Abort touched a file it did not create: %q", got)
	}
}

func TestSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// A reader that never reads, so that opening for writing does not wait.
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	dev := fullDevice(t, dir)

	for _, p := range []string{fifo, dev, dir} {
		if _, err := Open(p, Options{}); !errors.Is(err, ErrNotRegular) {
			t.Errorf("Open(%s): %v, want ErrNotRegular", p, err)
		}
	}
	if _, err := Open(dir, Options{AllowSpecial: true}); !errors.Is(err, ErrNotRegular) {
		t.Errorf("Open(dir, AllowSpecial): %v, want ErrNotRegular", err)
	}

	f, err := Open(fifo, Options{AllowSpecial: true})
	if err != nil {
		t.Fatal(err)
	}
	write(t, f, "through the pipe")
	if err := f.Sync(); err != nil {
		t.Errorf("Sync of a FIFO: %v", err)
	}
	f.Abort()
	buf := make([]byte, 64)
	if n, _ := r.Read(buf); string(buf[:n]) != "through the pipe" {
		t.Errorf("reader got %q", buf[:n])
	}

	f, err = Open(dev, Options{AllowSpecial: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Begin(); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("x")); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("write to /dev/full copy: %v, want ENOSPC", err)
	}
	f.Abort()
	for _, p := range []string{fifo, dev} {
		if fi, err := os.Lstat(p); err != nil || fi.Mode().IsRegular() {
			t.Errorf("%s after Abort: %v", p, err)
		}
	}
}
