package relay_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/attachclient"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
	"github.com/ptyhost/ptyhost/faultproxy"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/token"
	"github.com/ptyhost/ptyhost/viewer"
	"github.com/ptyhost/ptyhost/web/engine"
)

// spawnLines starts this test binary's lines program under a PTY, at
// epoch, stopped when the test ends.
func spawnLines(t testing.TB, epoch uint64) *ptyhost.Session {
	t.Helper()
	s, err := ptyhost.Spawn(ptyhost.Spec{
		Command: []string{os.Args[0], "-test.run=^$"},
		Env:     []string{helperEnv + "=lines", "GORACE=atexit_sleep_ms=0"},
		Epoch:   epoch, Cols: 80, Rows: 24,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), relaytest.Timeout)
		defer cancel()
		s.Stop(ctx)
	})
	return s
}

// runSealedHost carries sess to url with RunHost, sealed under k, with
// host tokens minted by minter, until the test ends.
func runSealedHost(t testing.TB, minter *relaytest.Server, url string, sess *ptyhost.Session, epoch uint64, k *seal.Key) {
	t.Helper()
	cfg := attachclient.HostConfig{
		AttachURL: url,
		TokenSource: func(context.Context) (string, error) {
			jti, err := token.NewJTI()
			if err != nil {
				return "", err
			}
			now := time.Now().Unix()
			return token.Mint(minter.Key, token.Claims{SessionID: room, RoomID: room, Role: attachwire.RoleHost, Epoch: &epoch,
				OrgID: relaytest.DefaultOrg, IssuedAt: now, ExpiresAt: now + 300, Audience: "relay", JTI: jti})
		},
		Session:           sess.Agent(),
		Logger:            discardLogger(),
		Key:               k,
		BackoffMin:        10 * time.Millisecond,
		BackoffMax:        200 * time.Millisecond,
		FinalScreenWindow: time.Minute,
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		attachclient.RunHost(ctx, cfg)
	}()
	t.Cleanup(func() { cancel(); <-done })
}

// keyedViewer is a viewer.Client holding the room key, counting the
// frames it could not open.
type keyedViewer struct {
	*viewer.Client
	mu        sync.Mutex
	integrity []string // the integrity notices it was given
}

