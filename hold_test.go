package ptyhost

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/streamgen"
	"github.com/ptyhost/ptyhost/internal/testkit"
)

// helperCount writes PTYHOST_TEST_N lines "%07d\n" in raw mode (the bytes
// arrive unchanged) and exits.
func helperCount() int {
	if err := makeRaw(); err != nil {
		return 1
	}
	n, _ := strconv.Atoi(os.Getenv("PTYHOST_TEST_N"))
	if _, err := os.Stdout.Write(countData(n)); err != nil {
		return 1
	}
	return 0
}

func countData(lines int) []byte {
	var b bytes.Buffer
	for i := range lines {
		fmt.Fprintf(&b, "%07d\n", i)
	}
	return b.Bytes()
}

// readAll reads sub to the Exit frame, sleeping pause after each Output
// frame, and returns the output.
func readAll(t *testing.T, sub *Subscription, pause time.Duration) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*watchdog)
	defer cancel()
	var out []byte
	for {
		f, err := sub.Next(ctx)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if f.Type == attachwire.TypeOutput {
			out = append(out, f.Payload...)
			time.Sleep(pause)
		}
	}
}

func TestSubscribeHeldEveryByte(t *testing.T) {
	const lines = 64 << 10 // 512 KiB of output through a 64 KiB ring
	s := start(t, withRing(helperSpec("count", "PTYHOST_TEST_N="+strconv.Itoa(lines)), 64<<10), newFakeTerm)
	sub, err := s.SubscribeHeld(0, HoldOptions{Lag: 16 << 10, Timeout: watchdog})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	plain := mustSubscribe(t, s, 0)
	defer plain.Close()
	// While the held subscription reads nothing, the program cannot get
	// far: the session stops reading once the subscription lags 16 KiB.
	time.Sleep(300 * time.Millisecond)
	if _, exited := s.Exit(); exited {
		t.Fatal("the program finished while a held subscription read nothing")
	}
	if _, _, _, head := s.ring.stats(); head > 64 {
		t.Errorf("%d frames published while the held subscription lagged", head)
	}
	got, err := readAll(t, sub, 0)
	if err != nil {
		t.Fatalf("held subscription after %d bytes: %v", len(got), err)
	}
	if want := countData(lines); !bytes.Equal(got, want) {
		t.Fatalf("held subscription got %d bytes, want %d (equal prefix %d)", len(got), len(want), commonPrefix(got, want))
	}
	if sub.HoldReleased() {
		t.Error("released though it kept up")
	}
	// The ordinary subscription, which never read, fell off the ring.
	if _, err := readAll(t, plain, 0); !errors.Is(err, attachwire.ErrRingMiss) {
		t.Errorf("the plain subscription: %v, want a ring miss", err)
	}
}

func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func TestSubscribeHeldTimeout(t *testing.T) {
	sink := &messageSink{}
	spec := withRing(helperSpec("count", "PTYHOST_TEST_N=65536"), 64<<10)
	spec.Logger = slog.New(sink)
	s := start(t, spec, newFakeTerm)
	sub, err := s.SubscribeHeld(0, HoldOptions{Lag: 16 << 10, Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	// A subscriber that never reads holds the program only for the
	// timeout, then the session goes on without it.
	waitDone(t, s)
	if !sub.HoldReleased() {
		t.Error("not reported released")
	}
	if _, err := readAll(t, sub, 0); !errors.Is(err, attachwire.ErrRingMiss) {
		t.Errorf("after the release: %v, want a ring miss", err)
	}
	testkit.Eventually(t, "the release to be logged", func() bool { return sink.has("lagged past its timeout") })
}

// messageSink is a slog handler that keeps every record's message.
type messageSink struct {
	mu   sync.Mutex
	msgs []string
}

func (l *messageSink) Enabled(context.Context, slog.Level) bool { return true }
func (l *messageSink) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *messageSink) WithGroup(string) slog.Handler            { return l }
func (l *messageSink) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, r.Message)
	return nil
}

func (l *messageSink) has(msg string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.ContainsFunc(l.msgs, func(m string) bool { return strings.Contains(m, msg) })
}

func TestSubscribeHeldStopAndClose(t *testing.T) {
	t.Run("stop", func(t *testing.T) {
		s := start(t, withRing(helperSpec("count", "PTYHOST_TEST_N=1000000"), 64<<10), newFakeTerm)
		sub, err := s.SubscribeHeld(0, HoldOptions{Lag: 16 << 10, Timeout: MaxHoldTimeout})
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Close()
		time.Sleep(100 * time.Millisecond)
		start := time.Now()
		stopT(t, s)
		if d := time.Since(start); d > StopGrace+killWait {
			t.Errorf("Stop took %v with a stalled held subscription", d)
		}
		if !sub.HoldReleased() {
			t.Error("Stop did not release the held subscription")
		}
	})
	t.Run("close", func(t *testing.T) {
		s := start(t, withRing(helperSpec("count", "PTYHOST_TEST_N=65536"), 64<<10), newFakeTerm)
		sub, err := s.SubscribeHeld(0, HoldOptions{Lag: 16 << 10, Timeout: MaxHoldTimeout})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
		sub.Close()
		waitDone(t, s)
	})
}

func TestSubscribeHeldOptions(t *testing.T) {
	s := start(t, withRing(helperSpec("count", "PTYHOST_TEST_N=1"), 64<<10), newFakeTerm)
	for _, o := range []HoldOptions{{Lag: -1}, {Lag: 33 << 10}, {Timeout: -time.Second}, {Timeout: MaxHoldTimeout + 1}} {
		if sub, err := s.SubscribeHeld(0, o); err == nil {
			sub.Close()
			t.Errorf("%+v accepted", o)
		}
	}
	if _, err := s.SubscribeHeld(1<<40, HoldOptions{}); !errors.Is(err, attachwire.ErrRingMiss) {
		t.Errorf("ahead of the ring: %v", err)
	}
}

// BenchmarkFirehoseHeld: BenchmarkFirehose's 16 MiB cat with the engine,
// read by a plain subscription and by a held one, alternating, to show
// what holding costs a consumer that keeps up (it should cost nothing:
// the read loop only checks the lag).
func BenchmarkFirehoseHeld(b *testing.B) {
	const size = 16 << 20
	path := filepath.Join(b.TempDir(), "firehose.txt")
	if err := os.WriteFile(path, streamgen.Mixed(1, size), 0o644); err != nil {
		b.Fatal(err)
	}
	run := func(held bool) time.Duration {
		start := time.Now()
		s, err := spawn(Spec{Command: []string{"cat", path}, Cols: 120, Rows: 40}, newEngine)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Stop(context.Background())
		var sub *Subscription
		if held {
			sub, err = s.SubscribeHeld(0, HoldOptions{})
		} else {
			sub, err = s.Subscribe(0)
		}
		if err != nil {
			b.Fatal(err)
		}
		for {
			_, err := sub.Next(context.Background())
			if errors.Is(err, io.EOF) {
				return time.Since(start)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	var plain, held time.Duration
	for i := 0; b.Loop(); i++ {
		for j := range 2 {
			if (i+j)%2 == 0 {
				plain += run(false)
			} else {
				held += run(true)
			}
		}
	}
	mib := float64(b.N) * size / (1 << 20)
	b.ReportMetric(mib/plain.Seconds(), "plain-MiB/s")
	b.ReportMetric(mib/held.Seconds(), "held-MiB/s")
}
