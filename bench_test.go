package ptyhost

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/streamgen"
	"github.com/ptyhost/ptyhost/internal/term"
)

// benchBackends are the terminals the process benchmarks run with: every
// real backend, and the fake one to show the host's own cost.
func benchBackends(b *testing.B) []backendCase {
	return backends(b)
}

// BenchmarkFirehose: a child cats a fixed 16 MiB realistic file (120×40,
// 200 lines of scrollback) and one subscriber consumes every frame.
func BenchmarkFirehose(b *testing.B) {
	const size = 16 << 20
	path := filepath.Join(b.TempDir(), "firehose.txt")
	if err := os.WriteFile(path, streamgen.Mixed(1, size), 0o644); err != nil {
		b.Fatal(err)
	}
	// The physical limit: creack/pty's plain (blocking) reader of the same
	// cat, with no emulator, frames or subscribers.
	b.Run("bare", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			bareCat(b, path)
		}
		b.ReportMetric(float64(b.N)*size/(1<<20)/b.Elapsed().Seconds(), "MiB/s")
	})
	// The ratio that matters, measured pairwise (bare and the engine
	// pipeline alternate, in swapping order) so that load on a shared
	// machine hits both alike.
	b.Run("engine-vs-bare", func(b *testing.B) {
		var bare, host time.Duration
		for i := 0; b.Loop(); i++ {
			for j := range 2 {
				start := time.Now()
				if (i+j)%2 == 0 {
					bareCat(b, path)
					bare += time.Since(start)
				} else {
					firehose(b, path, newEngine)
					host += time.Since(start)
				}
			}
		}
		mib := float64(b.N) * size / (1 << 20)
		b.ReportMetric(mib/bare.Seconds(), "bare-MiB/s")
		b.ReportMetric(mib/host.Seconds(), "engine-MiB/s")
		b.ReportMetric(bare.Seconds()/host.Seconds(), "engine/bare")
	})
	// CPU per byte: the whole process's user+system time (getrusage;
	// cat is a child and not counted) for the engine pipeline against the
	// bare reader, alternating as above. A busy machine stretches wall
	// time but hardly the CPU either spends, so this ratio holds where
	// engine/bare does not. Run it with -benchtime 10x for the median of
	// 10 pairs. The pipeline with a terminal that does nothing (null)
	// runs in the same rotation, to split the engine's share from the
	// plumbing's; csw/MiB counts the process's context switches
	// (voluntary and involuntary), the scheduling each byte costs;
	// null-cpu-ratio is the plumbing's CPU against the bare reader's;
	// engine/bare is the wall-clock throughput ratio of the same runs.
	b.Run("cpu-ratio", func(b *testing.B) {
		runs := []struct {
			name string
			run  func()
			cpu  []time.Duration
			tree []time.Duration // cpu plus cat's, as /usr/bin/time counts
			csw  []int64
			wall time.Duration
		}{
			{name: "bare", run: func() { bareCat(b, path) }},
			{name: "engine", run: func() { firehose(b, path, newEngine) }},
			{name: "null", run: func() { firehose(b, path, newNullTerm) }},
		}
		for i := 0; b.Loop(); i++ {
			for j := range runs {
				r := &runs[(i+j)%len(runs)]
				u0, start := processUsage(), time.Now()
				r.run()
				r.wall += time.Since(start)
				u := processUsage().sub(u0)
				r.cpu = append(r.cpu, u.cpu)
				r.tree = append(r.tree, u.cpu+u.child)
				r.csw = append(r.csw, u.csw)
			}
		}
		const mib = size >> 20
		for _, r := range runs {
			b.ReportMetric(float64(median(r.cpu).Microseconds())/1000, r.name+"-cpu-ms")
			b.ReportMetric(float64(medianInt(r.csw))/mib, r.name+"-csw/MiB")
		}
		b.ReportMetric(median(runs[1].cpu).Seconds()/median(runs[0].cpu).Seconds(), "cpu-ratio")
		b.ReportMetric(median(runs[2].cpu).Seconds()/median(runs[0].cpu).Seconds(), "null-cpu-ratio")
		b.ReportMetric(median(runs[0].tree).Seconds()*1000, "bare-tree-cpu-ms")
		b.ReportMetric(median(runs[1].tree).Seconds()*1000, "engine-tree-cpu-ms")
		b.ReportMetric(median(runs[1].tree).Seconds()/median(runs[0].tree).Seconds(), "tree-cpu-ratio")
		b.ReportMetric(runs[0].wall.Seconds()/runs[1].wall.Seconds(), "engine/bare")
	})
	// Each backend alone, and null (the host's plumbing alone), for
	// profiles.
	for _, bc := range append(benchBackends(b), backendCase{"null", newNullTerm}) {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				firehose(b, path, bc.newTerm)
			}
			b.ReportMetric(float64(b.N)*size/(1<<20)/b.Elapsed().Seconds(), "MiB/s")
		})
	}
}

