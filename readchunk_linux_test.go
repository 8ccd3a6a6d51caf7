//go:build linux

package ptyhost

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openReader opens a PTY pair and a chunkReader on its master, all closed
// at cleanup; the reader parks under the poller after idle.
func openReader(t *testing.T, idle time.Duration) (r *chunkReader, master, tty *os.File) {
	t.Helper()
	master, tty, err := openPTY(80, 24)
	if err != nil {
		t.Fatal(err)
	}
	r, err = newChunkReader(master)
	if err != nil {
		master.Close()
		tty.Close()
		t.Fatal(err)
	}
	r.idle = idle
	t.Cleanup(func() {
		r.close()
		master.Close()
		tty.Close()
	})
	return r, master, tty
}

// readAsync starts a read of r and returns where its outcome arrives.
func readAsync(r *chunkReader) <-chan readResult {
	done := make(chan readResult, 1)
	go func() {
		buf := make([]byte, 64)
		n, err := r.read(buf)
		done <- readResult{buf[:n], err}
	}()
	return done
}

type readResult struct {
	p   []byte
	err error
}

// readerWait is one of the two ways a read waits: in ppoll, and parked
// under the poller once the master has been quiet for the reader's idle
// time (at once with idle 0).
type readerWait struct {
	name string
	idle time.Duration
}

func readerWaits() []readerWait { return []readerWait{{"ppoll", readerIdle}, {"parked", 0}} }

// TestChunkReaderWaitEnds: a read waiting for output that never comes,
// in ppoll or parked under the poller, ends when the master is closed
// (closeMaster: interrupt, then Close) and when a deadline set during the
// wait passes; later reads fail the same way.
func TestChunkReaderWaitEnds(t *testing.T) {
	for _, w := range readerWaits() {
		for _, tc := range []struct {
			name string
			end  func(r *chunkReader, master *os.File)
			want error
		}{
			{"close", func(r *chunkReader, master *os.File) { r.interrupt(); master.Close() }, os.ErrClosed},
			{"deadline", func(r *chunkReader, _ *os.File) { r.setDeadline(time.Now().Add(20 * time.Millisecond)) }, os.ErrDeadlineExceeded},
			{"deadline-passed", func(r *chunkReader, _ *os.File) { r.setDeadline(time.Now().Add(-time.Second)) }, os.ErrDeadlineExceeded},
		} {
			t.Run(w.name+"/"+tc.name, func(t *testing.T) {
				r, master, _ := openReader(t, w.idle)
				done := readAsync(r)
				time.Sleep(20 * time.Millisecond) // let the read start waiting (not required for correctness)
				tc.end(r, master)
				select {
				case res := <-done:
					if !errors.Is(res.err, tc.want) {
						t.Fatalf("read: %v, want %v", res.err, tc.want)
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
}

// TestChunkReaderWakesForOutput: output written while a read waits, in
// ppoll or parked, is what the read returns.
func TestChunkReaderWakesForOutput(t *testing.T) {
	for _, w := range readerWaits() {
		t.Run(w.name, func(t *testing.T) {
			r, _, tty := openReader(t, w.idle)
			done := readAsync(r)
			time.Sleep(20 * time.Millisecond) // let the read start waiting (not required for correctness)
			if _, err := tty.Write([]byte("hello")); err != nil {
				t.Fatal(err)
			}
			select {
			case res := <-done:
				if res.err != nil || string(res.p) != "hello" {
					t.Fatalf("read %q, %v; want \"hello\"", res.p, res.err)
				}
			case <-time.After(watchdog):
				t.Fatal("the read did not wake for the output")
			}
		})
	}
}

// TestChunkReaderDeadlineBeatsOutput: once the deadline has passed a read
// fails even though output is queued, as a read under Go's poller does, so
// a process that never stops writing cannot hold the drain open; clearing
// the deadline lets the queued output through.
func TestChunkReaderDeadlineBeatsOutput(t *testing.T) {
	r, _, tty := openReader(t, readerIdle)
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
	r, _, tty := openReader(t, readerIdle)
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

// TestIdleSessionsReleaseThreads: the read loops of sessions whose output
// has gone quiet leave ppoll for the poller, so idle sessions do not each
// hold a thread in a system call.
func TestIdleSessionsReleaseThreads(t *testing.T) {
	const n = 3
	for range n {
		s := start(t, Spec{Command: []string{"sh", "-c", "echo ready; read x"}}, newFakeTerm)
		waitOutput(t, mustSubscribe(t, s, 0), "ready")
	}
	// Both are eventual states: at least one wait in ppoll right after
	// the output (others may be parked already on a slow machine), then
	// none once the output has been quiet for readerIdle.
	waitThreadsInPpoll(t, func(k int) bool { return k >= 1 }, "some")
	waitThreadsInPpoll(t, func(k int) bool { return k == 0 }, "none")
}

// waitThreadsInPpoll waits until ok holds for the number of this
// process's threads blocked in ppoll.
func waitThreadsInPpoll(t *testing.T, ok func(int) bool, want string) {
	t.Helper()
	deadline := time.Now().Add(watchdog)
	for {
		k := threadsInPpoll(t)
		if ok(k) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d threads in ppoll, want %s", k, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// threadsInPpoll counts this process's threads blocked in ppoll, by the
// system call number /proc shows for each.
func threadsInPpoll(t *testing.T) int {
	t.Helper()
	paths, err := filepath.Glob("/proc/self/task/*/syscall")
	if err != nil {
		t.Fatal(err)
	}
	k := 0
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // the thread ended meanwhile
		}
		if f := strings.Fields(string(b)); len(f) > 0 && f[0] == strconv.Itoa(unix.SYS_PPOLL) {
			k++
		}
	}
	return k
}
