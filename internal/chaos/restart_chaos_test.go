package chaos

import (
	"testing"
)

// A relay restarted in the middle of a firehose, drained (SIGTERM) or
// crashed (SIGKILL), then started again on the same port: the host
// redials, the viewer resumes, a snapshot bridges what the relay lost,
// and the viewer ends on the host's final screen with the Exit.
func TestRelayRestartDuringFirehose(t *testing.T) {
	size, after := "4M", int64(512<<10)
	if full() {
		size, after = "64M", 8<<20
	}
	for _, how := range []string{"drain", "kill-9"} {
		t.Run(how, func(t *testing.T) {
			k := newKeys(t)
			r := newRelay(t, k)
			room := "firehose"
			h := startHost(t, k, func() string { return r.roomURL(room) }, room, firehose(size), hostOptions{})
			v := watch(t, k, "v", r.roomURL(room), room, watchOptions{})
			v.awaitBytes(t, after)
			v.resetGap()
			if how == "drain" {
				r.drain()
			} else {
				r.kill9()
			}
			r.restart()
			ex := h.waitExit(t)
			f := v.finish(t, h, ex)
			if !f.bridged && f.skipped > 0 {
				t.Errorf("frames replaced (%d) but the longest gap was not ended by a snapshot", f.skipped)
			}
			report(t, "%s of firehose, relay %s and restarted: %v", size, how, f)
		})
	}
}
