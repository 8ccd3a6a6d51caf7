package ptyhost

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
)

// logSink is a slog handler that keeps the messages of error records.
type logSink struct {
	mu     sync.Mutex
	errors []string
}

func (l *logSink) Enabled(context.Context, slog.Level) bool { return true }
func (l *logSink) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logSink) WithGroup(string) slog.Handler            { return l }
func (l *logSink) Handle(_ context.Context, r slog.Record) error {
	if r.Level >= slog.LevelError {
		l.mu.Lock()
		l.errors = append(l.errors, r.Message)
		l.mu.Unlock()
	}
	return nil
}

func (l *logSink) has(msg string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, m := range l.errors {
		if strings.Contains(m, msg) {
			return true
		}
	}
	return false
}

// stalledFIFO makes a FIFO whose reader never reads: once its buffer is
// full, every write to it blocks, like a disk that stopped.
func stalledFIFO(tb testing.TB) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), "stalled")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		tb.Fatal(err)
	}
	r, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { r.Close() })
	return p
}

// TestRecorderStalledWriter records to a FIFO nobody reads while the child
// writes more than the pipe and the recorder's queue hold: the session
// must carry every byte to its subscribers and answer Snapshot and
// EmitMarker meanwhile, and the recording must end with a logged error.
// (With cast writes under the session lock the feed blocked on the FIFO.)
func TestRecorderStalledWriter(t *testing.T) {
	const n = recQueueBytes + 2<<20
	sink := &logSink{}
	spec := helperSpec("gen", "PTYHOST_TEST_N="+strconv.Itoa(n), "PTYHOST_TEST_SEED=7")
	spec.RecordPath, spec.RecordSpecial, spec.Logger = stalledFIFO(t), true, slog.New(sink)
	s := start(t, spec, newFakeTerm)
	sub := mustSubscribe(t, s, 0)
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	got := 0
	for {
		f, err := sub.Next(ctx)
		if err != nil {
			t.Fatalf("after %d of %d bytes: %v", got, n, err)
		}
		if f.Type == attachwire.TypeExit {
			break
		}
		if f.Type != attachwire.TypeOutput {
			continue
		}
		got += len(f.Payload)
		if got > recQueueBytes+1<<20 && got-len(f.Payload) <= recQueueBytes+1<<20 {
			if _, _, err := s.Snapshot(); err != nil {
				t.Fatal(err)
			}
			if _, err := s.EmitMarker("still here"); err != nil && !errors.Is(err, ErrExited) {
				t.Fatal(err)
			}
		}
	}
	if got < n { // the tty's output processing only adds (\n to \r\n)
		t.Fatalf("subscribers got %d bytes, want at least %d", got, n)
	}
	waitDone(t, s)
	if err := s.RecordErr(); !errors.Is(err, errRecordBehind) {
		t.Fatalf("RecordErr = %v, want the writer-behind error", err)
	}
	if !sink.has("cast recording stopped") {
		t.Fatal("no error logged for the stopped recording")
	}
}

// TestRecorderSlowFinish: a writer still blocked when the child exits
// holds up Done only for the recorder's finish bound, then the recording
// is reported as failed.
func TestRecorderSlowFinish(t *testing.T) {
	s := start(t, Spec{
		Command:       []string{"sh", "-c", `stty -echo; head -c 300000 /dev/zero | tr '\0' x; read x`},
		RecordPath:    stalledFIFO(t),
		RecordSpecial: true,
	}, newFakeTerm)
	s.mu.Lock()
	s.rec.finishWait = 50e6 // 50ms
	s.mu.Unlock()
	waitOutput(t, mustSubscribe(t, s, 0), strings.Repeat("x", 100))
	if _, err := s.WriteInput([]byte("\n")); err != nil {
		t.Fatal(err)
	}
	waitDone(t, s)
	if err := s.RecordErr(); err == nil || !strings.Contains(err.Error(), "not written within") {
		t.Fatalf("RecordErr = %v, want the finish bound's error", err)
	}
}

// TestRecordPathSurvivesFailedSpawn: a failed Spawn leaves an existing
// RecordPath as it was and removes one it created.
func TestRecordPathSurvivesFailedSpawn(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.cast")
	if err := os.WriteFile(old, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(dir, "new.cast")
	for _, p := range []string{old, fresh} {
		_, err := spawn(Spec{Command: []string{"true"}, Dir: filepath.Join(dir, "nope"), RecordPath: p}, newFakeTerm)
		if err == nil {
			t.Fatal("Spawn in a missing Dir succeeded")
		}
	}
	if b, err := os.ReadFile(old); err != nil || string(b) != "precious" {
		t.Fatalf("existing file after a failed Spawn: %q, %v", b, err)
	}
	if _, err := os.Stat(fresh); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the file Spawn created outlived its failure: %v", err)
	}
}

// TestRecordPathDevice: a device node (a copy of /dev/full) as RecordPath
// is refused by default; allowed, its write failures stop the recording
// and the node is still there.
func TestRecordPathDevice(t *testing.T) {
	dev := filepath.Join(t.TempDir(), "full")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|7); err != nil {
		t.Skipf("SKIP: cannot mknod a /dev/full copy (needs root): %v", err)
	}
	if _, err := spawn(Spec{Command: []string{"true"}, RecordPath: dev}, newFakeTerm); !errors.Is(err, ErrInvalidSpec) {
		t.Fatalf("Spawn recording to a device: %v, want ErrInvalidSpec", err)
	}
	s := start(t, Spec{Command: []string{"echo", "hi"}, RecordPath: dev, RecordSpecial: true}, newFakeTerm)
	waitDone(t, s)
	if err := s.RecordErr(); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("RecordErr = %v, want ENOSPC", err)
	}
	if fi, err := os.Lstat(dev); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("the device node after the recording: %v %v", fi, err)
	}
}
