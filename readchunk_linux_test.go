//go:build linux

package ptyhost

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// openReader opens a PTY pair and a chunkReader on its master, all closed
// at cleanup.
func openReader(t *testing.T) (*chunkReader, *os.File) {
	t.Helper()
	master, tty, err := openPTY(80, 24)
	if err != nil {
		t.Fatal(err)
	}
	r, err := newChunkReader(master)
	if err != nil {
		master.Close()
		tty.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		r.close()
		master.Close()
		tty.Close()
	})
	return r, tty
}

// readAsync starts a read of r and returns where its outcome arrives.
func readAsync(r *chunkReader) <-chan error {
	errc := make(chan error, 1)
	go func() {
		_, err := r.read(make([]byte, 64))
		errc <- err
	}()
	return errc
}

// TestChunkReaderWaitEnds: a read waiting in ppoll for output that never
// comes ends when the reader is interrupted (what closing the master
// does) and when a deadline set during the wait passes; later reads fail
// the same way.
func TestChunkReaderWaitEnds(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(r *chunkReader)
		want error
	}{
		{"interrupt", (*chunkReader).interrupt, os.ErrClosed},
		{"deadline", func(r *chunkReader) { r.setDeadline(time.Now().Add(20 * time.Millisecond)) }, os.ErrDeadlineExceeded},
		{"deadline-passed", func(r *chunkReader) { r.setDeadline(time.Now().Add(-time.Second)) }, os.ErrDeadlineExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := openReader(t)
			errc := readAsync(r)
			time.Sleep(20 * time.Millisecond) // let the read reach ppoll (not required for correctness)
			tc.end(r)
			select {
			case err := <-errc:
				if !errors.Is(err, tc.want) {
					t.Fatalf("read: %v, want %v", err, tc.want)
				}
			case <-time.After(watchdog):
				t.Fatal("the read's wait was not ended")
			}
			if _, err := r.read(make([]byte, 64)); !errors.Is(err, tc.want) {
				t.Fatalf("next read: %v, want %v", err, tc.want)
			}
		})
	}
}

// TestChunkReaderDeadlineBeatsOutput: once the deadline has passed a read
// fails even though output is queued, as a read under Go's poller does, so
// a process that never stops writing cannot hold the drain open; clearing
// the deadline lets the queued output through.
func TestChunkReaderDeadlineBeatsOutput(t *testing.T) {
	r, tty := openReader(t)
	if _, err := tty.Write([]byte("queued")); err != nil {
		t.Fatal(err)
	}
	r.setDeadline(time.Now().Add(-time.Millisecond))
	if _, err := r.read(make([]byte, 64)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past the deadline: %v, want %v", err, os.ErrDeadlineExceeded)
	}
	r.setDeadline(time.Time{})
	buf := make([]byte, 64)
	n, err := r.read(buf)
	if err != nil || string(buf[:n]) != "queued" {
		t.Fatalf("read %q, %v; want \"queued\"", buf[:n], err)
	}
}

// TestChunkReaderEndOfOutput: output written before the slave closes is
// read, then every read reports EIO, the end of the PTY's output.
func TestChunkReaderEndOfOutput(t *testing.T) {
	r, tty := openReader(t)
	if _, err := tty.Write([]byte("last words")); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	var got []byte
	var err error
	for range 10 {
		buf := make([]byte, 64)
		var n int
		n, err = r.read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			break
		}
	}
	if string(got) != "last words" || !errors.Is(err, syscall.EIO) {
		t.Fatalf("read %q then %v; want \"last words\" then EIO", got, err)
	}
	if _, err := r.read(make([]byte, 64)); !errors.Is(err, syscall.EIO) {
		t.Fatalf("read after EIO: %v, want EIO again", err)
	}
}

// TestDrainDeadlineWithGrandchild: a background process that outlives the
// child and keeps the slave open but writes nothing ends the drain at
// DrainGrace: the session exits while the process still holds the slave.
func TestDrainDeadlineWithGrandchild(t *testing.T) {
	s := start(t, Spec{Command: []string{"sh", "-c", `trap '' HUP; sleep 60 & echo "bg $!"`}}, newFakeTerm)
	sub := mustSubscribe(t, s, 0)
	frames := collect(t, sub)
	out := string(output(frames))
	i := strings.Index(out, "bg ")
	if i < 0 {
		t.Fatalf("output %q has no background pid", out)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(out[i+3:]))
	if err != nil {
		t.Fatalf("output %q: %v", out, err)
	}
	if !alive(pid) {
		t.Fatalf("background sleep %d is gone: the drain ended at end of file, not at its deadline", pid)
	}
	if ex, ok := s.Exit(); !ok || ex.Code != 0 {
		t.Fatalf("exit %+v, %v; want code 0", ex, ok)
	}
}

// TestCloseMasterEndsRead: closing the master ends the read loop's wait
// while the child is alive and silent.
func TestCloseMasterEndsRead(t *testing.T) {
	s := start(t, Spec{Command: []string{"sh", "-c", "echo ready; read x"}}, newFakeTerm)
	waitOutput(t, mustSubscribe(t, s, 0), "ready")
	s.closeMaster()
	select {
	case <-s.readDone:
	case <-time.After(watchdog):
		t.Fatal("the read loop kept waiting after the master was closed")
	}
}

// TestSessionsLeakNoFds: sessions that end at end of file, at the drain's
// deadline and by Stop while the read loop waits leave this process with
// the fds it had before.
func TestSessionsLeakNoFds(t *testing.T) {
	run := func() {
		for _, cmd := range []string{"echo done", `trap '' HUP; sleep 60 & echo bg`, "echo ready; read x"} {
			s, err := spawn(Spec{Command: []string{"sh", "-c", cmd}}, newFakeTerm)
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(cmd, "echo ready") {
				waitOutput(t, mustSubscribe(t, s, 0), "ready")
			} else {
				waitDone(t, s)
			}
			stopT(t, s)
		}
	}
	run() // the runtime opens some fds of its own once
	before := openFds(t)
	run()
	if after := openFds(t); after != before {
		t.Fatalf("%d fds open after the sessions, %d before", after, before)
	}
}

// openFds counts this process's open fds.
func openFds(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}
