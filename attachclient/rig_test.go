package attachclient_test

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/attachclient"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/faultproxy"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/token"
)

// watchdog bounds every wait of the end-to-end tests.
const watchdog = 20 * time.Second

// testLogger discards the carrier's logs unless ATTACHCLIENT_TEST_LOG is
// set, which sends them to stderr at debug level.
func testLogger() *slog.Logger {
	if os.Getenv("ATTACHCLIENT_TEST_LOG") == "" {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// spawn starts this test binary as the named helper child under a PTY.
// Each opt adjusts the Spec first.
func spawn(t testing.TB, helper string, epoch uint64, opts ...func(*ptyhost.Spec)) *ptyhost.Session {
	t.Helper()
	spec := ptyhost.Spec{
		Command: []string{os.Args[0], "-test.run=^$"},
		Env:     []string{attachclient.HelperEnv + "=" + helper, "GORACE=atexit_sleep_ms=0"},
		Epoch:   epoch,
		Cols:    80,
		Rows:    24,
	}
	for _, o := range opts {
		o(&spec)
	}
	s, err := ptyhost.Spawn(spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), watchdog)
		defer cancel()
		s.Stop(ctx)
	})
	return s
}

// fastRelay is a relay configuration with short timers for tests.
func fastRelay() relay.Config {
	return relay.Config{
		Logger:         testLogger(),
		SnapshotRetry:  100 * time.Millisecond,
		PingInterval:   time.Second,
		SilenceTimeout: 5 * time.Second,
		PenCooldown:    time.Millisecond,
		RestartAfter:   time.Second,
		DialsPerSecond: 1000,
	}
}

// rig is a relay, a fault proxy in front of it, a session and RunHost
// carrying the session through the proxy.
type rig struct {
	srv    atomic.Pointer[relaytest.Server]
	proxy  *faultproxy.Proxy
	sess   *ptyhost.Session
	room   string
	epoch  uint64
	tokens atomic.Int64 // TokenSource calls
	result chan error
	cancel context.CancelFunc
}

func newRig(t testing.TB, helper string, rcfg relay.Config, opts ...func(*ptyhost.Spec)) *rig {
	t.Helper()
	r := &rig{room: "room-" + strings.ReplaceAll(t.Name(), "/", "-"), epoch: 7, result: make(chan error, 1)}
	srv := relaytest.NewServer(t, rcfg)
	r.srv.Store(srv)
	p, err := faultproxy.New(strings.TrimPrefix(srv.URL, "ws://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	r.proxy = p
	r.sess = spawn(t, helper, r.epoch, opts...)
	return r
}

// mintHost mints a host token for the current relay (no testing.TB: it
// runs on RunHost's goroutine).
func (r *rig) mintHost(epoch uint64) (string, error) {
	return mintHost(r.srv.Load(), r.room, epoch)
}

// mintHost mints a host token for room on srv.
func mintHost(srv *relaytest.Server, room string, epoch uint64) (string, error) {
	return mintHostKey(srv.Key, room, epoch)
}

// mintHostKey mints a host token for room with key.
func mintHostKey(key ed25519.PrivateKey, room string, epoch uint64) (string, error) {
	jti, err := token.NewJTI()
	if err != nil {
		return "", err
	}
	now := time.Now().Unix()
	return token.Mint(key, token.Claims{
		SessionID: room, RoomID: room, Role: attachwire.RoleHost, Epoch: &epoch,
		OrgID: relaytest.DefaultOrg, IssuedAt: now, ExpiresAt: now + 60, Audience: "relay", JTI: jti,
	})
}

// config returns the HostConfig the rig runs: through the proxy, short
// backoff and window.
func (r *rig) config() attachclient.HostConfig {
	return attachclient.HostConfig{
		AttachURL: "ws://" + r.proxy.Addr() + "/v1/rooms/" + r.room,
		TokenSource: func(context.Context) (string, error) {
			r.tokens.Add(1)
			return r.mintHost(r.epoch)
		},
		Session:           r.sess.Agent(),
		Logger:            testLogger(),
		BackoffMin:        10 * time.Millisecond,
		BackoffMax:        200 * time.Millisecond,
		FinalScreenWindow: 500 * time.Millisecond,
	}
}

// start runs RunHost with cfg until it returns; the test's cleanup cancels
// it and waits.
func (r *rig) start(t testing.TB, cfg attachclient.HostConfig) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.result <- attachclient.RunHost(ctx, cfg)
	}()
	t.Cleanup(func() { cancel(); <-done })
}

// wait returns RunHost's result, failing the test after the watchdog.
func (r *rig) wait(t testing.TB) error {
	t.Helper()
	select {
	case err := <-r.result:
		return err
	case <-time.After(watchdog):
		t.Fatal("RunHost did not return")
		return nil
	}
}

// join dials the relay directly as a viewer or driver of the room.
func (r *rig) join(t testing.TB, role attachwire.Role, user string, sub attachwire.Subscribe) *view {
	t.Helper()
	srv := r.srv.Load()
	tok := srv.ViewerToken(t, r.room, user)
	if role == attachwire.RoleDriver {
		tok = srv.DriverToken(t, r.room, user)
	}
	sub.SessionID, sub.AsRole = r.room, role
	return &view{c: relaytest.MustDial(t, srv.RoomURL(r.room), tok, sub)}
}

