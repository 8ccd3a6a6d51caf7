package attachclient_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/attachclient"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/faultproxy"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relaytest"
)

// The tests in this file run RunHost against the real relay (package
// relay, through relaytest), through a fault proxy, with a real session.

func TestHappyPathViewerSeesOutputAndExit(t *testing.T) {
	r := newRig(t, "lines", fastRelay())
	v := r.join(t, attachwire.RoleViewer, "watcher", attachwire.Subscribe{}) // before the host
	cfg := r.config()
	r.start(t, cfg)
	v.until(t, "the child's first line", v.sees("ready"))
	r.sess.WriteInput([]byte("exit 3\n"))
	v.until(t, "Exit", func(v *view) bool { return v.exit != nil })
	if v.exit.Code != 3 {
		t.Fatalf("exit code %d, want 3", v.exit.Code)
	}
	checkContiguous(t, v.frames)
	start := time.Now()
	if err := r.wait(t); err != nil {
		t.Fatalf("RunHost = %v, want nil after the final-screen window", err)
	}
	// A lower bound: the window was served whole.
	if took := time.Since(start); took < cfg.FinalScreenWindow/2 {
		t.Fatalf("RunHost returned %v after the viewer saw Exit, window %v", took, cfg.FinalScreenWindow)
	}
	if n := r.tokens.Load(); n != 1 {
		t.Fatalf("TokenSource called %d times for one dial", n)
	}
}

func TestInputFromThePenHolderReachesTheChildAndAViewersDoesNot(t *testing.T) {
	r := newRig(t, "lines", fastRelay())
	r.start(t, r.config())
	d := r.join(t, attachwire.RoleDriver, "alice", attachwire.Subscribe{})
	d.until(t, "the child's first line", d.sees("ready"))
	pen := d.pen(t)
	v := r.join(t, attachwire.RoleViewer, "bob", attachwire.Subscribe{})
	v.until(t, "the child's first line", v.sees("ready"))
	send := func(c *view, seq uint64, s string) {
		t.Helper()
		f := attachwire.Input{InputSeq: seq, PenGeneration: pen, Data: []byte(s)}.Frame(0, 0)
		if err := c.c.Send(context.Background(), f); err != nil {
			t.Fatal(err)
		}
	}
	send(v, 1, "from-the-viewer\n")
	send(d, 1, "from-the-driver\n")
	d.until(t, "the driver's line echoed by the child", d.sees("GOT<from-the-driver>"))
	send(d, 2, "after\n")
	d.until(t, "the driver's second line", d.sees("GOT<after>"))
	if strings.Contains(d.text.String(), "GOT<from-the-viewer>") {
		t.Fatal("a viewer's input reached the child")
	}
}

// pen takes the pen (a driver joining a room with a free pen holds it)
// and returns its generation.
func (v *view) pen(t testing.TB) uint64 {
	t.Helper()
	for _, c := range v.controls {
		if ps, ok := c.(attachwire.PenState); ok && ps.HolderUserID != "" {
			return ps.PenGeneration
		}
		if pg, ok := c.(attachwire.PenGranted); ok {
			return pg.PenGeneration
		}
	}
	var gen uint64
	v.until(t, "the pen", func(v *view) bool {
		for _, c := range v.controls {
			if pg, ok := c.(attachwire.PenGranted); ok {
				gen = pg.PenGeneration
				return true
			}
			if ps, ok := c.(attachwire.PenState); ok && ps.HolderUserID != "" {
				gen = ps.PenGeneration
				return true
			}
		}
		return false
	})
	return gen
}

