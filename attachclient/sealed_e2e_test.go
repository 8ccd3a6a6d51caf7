package attachclient_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
	"github.com/ptyhost/ptyhost/faultproxy"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/viewer"
)

// screenText is a screen's rows, one line each.
func screenText(s attachwire.Screen) string {
	var b strings.Builder
	for r := range s.Rows {
		b.WriteString(testkit.Row(s.Primary, s.Cols, r))
		b.WriteByte('\n')
	}
	return b.String()
}

// dialSealed dials a viewer.Client with key k (nil: none).
func dialSealed(t testing.TB, srv *relaytest.Server, room, user string, role attachwire.Role, k *seal.Key) (*viewer.Client, error) {
	t.Helper()
	tok := srv.ViewerToken(t, room, user)
	if role == attachwire.RoleDriver {
		tok = srv.DriverToken(t, room, user)
	}
	c, err := viewer.Dial(context.Background(), viewer.Config{
		URL: srv.RoomURL(room), Token: tok, Role: role, Key: k,
		BackoffMin: 10 * time.Millisecond, BackoffMax: 100 * time.Millisecond,
	})
	if err == nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, err
}

// refusal dials a viewer with key k and returns how the relay turned it
// away (the refusal comes after the upgrade: Dial or the leg's end).
func refusal(t testing.TB, srv *relaytest.Server, room, user string, k *seal.Key) error {
	t.Helper()
	c, err := dialSealed(t, srv, room, user, attachwire.RoleViewer, k)
	if err != nil {
		return err
	}
	select {
	case <-c.Done():
		return c.Err()
	case <-time.After(relaytest.Timeout):
		return errors.New("the viewer was not turned away")
	}
}

// waitSameScreen waits until c's mirror shows what the session's screen
// does.
func waitSameScreen(t testing.TB, r *rig, c *viewer.Client, what string) {
	t.Helper()
	testkit.EventuallyDescribe(t, what, func() bool {
		want, _, err := r.sess.Snapshot()
		got, _, ok := c.Mirror()
		return err == nil && ok && screenText(want) == screenText(got)
	}, func() string {
		want, _, _ := r.sess.Snapshot()
		got, _, _ := c.Mirror()
		return "host:\n" + screenText(want) + "viewer:\n" + screenText(got)
	})
}

// TestSealedSession carries a real session through a sealed room: the
// host seals, the relay serves what it cannot read, and viewers holding
// the key (a driver typing, a late joiner, one after the Exit) see the
// host's screen and its exit status; a viewer without the key is told it
// needs a link with one.
func TestSealedSession(t *testing.T) {
	r := newRig(t, "lines", fastRelay())
	k, err := seal.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	cfg := r.config()
	cfg.Key = k
	r.start(t, cfg)
	srv := r.srv.Load()

	d, err := dialSealed(t, srv, r.room, "dan", attachwire.RoleDriver, k)
	if err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "the pen", func() bool { return d.Pen().Mine })
	for _, line := range []string{"echo sealed-one", "echo sealed-two"} {
		if err := d.Input([]byte(line + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	testkit.Eventually(t, "the echo", func() bool {
		s, _, ok := d.Mirror()
		return ok && strings.Contains(screenText(s), "sealed-two")
	})
	waitSameScreen(t, r, d, "the driver's screen equals the host's")

	late, err := dialSealed(t, srv, r.room, "late", attachwire.RoleViewer, k)
	if err != nil {
		t.Fatal(err)
	}
	waitSameScreen(t, r, late, "the late joiner's screen equals the host's")

	var ref *viewer.RefusedError
	if err := refusal(t, srv, r.room, "nokey", nil); !errors.As(err, &ref) || ref.Code != attachwire.CodeSealed || !strings.Contains(ref.Message, "link that carries its key") {
		t.Fatalf("a viewer without the key: %v", err)
	}
	other, _ := seal.GenerateKey()
	if err := refusal(t, srv, r.room, "other", other); !errors.As(err, &ref) || ref.Code != attachwire.CodeSealed || !strings.Contains(ref.Message, "new link") {
		t.Fatalf("a viewer with another key: %v", err)
	}

	if err := d.Input([]byte("exit 4\n")); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "the driver sees the exit", func() bool { _, ok := d.Exit(); return ok })
	if x, _ := d.Exit(); x.Code != 4 {
		t.Errorf("driver sees exit %+v", x)
	}
	after, err := dialSealed(t, srv, r.room, "after", attachwire.RoleViewer, k)
	if err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "a joiner after the exit learns the status", func() bool { _, ok := after.Exit(); return ok })
	if x, _ := after.Exit(); x.Code != 4 {
		t.Errorf("late joiner sees exit %+v", x)
	}
	waitSameScreen(t, r, after, "the final screen")
}

