package sanitize_test

import (
	"testing"

	"github.com/ptyhost/ptyhost/attachwire/sanitize"
	"github.com/ptyhost/ptyhost/internal/streamgen"
)

const benchBytes = 1 << 20

func benchAppend(b *testing.B, in []byte) {
	s := sanitize.New(sanitize.Options{})
	dst := s.Append(nil, in) // size dst once
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	cpu0 := processCPU()
	for b.Loop() {
		dst = s.Append(dst[:0], in)
	}
	// Wall-clock MB/s suffers when other processes share the CPUs; this
	// metric counts only the CPU time the process got.
	if cpu := processCPU() - cpu0; cpu > 0 {
		b.ReportMetric(float64(len(in))*float64(b.N)/cpu.Seconds()/1e6, "cpuMB/s")
	}
}

// BenchmarkAppendMixed: colored logs, progress bars, cursor-addressed
// redraws, UTF-8 with wide glyphs and emoji.
func BenchmarkAppendMixed(b *testing.B) { benchAppend(b, streamgen.Mixed(1, benchBytes)) }

// BenchmarkAppendASCII: plain printable ASCII lines.
func BenchmarkAppendASCII(b *testing.B) { benchAppend(b, streamgen.ASCII(1, benchBytes)) }

// TestAppendSteadyStateAllocs pins down the zero-allocation claim: once dst
// and the string buffer have grown, Append allocates nothing, whatever the
// stream holds (titles and links included, callbacks not set).
func TestAppendSteadyStateAllocs(t *testing.T) {
	in := append(streamgen.Mixed(3, 64<<10), "\x1b]2;title\x07\x1b]8;id=x;https://example.com\x1b\\link\x1b]8;;\x1b\\\x1bPq#0~\x1b\\\x1b[?1049h\x9b6n"...)
	s := sanitize.New(sanitize.Options{})
	dst := s.Append(nil, in)
	if n := testing.AllocsPerRun(20, func() { dst = s.Append(dst[:0], in) }); n != 0 {
		t.Errorf("Append allocates %v times per call in steady state", n)
	}
}
