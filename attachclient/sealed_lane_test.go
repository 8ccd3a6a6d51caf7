package attachclient_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/viewer"
)

// TestSealedLaneBurst: a sealed host on the lane sends a burst in batches
// of many frames, sealed into buffers its sealing cursor takes back once a
// batch is sent; a driver holding the key sees every line of the burst
// once and in order, so no payload was reused before it was sent.
func TestSealedLaneBurst(t *testing.T) {
	r := newRig(t, "lines", fastRelay())
	r.proxy.RefuseUpgrades(true)
	k, err := seal.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	cfg := r.config()
	cfg.Key = k
	r.start(t, cfg)
	srv := r.srv.Load()

	var mu sync.Mutex
	var out strings.Builder
	c, err := viewer.Dial(context.Background(), viewer.Config{
		URL: srv.RoomURL(r.room), Token: srv.DriverToken(t, r.room, "dan"), Role: attachwire.RoleDriver, Key: k,
		BackoffMin: 10 * time.Millisecond, BackoffMax: 100 * time.Millisecond,
		OnEvent: func(ev viewer.Event) {
			if ev.Kind == viewer.EventOutput {
				mu.Lock()
				out.Write(ev.Data)
				mu.Unlock()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	output := func() string {
		mu.Lock()
		defer mu.Unlock()
		return out.String()
	}
	testkit.Eventually(t, "the pen, the host on the lane", func() bool {
		return c.Pen().Mine && c.Room() == attachwire.RoomDegraded
	})
	n := 5000
	if raceEnabled {
		n = 2000
	}
	if err := c.Input(fmt.Appendf(nil, "burst %d\n", n)); err != nil {
		t.Fatal(err)
	}
	last := fmt.Sprintf("line %06d of the burst", n-1)
	testkit.EventuallyDescribe(t, "the burst's last line", func() bool { return strings.Contains(output(), last) },
		func() string { return tail(output()) })
	got, at := output(), 0
	for i := range n {
		line := fmt.Sprintf("line %06d of the burst", i)
		j := strings.Index(got[at:], line)
		if j < 0 || strings.Count(got, line) != 1 {
			t.Fatalf("%q seen %d times, or out of order", line, strings.Count(got, line))
		}
		at += j + len(line)
	}
}
