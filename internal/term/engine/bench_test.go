package engine

import (
	"bytes"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/streamgen"
	"github.com/ptyhost/ptyhost/internal/term"
	"github.com/ptyhost/ptyhost/internal/term/xvt"
)

const benchBytes = 1 << 20

// benchFeed feeds the same realistic stream to t over and over, in 32 KiB
// chunks as a PTY read loop would.
func benchFeed(b *testing.B, t term.Terminal, data []byte) {
	feed := func() {
		for rest := data; len(rest) > 0; {
			n := min(len(rest), 32<<10)
			t.Write(rest[:n])
			rest = rest[n:]
		}
	}
	feed() // warm up: fill scrollback and grow reusable buffers
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		feed()
	}
	// The machine is shared: also report throughput per CPU second of
	// this process, which other load does not dilute.
	if d := cpuTime() - cpu0; d > 0 {
		b.ReportMetric(float64(b.N)*float64(len(data))/(1<<20)/d.Seconds(), "MiB/cpu-s")
	}
}

// BenchmarkFeed compares this engine with the x/vt backend on the same
// mixed stream at 120×40 with 200 lines of scrollback.
func BenchmarkFeed(b *testing.B) {
	data := streamgen.Mixed(1, benchBytes)
	opts := term.Options{Cols: 120, Rows: 40, Scrollback: 200}
	b.Run("engine/mixed", func(b *testing.B) {
		benchFeed(b, New(opts), data)
	})
	b.Run("engine/ascii", func(b *testing.B) {
		benchFeed(b, New(opts), streamgen.ASCII(1, benchBytes))
	})
	b.Run("engine/unicode", func(b *testing.B) {
		benchFeed(b, New(opts), unicodeLines(data))
	})
	b.Run("xvt/mixed", func(b *testing.B) {
		t, err := xvt.New(opts)
		if err != nil {
			b.Fatal(err)
		}
		defer t.Close()
		benchFeed(b, t, data)
	})
}

// unicodeLines returns the lines of a mixed stream that hold non-ASCII
// text or are longer than the screen is wide (streamgen's unicode and
// long wrapped lines), the ones that leave the span form's plain path.
func unicodeLines(mixed []byte) []byte {
	var out []byte
	for line := range bytes.SplitAfterSeq(mixed, []byte("\r\n")) {
		if !bytes.HasSuffix(line, []byte("\r\n")) {
			continue // the stream's cut last line
		}
		if len(line) > 120 && bytes.IndexByte(line, 0x1B) < 0 || !isASCII(line) {
			out = append(out, line...)
		}
	}
	return out
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// BenchmarkScreen measures a snapshot of a full 120×40 screen with 200
// lines of scrollback.
func BenchmarkScreen(b *testing.B) {
	e := New(term.Options{Cols: 120, Rows: 40, Scrollback: 200})
	e.Write(streamgen.Mixed(1, benchBytes))
	var s attachwire.Screen
	b.ReportAllocs()
	for b.Loop() {
		e.Screen(&s)
	}
}

// BenchmarkAppendSnapshot measures the Snapshot payload of the same
// screen as BenchmarkScreen, encoded straight from the cells into a
// reused buffer.
func BenchmarkAppendSnapshot(b *testing.B) {
	e := New(term.Options{Cols: 120, Rows: 40, Scrollback: 200})
	e.Write(streamgen.Mixed(1, benchBytes))
	dst, _ := e.AppendSnapshot(nil, 1, 0, attachwire.EchoOn)
	b.ReportAllocs()
	for b.Loop() {
		dst, _ = e.AppendSnapshot(dst[:0], 1, 0, attachwire.EchoOn)
	}
	b.ReportMetric(float64(len(dst)), "payload-bytes")
}

// cpuTime returns the user+system CPU time of this process.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestLean checks the memory bars: an idle 120×40 engine with 200 lines of
// scrollback holds at most 1 MiB, and realistic 120-column scrollback
// costs at most 0.5 KiB a line.
func TestLean(t *testing.T) {
	before := heapInUse()
	e := New(term.Options{Cols: 120, Rows: 40, Scrollback: 200})
	idle := heapInUse() - before
	runtime.KeepAlive(e)
	t.Logf("idle 120x40 engine, scrollback 200: %d bytes", idle)
	if idle > 1<<20 {
		t.Errorf("idle engine holds %d bytes, want at most 1 MiB", idle)
	}

	const lines = 10000
	data := streamgen.Mixed(2, 6<<20)
	e = nil
	before = heapInUse()
	e = New(term.Options{Cols: 120, Rows: 40, Scrollback: lines})
	for rest := data; e.sb.len() < lines && len(rest) > 0; {
		n := min(len(rest), 4096)
		e.Write(rest[:n])
		rest = rest[n:]
	}
	used := heapInUse() - before
	runtime.KeepAlive(e)
	runtime.KeepAlive(data)
	if e.sb.len() < lines {
		t.Fatalf("only %d scrollback lines from the stream", e.sb.len())
	}
	perLine := float64(used) / lines
	t.Logf("%d lines of scrollback: %d bytes in all, %.0f bytes a line", lines, used, perLine)
	if perLine > 512 {
		t.Errorf("scrollback costs %.0f bytes a line, want at most 512", perLine)
	}
}
