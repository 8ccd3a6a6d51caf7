package relay

import (
	"sync"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
)

// benchRingPublish appends b.N frames to a ring with n cursors parked on it
// (each re-parks after every wake, as a caught-up viewer does) and reports
// the publisher's cost per frame.
func benchRingPublish(b *testing.B, n int) {
	r := newRing(4 << 20)
	r.reset(1)
	wire := make([]byte, 4096)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for {
				r.mu.Lock()
				w := r.waitChanLocked()
				r.mu.Unlock()
				select {
				case <-w:
				case <-stop:
					return
				}
			}
		})
	}
	b.ResetTimer()
	for i := range b.N {
		r.append(uint64(i+1), attachwire.TypeOutput, 0, wire)
	}
	b.StopTimer()
	close(stop)
	wg.Wait()
}

// BenchmarkRingPublishInternal is the internal half of
// relay_test.BenchmarkRingPublish.
func BenchmarkRingPublishInternal(b *testing.B) {
	for _, n := range []int{1, 100, 10000} {
		b.Run("viewers="+itoa(n), func(b *testing.B) { benchRingPublish(b, n) })
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var s []byte
	for ; n > 0; n /= 10 {
		s = append([]byte{byte('0' + n%10)}, s...)
	}
	return string(s)
}