// waitBound waits until the relay has the host leg bound: the host's
// first dial was forwarded and a driver would see room_state live.
func (r *rig) waitDials(t testing.TB, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	if err := r.proxy.Wait(ctx, func(s faultproxy.Stats) bool { return s.Dials >= n }); err != nil {
		t.Fatalf("waiting for %d dials: %v (%+v)", n, err, r.proxy.Stats())
	}
}

// view is a viewer leg and what it has seen: the frames other than
// controls, the text (the last snapshot's, then Output since), the
// controls and the Exit.
type view struct {
	c        *relaytest.Conn
	frames   []attachwire.Frame
	text     strings.Builder
	controls []attachwire.Control
	exit     *attachwire.Exit
	closed   error
	// keepText, when set, bounds text to about its last keepText bytes
	// and frames to their headers, for tests that stream megabytes.
	keepText int
}

// until reads frames until cond holds, failing the test after the watchdog
// or when the leg ends first.
func (v *view) until(t testing.TB, what string, cond func(*view) bool) {
	t.Helper()
	v.untilWithin(t, what, watchdog, cond)
}

// untilWithin is until with its own watchdog.
func (v *view) untilWithin(t testing.TB, what string, limit time.Duration, cond func(*view) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	for !cond(v) {
		f, err := v.c.Next(ctx)
		if err != nil {
			v.closed = err
			t.Fatalf("viewer waiting for %s: %v; text so far %q", what, err, tail(v.text.String()))
		}
		v.take(t, f)
	}
}

func (v *view) take(t testing.TB, f attachwire.Frame) {
	t.Helper()
	f.Payload = append([]byte(nil), f.Payload...)
	switch f.Type {
	case attachwire.TypeControl:
		c, err := attachwire.DecodeControl(f.Payload)
		if err == nil {
			v.controls = append(v.controls, c)
		}
		return
	case attachwire.TypeOutput:
		v.text.Write(f.Payload)
		if v.keepText > 0 && v.text.Len() > 2*v.keepText {
			s := v.text.String()
			v.text.Reset()
			v.text.WriteString(s[len(s)-v.keepText:])
		}
	case attachwire.TypeSnapshot:
		v.text.Reset()
		v.text.WriteString(snapshotText(t, f))
	case attachwire.TypeExit:
		ex, err := attachwire.DecodeExit(f.Payload)
		if err != nil {
			t.Fatalf("viewer got a bad Exit: %v", err)
		}
		v.exit = &ex
	}
	if v.keepText > 0 && f.Type != attachwire.TypeSnapshot {
		f.Payload = nil // checkContiguous needs the headers and snapshots only
	}
	v.frames = append(v.frames, f)
}

func (v *view) sees(s string) func(*view) bool {
	return func(v *view) bool { return strings.Contains(v.text.String(), s) }
}

func tail(s string) string {
	if len(s) > 300 {
		return "…" + s[len(s)-300:]
	}
	return s
}

// snapshotText returns a snapshot's scrollback and screen as lines.
func snapshotText(t testing.TB, f attachwire.Frame) string {
	t.Helper()
	snap, err := attachwire.DecodeSnapshot(f.Payload)
	if err != nil {
		t.Fatalf("bad snapshot: %v", err)
	}
	scr, err := snap.DecodeScreen()
	if err != nil {
		t.Fatalf("bad snapshot screen: %v", err)
	}
	return testkit.History(scr)
}

// snapshotSize returns a snapshot's screen size.
func snapshotSize(t testing.TB, f attachwire.Frame) (cols, rows int) {
	t.Helper()
	snap, err := attachwire.DecodeSnapshot(f.Payload)
	if err != nil {
		t.Fatalf("bad snapshot: %v", err)
	}
	scr, err := snap.DecodeScreen()
	if err != nil {
		t.Fatalf("bad snapshot screen: %v", err)
	}
	return scr.Cols, scr.Rows
}

// atSeq returns the seq a snapshot frame reflects.
func atSeq(t testing.TB, f attachwire.Frame) uint64 {
	t.Helper()
	snap, err := attachwire.DecodeSnapshot(f.Payload)
	if err != nil {
		t.Fatalf("bad snapshot: %v", err)
	}
	return snap.AtSeq
}

// checkContiguous fails the test unless the viewer's in-namespace frames
// are contiguous within each stretch between snapshots: after a snapshot
// at atSeq A (keyed on atSeq whatever its header seq: an in-stream one, a
// post-Exit one, or the final screen a relay serves at the seq before
// Exit) the next frame is A+1, and every frame after follows its
// predecessor; no seq repeats or goes back.
func checkContiguous(t testing.TB, frames []attachwire.Frame) {
	t.Helper()
	var want uint64 // 0: anything may come next
	for i, f := range frames {
		if f.Type == attachwire.TypeSnapshot {
			want = atSeq(t, f) + 1
			if f.Seq >= want { // in-stream: it takes a seq of its own
				want = f.Seq + 1
			}
			continue
		}
		if want != 0 && f.Seq != want {
			t.Fatalf("frame %d (%s) has seq %d, want %d: a gap, repeat or reorder outside a snapshot", i, f.Type, f.Seq, want)
		}
		want = f.Seq + 1
	}
}

func (v *view) String() string {
	return fmt.Sprintf("%d frames, text %q", len(v.frames), tail(v.text.String()))
}