// dialKeyed dials a viewer.Client with k on n as user in role.
func dialKeyed(t testing.TB, minter *relaytest.Server, n *node, user string, role attachwire.Role, k *seal.Key) *keyedViewer {
	t.Helper()
	tok := minter.ViewerToken(t, room, user)
	if role == attachwire.RoleDriver {
		tok = minter.DriverToken(t, room, user)
	}
	kv := &keyedViewer{}
	c, err := viewer.Dial(context.Background(), viewer.Config{
		URL: n.RoomURL(room), Token: tok, Role: role, Key: k,
		BackoffMin: 10 * time.Millisecond, BackoffMax: 200 * time.Millisecond,
		OnEvent: func(ev viewer.Event) {
			if ev.Kind == viewer.EventNotice && ev.Code == engine.CodeIntegrity {
				kv.mu.Lock()
				kv.integrity = append(kv.integrity, ev.Text)
				kv.mu.Unlock()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	kv.Client = c
	return kv
}

// failures returns the integrity notices kv was given.
func (kv *keyedViewer) failures() []string {
	kv.mu.Lock()
	defer kv.mu.Unlock()
	return append([]string(nil), kv.integrity...)
}

// rowsText is a screen's rows, one line each.
func rowsText(s attachwire.Screen) string {
	var b strings.Builder
	for r := range s.Rows {
		b.WriteString(testkit.Row(s.Primary, s.Cols, r))
		b.WriteByte('\n')
	}
	return b.String()
}

// sameScreen waits until v's mirror shows what sess's screen does.
func sameScreen(t testing.TB, sess *ptyhost.Session, v *keyedViewer, what string) {
	t.Helper()
	testkit.EventuallyDescribe(t, what, func() bool {
		want, _, err := sess.Snapshot()
		got, _, ok := v.Mirror()
		return err == nil && ok && rowsText(want) == rowsText(got)
	}, func() string {
		want, _, _ := sess.Snapshot()
		got, _, _ := v.Mirror()
		return "host:\n" + rowsText(want) + "viewer:\n" + rowsText(got)
	})
}

// TestClusterSealedOwnerDies: a real session carried by RunHost seals its
// room on node A; a driver on B and a viewer on C hold the key. A dies
// as a crash would; the host redials and lands on B, which takes the room
// over at the same epoch. The driver types before and after, and ends
// the session: both end on the host's screen and learn its exit status,
// no frame failed to open on the way, and no marker typed through the
// room is in any frame or control NATS carried between the nodes or in
// the surviving nodes' rings.
func TestClusterSealedOwnerDies(t *testing.T) {
	ns := natsServer(t)
	// The spy listens where frames and controls travel, never on a
	// request subject (see spyOn).
	spy := spyOn(t, ns, "ptyhost.relay.room.*.out", "ptyhost.relay.node.*.legs")

	nodes := startCluster(t, ns, "a", "b", "c")
	a, b, c := nodes[0], nodes[1], nodes[2]
	front, err := faultproxy.New(strings.TrimPrefix(a.URL, "ws://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { front.Close() })
	k := newSealKey(t)
	const epoch = 1
	sess := spawnLines(t, epoch)
	runSealedHost(t, a.Server, "ws://"+front.Addr()+"/v1/rooms/"+room, sess, epoch, k)

	testkit.Eventually(t, "the host bound on A", func() bool {
		return relay.HeadSeq(a.Relay, relaytest.DefaultOrg, room) > 0
	})
	d := dialKeyed(t, a.Server, b, "dan", attachwire.RoleDriver, k)
	v := dialKeyed(t, a.Server, c, "vic", attachwire.RoleViewer, k)
	nonce := make([]byte, 6)
	rand.Read(nonce)
	tag := hex.EncodeToString(nonce)
	before, after := "MARK-before-"+tag, "MARK-after-"+tag
	typeLine := func(line string) {
		t.Helper()
		testkit.Eventually(t, "the pen", func() bool {
			if d.Pen().Mine {
				return true
			}
			d.Grab()
			return false
		})
		if err := d.Input([]byte(line + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	typed := func(line, what string) {
		t.Helper()
		testkit.EventuallyDescribe(t, what, func() bool {
			s, _, err := sess.Snapshot()
			return err == nil && strings.Contains(rowsText(s), "GOT<"+line+">")
		}, func() string {
			s, _, _ := sess.Snapshot()
			return fmt.Sprintf("host:\n%s\ndriver's pen %+v, room %s, err %v", rowsText(s), d.Pen(), d.Room(), d.Err())
		})
	}
	typeLine(before)
	typed(before, "the line typed before the owner dies")
	sameScreen(t, sess, d, "the driver on B on the host's screen")
	sameScreen(t, sess, v, "the viewer on C on the host's screen")

	gen := d.Pen().Generation
	front.SetTarget(strings.TrimPrefix(b.URL, "ws://"))
	a.kill()
	// The pen starts afresh on the new owner: keys typed under the old
	// generation would be dropped there.
	testkit.EventuallyDescribe(t, "the host bound on B and the driver's pen from it", func() bool {
		return relay.HeadSeq(b.Relay, relaytest.DefaultOrg, room) > 0 && d.Pen().Generation > gen
	}, func() string {
		return fmt.Sprintf("head on B %d, pen %+v (before %d), room %s", relay.HeadSeq(b.Relay, relaytest.DefaultOrg, room), d.Pen(), gen, d.Room())
	})
	typeLine(after)
	typed(after, "the line typed after the takeover")
	sameScreen(t, sess, d, "the driver on B on the host's screen after the takeover")
	sameScreen(t, sess, v, "the viewer on C on the host's screen after the takeover")

	markers := [][]byte{[]byte(before), []byte(after)}
	checkRings := func(nodes ...*node) {
		t.Helper()
		for _, n := range nodes {
			wires := relay.RingWires(n.Relay, relaytest.DefaultOrg, room)
			if len(wires) == 0 {
				t.Errorf("node %s's ring holds nothing: nothing was looked at", n.URL)
			}
			for _, w := range wires {
				for _, m := range markers {
					if bytes.Contains(w, m) {
						t.Errorf("node %s's ring holds %q", n.URL, m)
					}
				}
			}
		}
	}
	checkRings(b, c)

	typeLine("exit 5")
	for name, kv := range map[string]*keyedViewer{"the driver": d, "the viewer": v} {
		testkit.Eventually(t, name+" learns the exit status", func() bool { _, ok := kv.Exit(); return ok })
		if x, _ := kv.Exit(); x.Code != 5 {
			t.Errorf("%s: exit %+v, want code 5", name, x)
		}
		sameScreen(t, sess, kv, name+" on the final screen")
		if f := kv.failures(); len(f) > 0 {
			t.Errorf("%s: %d frames failed to open: %q", name, len(f), f)
		}
	}
	// A late joiner on C is served the final screen and the status too.
	late := dialKeyed(t, a.Server, c, "lee", attachwire.RoleViewer, k)
	testkit.Eventually(t, "the late joiner learns the exit status", func() bool { _, ok := late.Exit(); return ok })
	sameScreen(t, sess, late, "the late joiner on the final screen")
	if f := late.failures(); len(f) > 0 {
		t.Errorf("the late joiner: %d frames failed to open: %q", len(f), f)
	}

	checkRings(b) // C's room closed with its last viewer
	seen := spy.seen()
	if len(seen) == 0 {
		t.Fatal("the spy saw no NATS message")
	}
	for _, msg := range seen {
		for _, m := range markers {
			if bytes.Contains(msg, m) {
				t.Errorf("a NATS message holds %q: %.80q", m, msg)
			}
		}
	}
}
