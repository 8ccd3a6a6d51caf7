package attachclient

import (
	"context"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/sanitize"
	"github.com/ptyhost/ptyhost/attachwire/seal"
	"github.com/ptyhost/ptyhost/internal/streamgen"
)

// BenchmarkSealedSub measures what a sealed room adds to each Output
// frame on the host, sanitizing and sealing, alone: a sealing cursor
// over frames cut from the mixed stream in the sizes the session's
// reader makes (a firehose fills 32 KiB reads), each handed back once
// sent as the pump does. cpu-ns/byte counts the
// CPU time the process got, which the machine's load moves less than
// the wall clock.
func BenchmarkSealedSub(b *testing.B) {
	k, err := seal.GenerateKey()
	if err != nil {
		b.Fatal(err)
	}
	data := streamgen.Mixed(1, 4<<20)
	for _, size := range []int{4 << 10, 32 << 10} {
		b.Run(strconv.Itoa(size>>10)+"KiB", func(b *testing.B) {
			ss := &sealedSession{session: "bench", epoch: 1}
			ss.rekey(k)
			src := &chunkSub{data: data, size: size}
			sub := &sealedSub{InteractiveSubscription: src, s: ss, san: sanitize.New(sanitize.Options{Profile: sanitize.Driver})}
			ctx := context.Background()
			b.SetBytes(int64(size))
			b.ReportAllocs()
			cpu0 := selfCPU(b)
			for b.Loop() {
				if _, err := sub.Next(ctx); err != nil {
					b.Fatal(err)
				}
				sub.recycle(0) // sent, as the pump says after each frame on a WebSocket leg
			}
			cpu := selfCPU(b) - cpu0
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(size), "cpu-ns/byte")
		})
	}
}

// chunkSub yields data in Output frames of size bytes, over and over.
type chunkSub struct {
	data []byte
	size int
	off  int
	seq  uint64
}

func (c *chunkSub) Next(context.Context) (attachwire.Frame, error) {
	if c.off+c.size > len(c.data) {
		c.off = 0
	}
	c.seq++
	f := attachwire.NewOutputFrame(c.seq, c.seq, c.data[c.off:c.off+c.size])
	c.off += c.size
	return f, nil
}

func (c *chunkSub) NextSeq() uint64 { return c.seq + 1 }
func (c *chunkSub) Close() error    { return nil }

// selfCPU is the process's user and system CPU time so far.
func selfCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
