package relay_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
)

// BenchmarkSealedIngest measures the relay's CPU per byte taking a
// firehose of 4 KiB Output frames into a room's ring, plain (the
// sanitizer runs) and sealed (seal.Check only), on the ingesting thread.
func BenchmarkSealedIngest(b *testing.B) {
	const size = 4096
	text := []byte(strings.Repeat("0123456789abcdef\x1b[1mbold\x1b[0m\r\n", size/16)[:size])
	k, err := seal.GenerateKey()
	if err != nil {
		b.Fatal(err)
	}
	sr := seal.NewRoom(k, room)
	for _, sealed := range []bool{false, true} {
		name := "plain"
		if sealed {
			name = "sealed"
		}
		b.Run(name, func(b *testing.B) {
			cfg := benchConfig()
			cfg.RingBytes = 64 << 20
			s := relaytest.NewServer(b, cfg)
			sub := attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleHost, Epoch: u64(1)}
			if sealed {
				sub.Sealed = k.ID().String()
			}
			c := relaytest.MustDial(b, s.RoomURL(room), s.HostToken(b, room, 1), sub)
			relaytest.ExpectControl[attachwire.SnapshotRequest](b, c)
			publish := relay.IngestAsHost(s.Relay, relaytest.DefaultOrg, room)
			frames := make([]attachwire.Frame, 256)
			for j := range frames {
				frames[j] = attachwire.NewOutputFrame(0, 0, text)
				if sealed {
					if frames[j], err = sr.Seal(frames[j], 1); err != nil {
						b.Fatal(err)
					}
				}
			}
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			b.ResetTimer()
			cpu0 := threadCPU(b)
			for j := range uint64(b.N) {
				f := frames[j%uint64(len(frames))]
				f.Seq, f.RelTime = j+1, j+1
				if err := publish(f); err != nil {
					b.Fatal(err)
				}
			}
			cpu := threadCPU(b) - cpu0
			b.StopTimer()
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/size, "cpu-ns/byte")
		})
	}
}