// TestSealedRekey: a host that starts a new key (HostConfig.Rekey) turns
// the old key's viewers away with a sentence that says so, old links stop
// (a viewer dialling with the old key is refused), and the new key's
// viewers see the host's screen.
func TestSealedRekey(t *testing.T) {
	rcfg := fastRelay()
	rcfg.PenGrace = 50 * time.Millisecond // the old holder's, who cannot come back
	r := newRig(t, "lines", rcfg)
	oldKey, _ := seal.GenerateKey()
	newKey, _ := seal.GenerateKey()
	rekey := make(chan *seal.Key, 1)
	cfg := r.config()
	cfg.Key, cfg.Rekey = oldKey, rekey
	r.start(t, cfg)
	srv := r.srv.Load()

	old, err := dialSealed(t, srv, r.room, "old", attachwire.RoleDriver, oldKey)
	if err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "the pen", func() bool { return old.Pen().Mine })
	if err := old.Input([]byte("before the new key\n")); err != nil {
		t.Fatal(err)
	}
	waitSameScreen(t, r, old, "the old key's viewer sees the host")

	rekey <- newKey
	select {
	case <-old.Done():
	case <-time.After(relaytest.Timeout):
		t.Fatal("the old key's viewer was not turned away")
	}
	var ref *viewer.RefusedError
	if err := old.Err(); !errors.As(err, &ref) || ref.Code != attachwire.CodeSealed || !strings.Contains(ref.Message, "key has changed") {
		t.Fatalf("the old key's viewer ended with %v", err)
	}
	if err := refusal(t, srv, r.room, "old-again", oldKey); !errors.As(err, &ref) || ref.Code != attachwire.CodeSealed {
		t.Fatalf("an old link: %v", err)
	}
	fresh, err := dialSealed(t, srv, r.room, "fresh", attachwire.RoleDriver, newKey)
	if err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "the pen", func() bool {
		if fresh.Pen().Mine {
			return true
		}
		fresh.Grab()
		return false
	})
	if err := fresh.Input([]byte("after the new key\n")); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "the new key's input typed", func() bool {
		s, _, err := r.sess.Snapshot()
		return err == nil && strings.Contains(screenText(s), "GOT<after the new key>")
	})
	waitSameScreen(t, r, fresh, "the new key's viewer sees the host")
}

// TestSealedRelayFeatures: the relay's features work on what it cannot
// read. In a sealed room, a viewer on the degraded lane, a viewer whose
// connection is cut (it resumes from the ring), and a viewer slower than
// the host (skipped to the host's sealed snapshot) each end on the host's
// screen; the host's own leg cut while a driver types loses no keys
// (redelivery).
func TestSealedRelayFeatures(t *testing.T) {
	rcfg := fastRelay()
	rcfg.ViewerQueueBytes = 64 << 10 // a burst passes it: skips
	r := newRig(t, "lines", rcfg)
	k, _ := seal.GenerateKey()
	cfg := r.config()
	cfg.Key = k
	r.start(t, cfg)
	srv := r.srv.Load()
	door := newViewerDoor(t, srv)
	door.RefuseUpgrades(true)

	d, err := dialSealed(t, srv, r.room, "dan", attachwire.RoleDriver, k)
	if err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "the pen", func() bool { return d.Pen().Mine })
	lane, err := viewer.Dial(context.Background(), viewer.Config{
		URL: door.roomURL(r.room), Token: srv.ViewerToken(t, r.room, "lana"), Role: attachwire.RoleViewer, Key: k,
		BackoffMin: 10 * time.Millisecond, BackoffMax: 100 * time.Millisecond, FallbackAfter: 1, ProbeInterval: time.Hour,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer lane.Close()
	testkit.Eventually(t, "the viewer on the lane", lane.Lane)
	cutDoor := newViewerDoor(t, srv)
	cut, err := viewer.Dial(context.Background(), viewer.Config{
		URL: cutDoor.roomURL(r.room), Token: srv.ViewerToken(t, r.room, "cut"), Role: attachwire.RoleViewer, Key: k,
		BackoffMin: 10 * time.Millisecond, BackoffMax: 100 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer cut.Close()

	waitSameScreen(t, r, cut, "the viewer's first screen")
	if err := d.Input([]byte("burst 3000\n")); err != nil {
		t.Fatal(err)
	}
	cutDoor.CutAfter(faultproxy.Downstream, 32<<10) // inside the burst: the viewer resumes
	if err := d.Input([]byte("after the burst\n")); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "the burst's end on the host", func() bool {
		s, _, err := r.sess.Snapshot()
		return err == nil && strings.Contains(screenText(s), "GOT<after the burst>")
	})
	for name, v := range map[string]*viewer.Client{"the driver": d, "the lane viewer": lane, "the viewer": cut} {
		waitSameScreen(t, r, v, name+" on the host's screen after the burst")
	}
	if st := cutDoor.Stats(); st.Dials < 2 {
		t.Errorf("the cut viewer dialled %d times: it was not cut", st.Dials)
	}
	if _, body := srv.Get(t, "/metrics"); !regexp.MustCompile(`(?m)^ptyhost_relay_viewer_skips_total [1-9]`).MatchString(body) {
		t.Errorf("no viewer was skipped to a snapshot:\n%s", regexp.MustCompile(`(?m)^ptyhost_relay_viewer_skips.*$`).FindString(body))
	}

	// Cut the host's leg while the driver types: the keys arrive once.
	r.proxy.CutAfter(faultproxy.Downstream, 0)
	for i := range 5 {
		if err := d.Input([]byte("key " + string(rune('a'+i)) + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	testkit.Eventually(t, "every key typed across the host's redial", func() bool {
		s, _, err := r.sess.Snapshot()
		return err == nil && strings.Contains(screenText(s), "GOT<key e>")
	})
	s, _, _ := r.sess.Snapshot()
	if n := strings.Count(screenText(s), "GOT<key c>"); n != 1 {
		t.Errorf("key c typed %d times", n)
	}
	for name, v := range map[string]*viewer.Client{"the driver": d, "the lane viewer": lane, "the viewer": cut} {
		waitSameScreen(t, r, v, name+" on the host's screen after its redial")
	}
}