// median returns the median of d (the upper one of an even count).
func median(d []time.Duration) time.Duration {
	d = slices.Clone(d)
	slices.Sort(d)
	return d[len(d)/2]
}

// bareCat reads `cat path` through a PTY to end of file.
func bareCat(b *testing.B, path string) {
	cmd := exec.Command("cat", path)
	master, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 120, Rows: 40})
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, MaxOutputFrame)
	for {
		if _, err := master.Read(buf); err != nil {
			break // EIO once cat has exited and its output is read
		}
	}
	cmd.Wait()
	master.Close()
}

// firehose runs `cat path` in a session and reads every frame with one
// subscriber.
func firehose(b *testing.B, path string, newTerm func(term.Options) (term.Terminal, error)) {
	s, err := spawn(Spec{Command: []string{"cat", path}, Cols: 120, Rows: 40}, newTerm)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Stop(context.Background())
	sub, _ := s.Subscribe(0)
	for {
		_, err := sub.Next(context.Background())
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRoundTrip: one byte written to a raw echo child comes back as
// an Output frame; reports the latency percentiles.
func BenchmarkRoundTrip(b *testing.B) {
	for _, bc := range benchBackends(b) {
		b.Run(bc.name, func(b *testing.B) {
			s, err := spawn(helperSpec("echo"), bc.newTerm)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Stop(context.Background())
			sub, _ := s.Subscribe(0)
			waitOutput(b, sub, "ready")
			ctx := context.Background()
			lat := make([]time.Duration, 0, 1024)
			for b.Loop() {
				start := time.Now()
				if _, err := s.WriteInput([]byte("x")); err != nil {
					b.Fatal(err)
				}
				for got := false; !got; {
					f, err := sub.Next(ctx)
					if err != nil {
						b.Fatal(err)
					}
					got = f.Type == attachwire.TypeOutput && bytes.Contains(f.Payload, []byte("x"))
				}
				lat = append(lat, time.Since(start))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}

// BenchmarkSnapshot: Snapshot of a 120×40 screen with 200 lines of
// scrollback, and its encoding as a Snapshot payload: after exit (the
// final screen), and live, where the screen comes from the emulator under
// the session lock. live-payload is what a relay pays per join or skip;
// live-emit is EmitSnapshot's in-stream frame. cpu-µs/op is the process's
// CPU time per call, which a busy machine dilutes far less than the wall
// time.
func BenchmarkSnapshot(b *testing.B) {
	newTerm := realBackend(b)
	spec := helperSpec("gen", "PTYHOST_TEST_N=262144", "PTYHOST_TEST_SEED=5")
	spec.Cols, spec.Rows = 120, 40
	s, err := spawn(spec, newTerm)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Stop(context.Background())
	waitDone(b, s)
	scr, _, _ := s.Snapshot()
	if len(scr.Scrollback) != DefaultScrollback {
		b.Fatalf("scrollback holds %d lines, want %d", len(scr.Scrollback), DefaultScrollback)
	}
	b.Run("after-exit", func(b *testing.B) {
		b.ReportAllocs()
		defer reportCPU(b, processCPU())
		for b.Loop() {
			s.Snapshot()
		}
	})
	b.Run("after-exit+encode", func(b *testing.B) {
		b.ReportAllocs()
		defer reportCPU(b, processCPU())
		for b.Loop() {
			scr, at, _ := s.Snapshot()
			if _, err := attachwire.AppendScreenSnapshot(nil, at, &scr); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The live path: extraction from the emulator, under the lock.
	live, err := spawn(Spec{Command: []string{"sh", "-c", "cat \"$0\"; read x", fileOf(b, streamgen.Mixed(5, 256<<10))}, Cols: 120, Rows: 40}, newTerm)
	if err != nil {
		b.Fatal(err)
	}
	defer live.Stop(context.Background())
	sub, _ := live.Subscribe(0)
	waitFed(b, live, sub)
	b.Run("live-120x40+200", func(b *testing.B) {
		b.ReportAllocs()
		defer reportCPU(b, processCPU())
		for b.Loop() {
			live.Snapshot()
		}
	})
	b.Run("live-payload", func(b *testing.B) {
		var p []byte
		b.ReportAllocs()
		defer reportCPU(b, processCPU())
		for b.Loop() {
			p = benchSnapshotPayload(b, live, p[:0])
		}
		b.ReportMetric(float64(len(p)), "payload-bytes")
	})
	b.Run("live-emit", func(b *testing.B) {
		b.ReportAllocs()
		defer reportCPU(b, processCPU())
		for b.Loop() {
			if _, err := live.EmitSnapshot(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// benchSnapshotPayload appends the payload of a Snapshot frame of s's
// current screen to dst.
func benchSnapshotPayload(b *testing.B, s *Session, dst []byte) []byte {
	dst, _, err := s.AppendSnapshot(dst)
	if err != nil {
		b.Fatal(err)
	}
	return dst
}

// processCPU returns the user+system CPU time of this process so far.
func processCPU() time.Duration { return processUsage().cpu }

// usage is what getrusage tells of this process: CPU time (user+system)
// and context switches (voluntary and involuntary).
type usage struct {
	cpu   time.Duration
	csw   int64
	child time.Duration // reaped children's user+system time (cat's)
}

func (u usage) sub(v usage) usage { return usage{u.cpu - v.cpu, u.csw - v.csw, u.child - v.child} }

// processUsage returns this process's usage so far.
func processUsage() usage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return usage{}
	}
	var cu syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &cu); err != nil {
		return usage{}
	}
	return usage{
		cpu:   time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
		csw:   int64(ru.Nvcsw + ru.Nivcsw),
		child: time.Duration(cu.Utime.Nano() + cu.Stime.Nano()),
	}
}

// medianInt returns the median of v (the upper one of an even count).
func medianInt(v []int64) int64 {
	v = slices.Clone(v)
	slices.Sort(v)
	return v[len(v)/2]
}

// nullTerm is a terminal that does nothing: the pipeline with it is the
// host's cost without an emulator's.
type nullTerm struct{ cols, rows int }

func newNullTerm(o term.Options) (term.Terminal, error) {
	return &nullTerm{cols: o.Cols, rows: o.Rows}, nil
}

func (t *nullTerm) Write([]byte)                {}
func (t *nullTerm) Resize(cols, rows, _, _ int) { t.cols, t.rows = cols, rows }
func (t *nullTerm) Size() (int, int)            { return t.cols, t.rows }

// Screen is a blank screen of the current size, so that a Snapshot of the
// pipeline is still a valid one.
func (t *nullTerm) Screen(dst *attachwire.Screen) {
	blank := slices.Repeat([]attachwire.Cell{attachwire.BlankCell()}, t.cols*t.rows)
	*dst = attachwire.Screen{Epoch: dst.Epoch, Echo: dst.Echo, Cols: t.cols, Rows: t.rows, Primary: blank}
}

func (t *nullTerm) Close() error { return nil }

// reportCPU reports the process's CPU time per iteration since cpu0.
func reportCPU(b *testing.B, cpu0 time.Duration) {
	if d := processCPU() - cpu0; d > 0 && b.N > 0 {
		b.ReportMetric(float64(d.Microseconds())/float64(b.N), "cpu-µs/op")
	}
}

// fileOf writes p to a temporary file and returns its path.
func fileOf(tb testing.TB, p []byte) string {
	path := filepath.Join(tb.TempDir(), "data")
	if err := os.WriteFile(path, p, 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// waitFed waits until the output has been quiet for a while.
func waitFed(tb testing.TB, s *Session, sub interface {
	Next(context.Context) (attachwire.Frame, error)
}) {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		_, err := sub.Next(ctx)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) {
			return
		}
		if err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkPublish: the cost of publishing one 1 KiB frame with 1, 10 and
// 100 subscriptions following live (each woken by the broadcast), and with
// 100 stalled ones (which cost nothing).
func BenchmarkPublish(b *testing.B) {
	payload := make([]byte, 1024)
	for _, tc := range []struct {
		subs    int
		stalled bool
	}{{0, false}, {1, false}, {10, false}, {100, false}, {100, true}} {
		name := fmt.Sprintf("subs=%d", tc.subs)
		if tc.stalled {
			name += "-stalled"
		}
		b.Run(name, func(b *testing.B) {
			s := newSession(Spec{RingBytes: 8 << 20})
			s.term = nil
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			for range tc.subs {
				sub, _ := s.Subscribe(0)
				if tc.stalled {
					continue
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						if _, err := sub.Next(ctx); err != nil {
							return
						}
					}
				}()
			}
			b.SetBytes(int64(len(payload)))
			for b.Loop() {
				s.publishTest(attachwire.TypeOutput, payload)
			}
			b.StopTimer()
			cancel()
			wg.Wait()
		})
	}
}