func TestAuthoritativeResizeReachesTheChild(t *testing.T) {
	r := newRig(t, "lines", fastRelay())
	r.start(t, r.config())
	d := r.join(t, attachwire.RoleDriver, "alice", attachwire.Subscribe{Viewport: &attachwire.Viewport{Cols: 100, Rows: 30}})
	d.until(t, "the child's first line", d.sees("ready"))
	pen := d.pen(t)
	// The holder's viewport is the size: the host applies it verbatim and
	// echoes it in the stream (or the viewer learns it from a snapshot
	// taken after it, when the echo came before the snapshot's atSeq).
	d.until(t, "the applied size", func(v *view) bool {
		for _, f := range v.frames {
			switch f.Type {
			case attachwire.TypeResize:
				rz, err := attachwire.DecodeResize(f.Payload)
				if err == nil && rz.Cols == 100 && rz.Rows == 30 {
					return true
				}
			case attachwire.TypeSnapshot:
				if cols, rows := snapshotSize(t, f); cols == 100 && rows == 30 {
					return true
				}
			}
		}
		return false
	})
	in := attachwire.Input{InputSeq: 1, PenGeneration: pen, Data: []byte("size\n")}.Frame(0, 0)
	if err := d.c.Send(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	d.until(t, "the child's size", d.sees("SIZE 30 100"))
}

func TestPostExitSnapshotServedWithinTheWindow(t *testing.T) {
	r := newRig(t, "hello", fastRelay())
	cfg := r.config()
	cfg.FinalScreenWindow = 3 * time.Second
	r.start(t, cfg)
	<-r.sess.Done()
	// A viewer joining after Exit, within the window, gets the final
	// screen and the Exit frame (in the tail of an in-ring snapshot, or
	// after the final screen the relay serves at the seq before Exit), so
	// it learns how the session ended. That the host answers the relay's
	// post-Exit snapshot_request with a seq-0 snapshot is checked against
	// the test peer (TestPeerPostExitSnapshotIsSentDirectly).
	v := r.join(t, attachwire.RoleViewer, "late", attachwire.Subscribe{})
	ex, _ := r.sess.Exit()
	v.until(t, "the final screen and the exit", func(v *view) bool {
		return strings.Contains(v.text.String(), "hello from the child") && v.exit != nil
	})
	if v.exit.Code != ex.Code {
		t.Fatalf("the late viewer's Exit %+v, want the session's %+v", *v.exit, ex)
	}
	checkContiguous(t, v.frames)
	if err := r.wait(t); err != nil {
		t.Fatalf("RunHost = %v", err)
	}
}

func TestRelayRestartedMidStreamHostReattachesViewerResumes(t *testing.T) {
	r := newRig(t, "lines", fastRelay())
	r.start(t, r.config())
	v := r.join(t, attachwire.RoleViewer, "watcher", attachwire.Subscribe{})
	r.sess.WriteInput([]byte("burst 50\n"))
	v.until(t, "the first burst", v.sees("line 000049"))

	// The relay dies without a word; a new one (new key, empty state)
	// answers at the same address the host dials.
	old := r.srv.Load()
	old.Close()
	srv := relaytest.NewServer(t, fastRelay())
	r.srv.Store(srv)
	r.proxy.SetTarget(strings.TrimPrefix(srv.URL, "ws://"))
	r.waitDials(t, 2)

	last := v.frames[len(v.frames)-1].Seq
	epoch := r.epoch
	v2 := r.join(t, attachwire.RoleViewer, "watcher", attachwire.Subscribe{ResumeFrom: &last, ResumeEpoch: &epoch})
	v2.frames = append(v2.frames, v.frames...)
	r.sess.WriteInput([]byte("burst 30\n"))
	v2.until(t, "the burst after the restart", v2.sees("line 000029"))
	checkContiguous(t, v2.frames)
}

func TestCutMidFrameResumesFromTheHeadAndTheRelayResyncs(t *testing.T) {
	r := newRig(t, "lines", fastRelay())
	r.start(t, r.config())
	v := r.join(t, attachwire.RoleViewer, "watcher", attachwire.Subscribe{})
	v.until(t, "the child's first line", v.sees("ready"))
	r.waitDials(t, 1)
	if n := r.proxy.CutMidFrame(faultproxy.Upstream); n != 1 {
		t.Fatalf("armed %d connections", n)
	}
	r.sess.WriteInput([]byte("burst 2000\n"))
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	if err := r.proxy.Wait(ctx, func(s faultproxy.Stats) bool { return s.Cuts == 1 && s.Forwarded >= 2 }); err != nil {
		t.Fatalf("no cut and redial: %v %+v", err, r.proxy.Stats())
	}
	r.sess.WriteInput([]byte("after the cut\n"))
	v.until(t, "output after the cut", v.sees("GOT<after the cut>"))
	// The frames lost in the cut are never resent: the viewer's stream
	// jumps only at a snapshot.
	checkContiguous(t, v.frames)
	snaps := 0
	for _, f := range v.frames {
		if f.Type == attachwire.TypeSnapshot {
			snaps++
		}
	}
	if snaps == 0 {
		t.Fatal("the viewer got no snapshot across the gap")
	}
}

func TestPlannedRestartWaitsTheAnnouncedTimeAndIsNeverTerminal(t *testing.T) {
	r := newRig(t, "lines", fastRelay()) // RestartAfter 1 s
	cfg := r.config()
	cfg.BackoffMax = 5 * time.Second // above the hint, so the hint is not clamped
	r.start(t, cfg)
	v := r.join(t, attachwire.RoleViewer, "watcher", attachwire.Subscribe{})
	v.until(t, "the child's first line", v.sees("ready"))

	old := r.srv.Load()
	srv := relaytest.NewServer(t, fastRelay())
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	// The old relay drains (Shutdown waits for its legs, the viewer's close
	// included) while the proxy already points at the new one.
	dials := r.proxy.Stats().Dials
	r.srv.Store(srv)
	r.proxy.SetTarget(strings.TrimPrefix(srv.URL, "ws://"))
	announced := time.Now()
	shut := make(chan error, 1)
	go func() { shut <- old.Relay.Shutdown(ctx) }()
	defer func() { old.Close(); <-shut }()
	if err := r.proxy.Wait(ctx, func(s faultproxy.Stats) bool { return s.Dials > dials }); err != nil {
		t.Fatal(err)
	}
	// A lower bound only: the host waited out the announced second.
	if since := time.Since(announced); since < time.Second {
		t.Fatalf("the host redialled %v after a 1 s restart announcement", since)
	}
	v2 := r.join(t, attachwire.RoleViewer, "watcher", attachwire.Subscribe{})
	r.sess.WriteInput([]byte("on the new relay\n"))
	v2.until(t, "output on the new relay", v2.sees("GOT<on the new relay>"))
	select {
	case err := <-r.result:
		t.Fatalf("RunHost ended on a planned restart: %v", err)
	default:
	}
}

func TestRefused503WithRetryAfterIsARestartAndBare503IsNot(t *testing.T) {
	for _, tc := range []struct {
		name       string
		retryAfter string
		atLeast    time.Duration
	}{
		{"retry-after", "2", 2 * time.Second},
		{"bare", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, "lines", fastRelay())
			cfg := r.config()
			cfg.BackoffMax = 5 * time.Second
			r.proxy.Answer503Next(1, tc.retryAfter)
			start := time.Now()
			r.start(t, cfg)
			r.waitDials(t, 2)
			since := time.Since(start)
			if since < tc.atLeast {
				t.Fatalf("second dial after %v, want at least %v", since, tc.atLeast)
			}
			if tc.atLeast == 0 && since >= 2*time.Second {
				// Not a timing goal: a bare 503 must not be read as a
				// restart hint of seconds (BackoffMin is 10 ms).
				t.Logf("bare 503: second dial after %v", since)
			}
			v := r.join(t, attachwire.RoleViewer, "watcher", attachwire.Subscribe{})
			v.until(t, "the child's first line", v.sees("ready"))
		})
	}
}

