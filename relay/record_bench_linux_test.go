package relay_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
)

// BenchmarkRecordPublish is the publish path of a room with 10 viewers
// when the room is not recorded, recorded to a file, and recorded into a
// FIFO nobody reads (a stalled disk: the recording overflows and stops).
// publish-ns/frame and MiB/s/viewer should not depend on the recording's
// disk.
func BenchmarkRecordPublish(b *testing.B) {
	for _, mode := range []string{"off", "file", "stalled"} {
		b.Run("record="+mode, func(b *testing.B) {
			cfg := benchConfig()
			cfg.RingBytes, cfg.ViewerQueueBytes = 256<<20, 128<<20
			if mode != "off" {
				cfg.Record = relay.RecordConfig{Dir: b.TempDir(), All: true, Key: testRecordKey(), FinishWait: 100 * time.Millisecond}
			}
			s := relaytest.NewServer(b, cfg)
			if mode == "stalled" {
				fifo := filepath.Join(b.TempDir(), "stalled")
				if err := syscall.Mkfifo(fifo, 0o600); err != nil {
					b.Skipf("no FIFO: %v", err)
				}
				rd, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
				if err != nil {
					b.Fatal(err)
				}
				defer rd.Close()
				relay.SetRecordOpener(s.Relay, func(string) (io.WriteCloser, error) { return os.OpenFile(fifo, os.O_WRONLY, 0) })
			}
			h := newAutoHost(b, s, 1)
			h.snapshot("")
			conns := make([]*relaytest.Conn, 10)
			for i := range conns {
				conns[i] = dialViewer(b, s, s.ViewerToken(b, room, fmt.Sprint("v", i)), attachwire.RoleViewer, attachwire.Subscribe{})
				snapshotOf(b, relaytest.NextFrame(b, conns[i]))
			}
			publish := relay.IngestAsHost(s.Relay, relaytest.DefaultOrg, room)
			first, last := h.seq+1, h.seq+uint64(b.N)
			var wg sync.WaitGroup
			for _, c := range conns {
				wg.Go(func() {
					for {
						f, err := c.Next(ctxT(b))
						if err != nil || f.Seq >= last {
							return
						}
					}
				})
			}
			payload := []byte(strings.Repeat("x", 4095) + "\n")
			b.ResetTimer()
			t0 := time.Now()
			for i := range uint64(b.N) {
				if err := publish(attachwire.NewOutputFrame(first+i, first+i, payload)); err != nil {
					b.Fatal(err)
				}
			}
			wall := time.Since(t0)
			wg.Wait()
			el := time.Since(t0)
			b.StopTimer()
			mib := float64(b.N) * 4096 / (1 << 20)
			b.ReportMetric(float64(wall.Nanoseconds())/float64(b.N), "publish-ns/frame")
			b.ReportMetric(mib/el.Seconds(), "MiB/s/viewer")
		})
	}
}
