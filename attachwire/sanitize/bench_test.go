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