func TestEpochStale(t *testing.T) {
	t.Run("equal epoch while a leg is bound is retried", func(t *testing.T) {
		r := newRig(t, "lines", fastRelay())
		// A squatter holds the room with the host's own epoch: the
		// half-open predecessor the CAS refuses a same-epoch dial for.
		srv := r.srv.Load()
		squat := relaytest.MustDial(t, srv.RoomURL(r.room), srv.HostToken(t, r.room, r.epoch),
			attachwire.Subscribe{SessionID: r.room, AsRole: attachwire.RoleHost, Epoch: &r.epoch})
		relaytest.ExpectControl[attachwire.SnapshotRequest](t, squat) // bound
		r.start(t, r.config())
		r.waitDials(t, 3) // refused at least twice
		select {
		case err := <-r.result:
			t.Fatalf("RunHost ended while the predecessor was bound: %v", err)
		default:
		}
		squat.WS.CloseNow()
		v := r.join(t, attachwire.RoleViewer, "watcher", attachwire.Subscribe{})
		r.sess.WriteInput([]byte("bound at last\n"))
		v.until(t, "the host's output", v.sees("GOT<bound at last>"))
	})
	t.Run("lower epoch exhausts the budget", func(t *testing.T) {
		r := newRig(t, "lines", fastRelay())
		srv := r.srv.Load()
		next := r.epoch + 1
		succ := relaytest.MustDial(t, srv.RoomURL(r.room), srv.HostToken(t, r.room, next),
			attachwire.Subscribe{SessionID: r.room, AsRole: attachwire.RoleHost, Epoch: &next})
		relaytest.ExpectControl[attachwire.SnapshotRequest](t, succ)
		succ.WS.CloseNow() // the room keeps E_cur = epoch+1
		cfg := r.config()
		cfg.EpochStaleMaxRetries = 3
		r.start(t, cfg)
		err := r.wait(t)
		if !errors.Is(err, attachclient.ErrEpochStale) {
			t.Fatalf("RunHost = %v, want ErrEpochStale", err)
		}
		if n := r.tokens.Load(); n != 4 {
			t.Fatalf("%d dials for a budget of 3 retries, want 4", n)
		}
	})
	t.Run("a token above the session's epoch ends at once", func(t *testing.T) {
		r := newRig(t, "lines", fastRelay())
		cfg := r.config()
		cfg.TokenSource = func(context.Context) (string, error) { return r.mintHost(r.epoch + 1) }
		r.start(t, cfg)
		if err := r.wait(t); !errors.Is(err, attachclient.ErrEpochStale) {
			t.Fatalf("RunHost = %v, want ErrEpochStale", err)
		}
		if d := r.proxy.Stats().Dials; d != 0 {
			t.Fatalf("%d dials with a successor's token", d)
		}
	})
}

