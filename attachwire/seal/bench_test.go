package seal

import (
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
)

// BenchmarkSealOpen measures sealing and opening Output frames of the
// sizes a busy host reads (the firehose: 4 KiB and 32 KiB chunks), in
// nanoseconds per plaintext byte beside Go's own MB/s.
func BenchmarkSealOpen(b *testing.B) {
	for _, size := range []int{256, 4096, 32768} {
		r := testRoom(b, "bench")
		f := attachwire.Frame{Type: attachwire.TypeOutput, Seq: 1, Payload: make([]byte, size)}
		b.Run("seal/"+itoa(size), func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				if _, err := r.Seal(f, 1); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(size), "ns/byte")
		})
		s, _ := r.Seal(f, 1)
		b.Run("open/"+itoa(size), func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				if _, err := r.Open(s, 1); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(size), "ns/byte")
		})
	}
}

func itoa(n int) string {
	switch n {
	case 256:
		return "256B"
	case 4096:
		return "4KiB"
	}
	return "32KiB"
}
