package outfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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

// listDir names what dir holds, to catch a temporary file left behind.
func listDir(tb testing.TB, dir string) string {
	tb.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return strings.Join(names, " ")
}

// TestReplace: with Options.Replace an existing regular file (reached
// directly or through a symbolic link, which stays a link) keeps its
// content and mode until a clean Close puts the new content in place;
// Abort and a failed write keep the original and leave no temporary.
func TestReplace(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	os.WriteFile(p, []byte("precious"), 0o600)
	link := filepath.Join(dir, "link")
	os.Symlink(p, link)
	opts := Options{Replace: true}

	f, err := Open(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	if f.Created() || !f.Replacing() || !f.Regular() {
		t.Fatalf("created %v replacing %v regular %v", f.Created(), f.Replacing(), f.Regular())
	}
	write(t, f, "half")
	if got := content(t, p); got != "precious" {
		t.Fatalf("before Close the original holds %q", got)
	}
	if err := f.Abort(); err != nil {
		t.Fatal(err)
	}
	if got, left := content(t, p), listDir(t, dir); got != "precious" || left != "link out" {
		t.Fatalf("after Abort: %q, directory %q", got, left)
	}

	f, err = Open(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	f.f.Close() // every Write fails from here
	if _, err := f.Write([]byte("lost")); err == nil {
		t.Fatal("Write to a closed file succeeded")
	}
	if err := f.Close(); err == nil {
		t.Fatal("Close after a failed Write: nil error, want the replacement refused")
	}
	if got, left := content(t, p), listDir(t, dir); got != "precious" || left != "link out" {
		t.Fatalf("after a failed Write: %q, directory %q", got, left)
	}

	f, err = Open(link, opts)
	if err != nil {
		t.Fatal(err)
	}
	write(t, f, "new")
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("replaced file: %v, %v; want mode 0600", fi, err)
	}
	if li, err := os.Lstat(link); err != nil || li.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v, %v", li, err)
	}
	if got, left := content(t, p), listDir(t, dir); got != "new" || left != "link out" {
		t.Fatalf("after Close: %q, directory %q", got, left)
	}

	// A new file is created as without Replace.
	fresh := filepath.Join(dir, "fresh")
	if f, err = Open(fresh, opts); err != nil {
		t.Fatal(err)
	}
	if !f.Created() || f.Replacing() {
		t.Fatalf("new file: created %v replacing %v", f.Created(), f.Replacing())
	}
	f.Abort()
	if _, err := os.Stat(fresh); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Abort left the file it created: %v", err)
	}
}

// TestBlockDeviceRefused: AllowSpecial admits FIFOs and character devices,
// never a block device.
func TestBlockDeviceRefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "loop")
	if err := syscall.Mknod(p, syscall.S_IFBLK|0o600, 7<<8|200); err != nil {
		t.Skipf("SKIP: cannot mknod a block device (needs root): %v", err)
	}
	_, err := Open(p, Options{AllowSpecial: true})
	var ke *KindError
	if !errors.As(err, &ke) || !strings.Contains(err.Error(), "block device") {
		t.Fatalf("Open(block device, AllowSpecial): %v, want a *KindError naming it", err)
	}
}