func TestTokenSourceIsCalledForEveryDial(t *testing.T) {
	r := newRig(t, "lines", fastRelay())
	r.proxy.RefuseNext(2) // a third would move it to the lane, which dials per POST
	r.start(t, r.config())
	v := r.join(t, attachwire.RoleViewer, "watcher", attachwire.Subscribe{})
	v.until(t, "the child's first line", v.sees("ready"))
	s := r.proxy.Stats()
	if s.Refused != 2 || int64(s.Dials) != r.tokens.Load() {
		t.Fatalf("%d dials (%d refused), %d tokens: want one token per dial", s.Dials, s.Refused, r.tokens.Load())
	}
}

func TestCancelReturnsPromptlyAndJoinsEverything(t *testing.T) {
	r := newRig(t, "lines", fastRelay())
	r.start(t, r.config())
	v := r.join(t, attachwire.RoleViewer, "watcher", attachwire.Subscribe{})
	v.until(t, "the child's first line", v.sees("ready"))
	r.proxy.Stall(faultproxy.Upstream) // a write in flight cannot hold it up
	r.sess.WriteInput([]byte("burst 3000\n"))
	r.cancel()
	if err := r.wait(t); !errors.Is(err, context.Canceled) {
		t.Fatalf("RunHost = %v, want context.Canceled", err)
	}
	r.proxy.Release(faultproxy.Upstream)
	// TestMain's goleak check covers the goroutines RunHost started.
}

func TestAStalledRelayNeverBlocksTheSession(t *testing.T) {
	// A small ring, so that the carrier falls off it while the relay is
	// stalled and has to re-anchor.
	// The viewer reads nothing (so answers no ping) while the session
	// runs, which takes longer than fastRelay's 5 s silence on a busy
	// machine: the relay must not close it as silent meanwhile.
	rcfg := fastRelay()
	rcfg.SilenceTimeout = 10 * watchdog // the wait for the session below
	r := newRig(t, "lines", rcfg, func(s *ptyhost.Spec) { s.RingBytes = 256 << 10 })
	cfg := r.config()
	cfg.FinalScreenWindow = time.Minute // the window outlasts the stall
	r.start(t, cfg)
	v := r.join(t, attachwire.RoleViewer, "watcher", attachwire.Subscribe{})
	v.until(t, "the child's first line", v.sees("ready"))
	r.proxy.Stall(faultproxy.Upstream)
	r.sess.WriteInput([]byte("burst 60000\nexit 5\n")) // about 5 MiB
	select {
	case <-r.sess.Done(): // the session ran to its end with the carrier stuck
	case <-time.After(10 * watchdog):
		t.Fatalf("the session did not finish while the relay was stalled (proxy %+v)", r.proxy.Stats())
	}
	r.proxy.Release(faultproxy.Upstream)
	_, head, _ := r.sess.Snapshot()
	v.untilWithin(t, "the end of the session", 3*watchdog, func(v *view) bool {
		if v.exit != nil {
			return true
		}
		for _, f := range v.frames {
			if f.Type == attachwire.TypeSnapshot && atSeq(t, f) == head {
				return true
			}
		}
		return false
	})
	if v.exit != nil && v.exit.Code != 5 {
		t.Fatalf("exit code %d, want 5", v.exit.Code)
	}
	checkContiguous(t, v.frames)
}

func TestCancelDuringBackoffReturnsPromptly(t *testing.T) {
	r := newRig(t, "lines", fastRelay())
	r.proxy.RefuseNext(1 << 20) // the relay is unreachable
	cfg := r.config()
	cfg.BackoffMin, cfg.BackoffMax = time.Hour, time.Hour // parked in a wait
	r.start(t, cfg)
	r.waitDials(t, 1)
	r.cancel()
	if err := r.wait(t); !errors.Is(err, context.Canceled) {
		t.Fatalf("RunHost = %v, want context.Canceled", err)
	}
}

// The relay's kill (Relay.Kill, what an operator's control plane calls)
// reaches the host through the real relay; the default Kill hook stops
// the session, which ends the child's whole process group (here a
// grandchild that ignores SIGHUP and SIGTERM and dies only of the
// group's SIGKILL), and the viewer gets the Exit.
func TestKillEndsTheProcessGroupAndTheViewerSeesExit(t *testing.T) {
	r := newRig(t, "group", fastRelay())
	r.start(t, r.config())
	v := r.join(t, attachwire.RoleViewer, "watcher", attachwire.Subscribe{})
	v.until(t, "the grandchild's pid", v.sees("ready"))
	m := regexp.MustCompile(`GRANDCHILD (\d+)`).FindStringSubmatch(v.text.String())
	if m == nil {
		t.Fatalf("no grandchild: %q", v.text.String())
	}
	grandchild, _ := strconv.Atoi(m[1])
	if !alive(grandchild) {
		t.Fatalf("grandchild %d is not running before the kill", grandchild)
	}
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	delivered, err := r.srv.Load().Relay.Kill(ctx, relaytest.DefaultOrg, r.room, attachwire.KillStopped, "SIGTERM")
	if err != nil || !delivered {
		t.Fatalf("Relay.Kill = %v, %v; want delivered", delivered, err)
	}
	v.until(t, "Exit", func(v *view) bool { return v.exit != nil })
	if v.exit.Signal == "" {
		t.Fatalf("Exit %+v: want death by a signal", *v.exit)
	}
	deadline := time.Now().Add(watchdog)
	for alive(grandchild) {
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %d of the killed session is still running", grandchild)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := r.wait(t); err != nil {
		t.Fatalf("RunHost = %v, want nil after the window", err)
	}
}

// alive reports whether pid runs: it exists and is not a zombie (a dead
// process not yet reaped by whoever inherited it).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) == nil // no /proc: existence only
	}
	// The state follows the command name's closing parenthesis.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || (s[i+2] != 'Z' && s[i+2] != 'X')
}

// TestABlackHoledPathIsNoticedAndRedialled: with both directions of the
// path stalled (nothing closed, as a black hole does), the host notices
// within its silence timeout and redials instead of waiting for TCP to
// give up; once the path is back, viewers see the session go on.
func TestABlackHoledPathIsNoticedAndRedialled(t *testing.T) {
	rcfg := fastRelay()
	rcfg.SilenceTimeout = 10 * watchdog // the relay's side is not under test
	r := newRig(t, "lines", rcfg)
	cfg := r.config()
	cfg.PingInterval, cfg.SilenceTimeout = 50*time.Millisecond, 300*time.Millisecond
	r.start(t, cfg)
	v := r.join(t, attachwire.RoleViewer, "watcher", attachwire.Subscribe{})
	v.until(t, "the child's first line", v.sees("ready"))
	r.waitDials(t, 1)
	r.proxy.Stall(faultproxy.Upstream)
	r.proxy.Stall(faultproxy.Downstream)
	r.waitDials(t, 2) // the host gave up on the silent leg and dialled again
	r.proxy.Release(faultproxy.Upstream)
	r.proxy.Release(faultproxy.Downstream)
	r.sess.WriteInput([]byte("say after the black hole\n"))
	v.until(t, "output after the path came back", v.sees("after the black hole"))
	r.sess.WriteInput([]byte("exit 0\n"))
	v.until(t, "Exit", func(v *view) bool { return v.exit != nil })
}

// TestARelayDownIsNotABrokenPath: dials refused because nothing listens
// (a relay restarting) do not move the host to the degraded lane, which
// would meet the same absent relay and then hold the host on the lane.
func TestARelayDownIsNotABrokenPath(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var logs testkit.Buffer
	r := newRig(t, "lines", fastRelay())
	cfg := r.config()
	cfg.AttachURL = "ws://" + addr + "/v1/rooms/" + r.room
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	cfg.LaneFallbackAfter = 2
	cfg.BackoffMax = 20 * time.Millisecond
	r.start(t, cfg)
	testkit.Eventually(t, "six refused dials", func() bool {
		return strings.Count(logs.String(), "host leg failed; redialling") >= 6
	})
	if strings.Contains(logs.String(), "degraded lane") {
		t.Fatalf("refused dials moved the host to the degraded lane:\n%s", logs.String())
	}
}
