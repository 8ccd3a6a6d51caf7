package attachclient_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachclient"
	"github.com/ptyhost/ptyhost/attachwire"
)

// The tests in this file run RunHost against the test peer (peer_test.go)
// for what the real relay never sends a host.

const peerRoom = "peer-room"

func TestPeerSubscribeCarriesTheTokensSessionAndEpoch(t *testing.T) {
	p := newPeer(t, false)
	sess := spawn(t, "lines", 5)
	var calls int64
	runHost(t, p.config(attachclient.HostConfig{TokenSource: staticToken(peerRoom, 5, &calls), Session: sess.Agent()}))
	l := p.leg(t)
	if l.subErr != nil {
		t.Fatal(l.subErr)
	}
	s := l.sub
	if s.SessionID != peerRoom || s.AsRole != attachwire.RoleHost || s.Epoch == nil || *s.Epoch != 5 || s.ResumeFrom != nil {
		t.Fatalf("subscribe %+v", s)
	}
	if l.auth != "Bearer "+fakeJWT(peerRoom, 5) {
		t.Fatalf("Authorization %q", l.auth)
	}
	// The first attach streams the session's ring from its first frame.
	first := l.until(t, "a frame", func(attachwire.Frame) bool { return true })
	if first.Seq != 1 {
		t.Fatalf("first frame seq %d, want 1", first.Seq)
	}
}

func TestPeerUnstampedInputIsDropped(t *testing.T) {
	p := newPeer(t, false)
	sess := spawn(t, "lines", 1)
	runHost(t, p.config(attachclient.HostConfig{TokenSource: staticToken(peerRoom, 1, nil), Session: sess.Agent()}))
	l := p.leg(t)
	l.until(t, "ready", outputHas("ready"))
	l.send(t, attachwire.Input{InputSeq: 1, Data: []byte("unstamped\n")}.Frame(0, 0))
	l.send(t, attachwire.Input{InputSeq: 2, UserID: "alice", Data: []byte("stamped\n")}.Frame(0, 0))
	l.until(t, "the stamped line", outputHas("GOT<stamped>"))
	for _, f := range l.snapshot() {
		if f.Type == attachwire.TypeOutput && contains(f.Payload, "unstamped") {
			t.Fatalf("unstamped input reached the child: %q", f.Payload)
		}
	}
}

func TestPeerResizeVerbatimAndZeroIsFraming(t *testing.T) {
	p := newPeer(t, false)
	sess := spawn(t, "lines", 1)
	runHost(t, p.config(attachclient.HostConfig{TokenSource: staticToken(peerRoom, 1, nil), Session: sess.Agent()}))
	l := p.leg(t)
	l.until(t, "ready", outputHas("ready"))
	resizeTo := func(cols, rows uint32) func(attachwire.Frame) bool {
		return func(f attachwire.Frame) bool {
			if f.Type != attachwire.TypeResize {
				return false
			}
			r, err := attachwire.DecodeResize(f.Payload)
			return err == nil && r.Cols == cols && r.Rows == rows
		}
	}
	big, err := attachwire.Resize{Cols: 5000, Rows: 5000}.Frame(0, 0) // beyond the session's limits
	if err != nil {
		t.Fatal(err)
	}
	l.send(t, big)
	ok, err := attachwire.Resize{Cols: 123, Rows: 45, PxWidth: 1230, PxHeight: 900}.Frame(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	l.send(t, ok)
	echo := l.until(t, "the applied resize", resizeTo(123, 45))
	if r, _ := attachwire.DecodeResize(echo.Payload); r.PxWidth != 1230 || r.PxHeight != 900 {
		t.Fatalf("applied %+v, want the pixel size verbatim", r)
	}
	for _, f := range l.snapshot() {
		if resizeTo(5000, 5000)(f) {
			t.Fatal("a size beyond the session's limits was applied")
		}
	}
	// cols 0: the payload is built by hand, as the encoder refuses it.
	l.send(t, attachwire.Frame{Type: attachwire.TypeResize, Payload: []byte{0, 24, 0, 0}})
	var ce websocket.CloseError
	if err := l.waitEnd(t); !errors.As(err, &ce) || ce.Code != websocket.StatusProtocolError {
		t.Fatalf("leg ended with %v, want close 1002", err)
	}
	ctl := lastError(t, l)
	if ctl == nil || ctl.Code != attachwire.CodeFraming {
		t.Fatalf("host sent %v before closing, want error framing", ctl)
	}
	p.leg(t) // and it redials
}

// lastError returns the last error control the host sent on l.
func lastError(t testing.TB, l *peerLeg) *attachwire.ErrorControl {
	t.Helper()
	var last *attachwire.ErrorControl
	for _, f := range l.snapshot() {
		if f.Type != attachwire.TypeControl {
			continue
		}
		if c, err := attachwire.DecodeControl(f.Payload); err == nil {
			if e, ok := c.(attachwire.ErrorControl); ok {
				last = &e
			}
		}
	}
	return last
}

func TestPeerTextMessageAndBadFrameCloseTheLeg(t *testing.T) {
	p := newPeer(t, false)
	sess := spawn(t, "lines", 1)
	res, _ := runHost(t, p.config(attachclient.HostConfig{TokenSource: staticToken(peerRoom, 1, nil), Session: sess.Agent()}))
	for _, tc := range []struct {
		name string
		send func(*peerLeg)
		code websocket.StatusCode
	}{
		{"text", func(l *peerLeg) {
			l.ws.Write(context.Background(), websocket.MessageText, []byte("hello"))
		}, websocket.StatusUnsupportedData},
		{"reserved type", func(l *peerLeg) {
			l.ws.Write(context.Background(), websocket.MessageBinary, []byte{0x09, 0, 0})
		}, websocket.StatusProtocolError},
		{"truncated input", func(l *peerLeg) {
			l.send(t, attachwire.Frame{Type: attachwire.TypeInput, Payload: []byte{1, 1, 5, 'a'}})
		}, websocket.StatusProtocolError},
	} {
		l := p.leg(t)
		l.until(t, "a frame", func(attachwire.Frame) bool { return true })
		tc.send(l)
		var ce websocket.CloseError
		if err := l.waitEnd(t); !errors.As(err, &ce) || ce.Code != tc.code {
			t.Fatalf("%s: leg ended with %v, want close %d", tc.name, err, tc.code)
		}
		if ctl := lastError(t, l); ctl == nil || ctl.Code != attachwire.CodeFraming {
			t.Fatalf("%s: host sent %v before closing, want error framing", tc.name, ctl)
		}
	}
	p.leg(t) // still redialling: a framing error is not terminal
	select {
	case err := <-res:
		t.Fatalf("RunHost ended: %v", err)
	default:
	}
}

func TestPeerSnapshotRequestBeforeAndAfterExit(t *testing.T) {
	p := newPeer(t, false)
	sess := spawn(t, "lines", 1)
	res, _ := runHost(t, p.config(attachclient.HostConfig{TokenSource: staticToken(peerRoom, 1, nil), Session: sess.Agent()}))
	l := p.leg(t)
	l.until(t, "ready", outputHas("ready"))
	// A key frame for the relay's history: seq 0, beside the stream, at
	// the session's current seq.
	l.sendControl(t, attachwire.SnapshotRequest{Reason: attachwire.SnapshotKeyframe})
	key := l.until(t, "the key frame", func(f attachwire.Frame) bool { return f.Type == attachwire.TypeSnapshot })
	if key.Seq != 0 || atSeq(t, key) == 0 {
		t.Fatalf("key frame seq %d atSeq %d, want seq 0 at the session's seq", key.Seq, atSeq(t, key))
	}
	// Before Exit: a snapshot in the stream, seq S and atSeq S-1.
	l.sendControl(t, attachwire.SnapshotRequest{Reason: attachwire.SnapshotResync})
	live := l.until(t, "the in-stream snapshot", func(f attachwire.Frame) bool { return f.Type == attachwire.TypeSnapshot && f.Seq != 0 })
	if live.Seq == 0 || atSeq(t, live) != live.Seq-1 {
		t.Fatalf("in-stream snapshot seq %d atSeq %d", live.Seq, atSeq(t, live))
	}
	sess.WriteInput([]byte("exit 4\n"))
	exit := l.until(t, "Exit", func(f attachwire.Frame) bool { return f.Type == attachwire.TypeExit })
	// After Exit: seq 0, atSeq = the Exit's seq, sent directly.
	l.sendControl(t, attachwire.SnapshotRequest{Reason: attachwire.SnapshotJoin})
	final := l.until(t, "the post-Exit snapshot", func(f attachwire.Frame) bool {
		// (until reads from the leg's first frame: the key frame is seq 0 too.)
		return f.Type == attachwire.TypeSnapshot && f.Seq == 0 && atSeq(t, f) != atSeq(t, key)
	})
	if final.RelTime != 0 || atSeq(t, final) != exit.Seq {
		t.Fatalf("post-Exit snapshot rel_time %d atSeq %d, want 0 and %d", final.RelTime, atSeq(t, final), exit.Seq)
	}
	// At the end of the window: close 1000 and RunHost returns nil.
	var ce websocket.CloseError
	if err := l.waitEnd(t); !errors.As(err, &ce) || ce.Code != websocket.StatusNormalClosure || ce.Reason != "final-screen window elapsed" {
		t.Fatalf("leg ended with %v, want 1000 \"final-screen window elapsed\"", err)
	}
	if err := result(t, res); err != nil {
		t.Fatalf("RunHost = %v", err)
	}
}

func TestPeerKillRunsTheHookOnce(t *testing.T) {
	p := newPeer(t, false)
	sess := spawn(t, "lines", 1)
	var (
		mu    sync.Mutex
		calls []string
	)
	cfg := p.config(attachclient.HostConfig{TokenSource: staticToken(peerRoom, 1, nil), Session: sess.Agent()})
	cfg.Kill = func(ctx context.Context, reason attachwire.KillReason, signal string) error {
		mu.Lock()
		calls = append(calls, string(reason)+"/"+signal)
		mu.Unlock()
		return sess.Stop(ctx)
	}
	res, _ := runHost(t, cfg)
	l := p.leg(t)
	l.until(t, "ready", outputHas("ready"))
	l.sendControl(t, attachwire.Kill{Reason: attachwire.KillRevoked, Signal: "SIGTERM"})
	l.sendControl(t, attachwire.Kill{Reason: attachwire.KillQuota})
	l.until(t, "Exit", func(f attachwire.Frame) bool { return f.Type == attachwire.TypeExit })
	l.sendControl(t, attachwire.Kill{Reason: attachwire.KillStopped})
	if err := result(t, res); err != nil {
		t.Fatalf("RunHost = %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 1 || calls[0] != "revoked/SIGTERM" {
		t.Fatalf("Kill hook calls %q, want one revoked/SIGTERM", calls)
	}
}

func TestPeerDefaultKillStopsTheSession(t *testing.T) {
	p := newPeer(t, false)
	sess := spawn(t, "lines", 1)
	res, _ := runHost(t, p.config(attachclient.HostConfig{TokenSource: staticToken(peerRoom, 1, nil), Session: sess.Agent()}))
	l := p.leg(t)
	l.until(t, "ready", outputHas("ready"))
	l.sendControl(t, attachwire.Kill{Reason: attachwire.KillStopped})
	f := l.until(t, "Exit", func(f attachwire.Frame) bool { return f.Type == attachwire.TypeExit })
	ex, err := attachwire.DecodeExit(f.Payload)
	if err != nil || ex.Signal == "" {
		t.Fatalf("Exit %+v %v: want death by a signal", ex, err)
	}
	if err := result(t, res); err != nil {
		t.Fatalf("RunHost = %v", err)
	}
}

func TestPeerReconnectResumesFromTheHeadAndRingMissFromZero(t *testing.T) {
	p := newPeer(t, false)
	sess := spawn(t, "lines", 1)
	res, _ := runHost(t, p.config(attachclient.HostConfig{TokenSource: staticToken(peerRoom, 1, nil), Session: sess.Agent()}))
	l1 := p.leg(t)
	l1.until(t, "ready", outputHas("ready"))
	l1.sendControl(t, attachwire.RoomState{State: attachwire.RoomLive}) // admitted
	sess.WriteInput([]byte("one\n"))
	l1.until(t, "GOT<one>", outputHas("GOT<one>"))
	sent := l1.snapshot()
	head := sent[len(sent)-1].Seq
	l1.ws.CloseNow() // a dropped leg

	// A reconnect streams only what comes after the session's head.
	l2 := p.leg(t)
	sess.WriteInput([]byte("two\n"))
	l2.until(t, "GOT<two>", outputHas("GOT<two>"))
	if first := l2.snapshot()[0]; first.Seq <= head {
		t.Fatalf("reconnect replayed seq %d (head was %d)", first.Seq, head)
	}
	if l2.sub.ResumeFrom != nil {
		t.Fatalf("host subscribe carries resumeFrom %d", *l2.sub.ResumeFrom)
	}

	// ring-miss from the relay: never terminal, and the next attach
	// replays the session's ring from its start.
	l2.sendControl(t, attachwire.ErrorControl{Code: attachwire.CodeRingMiss, Message: "lost", Retryable: false})
	l3 := p.leg(t)
	first := l3.until(t, "a frame", func(attachwire.Frame) bool { return true })
	if first.Seq != 1 {
		t.Fatalf("after ring-miss the stream starts at seq %d, want 1", first.Seq)
	}
	l3.until(t, "the replayed GOT<one>", outputHas("GOT<one>"))
	select {
	case err := <-res:
		t.Fatalf("RunHost ended on ring-miss: %v", err)
	default:
	}
}

func TestPeerErrorControls(t *testing.T) {
	t.Run("retryable error is only logged", func(t *testing.T) {
		p := newPeer(t, false)
		sess := spawn(t, "lines", 1)
		runHost(t, p.config(attachclient.HostConfig{TokenSource: staticToken(peerRoom, 1, nil), Session: sess.Agent()}))
		l := p.leg(t)
		l.until(t, "ready", outputHas("ready"))
		l.sendControl(t, attachwire.ErrorControl{Code: attachwire.CodeInternal, Message: "hiccup", Retryable: true})
		sess.WriteInput([]byte("still here\n"))
		l.until(t, "output on the same leg", outputHas("GOT<still here>"))
	})
	t.Run("non-retryable error ends RunHost", func(t *testing.T) {
		p := newPeer(t, false)
		sess := spawn(t, "lines", 1)
		res, _ := runHost(t, p.config(attachclient.HostConfig{TokenSource: staticToken(peerRoom, 1, nil), Session: sess.Agent()}))
		l := p.leg(t)
		l.until(t, "ready", outputHas("ready"))
		want := attachwire.ErrorControl{Code: attachwire.CodeAuth, Message: "session revoked", Retryable: false}
		l.sendControl(t, want)
		err := result(t, res)
		var stop *attachclient.RelayStopError
		if !errors.As(err, &stop) || stop.Control != want {
			t.Fatalf("RunHost = %v, want *RelayStopError with %+v", err, want)
		}
		var ctl attachwire.ErrorControl
		if !errors.As(err, &ctl) || ctl.Code != attachwire.CodeAuth {
			t.Fatal("the RelayStopError does not unwrap to the control")
		}
	})
	t.Run("relay-restarting control waits the hint", func(t *testing.T) {
		p := newPeer(t, false)
		sess := spawn(t, "lines", 1)
		cfg := p.config(attachclient.HostConfig{TokenSource: staticToken(peerRoom, 1, nil), Session: sess.Agent()})
		cfg.BackoffMax = 5 * time.Second
		runHost(t, cfg)
		l := p.leg(t)
		l.until(t, "ready", outputHas("ready"))
		l.sendControl(t, attachwire.ErrorControl{Code: attachwire.CodeRelayRestarting, Message: "redial after 1s", Retryable: true})
		start := time.Now()
		p.leg(t)
		if since := time.Since(start); since < time.Second {
			t.Fatalf("redialled after %v, want at least the announced 1 s", since)
		}
	})
	t.Run("hint is clamped to BackoffMax", func(t *testing.T) {
		p := newPeer(t, false)
		sess := spawn(t, "lines", 1)
		cfg := p.config(attachclient.HostConfig{TokenSource: staticToken(peerRoom, 1, nil), Session: sess.Agent()})
		cfg.BackoffMax = 300 * time.Millisecond
		runHost(t, cfg)
		l := p.leg(t)
		l.until(t, "ready", outputHas("ready"))
		l.ws.Close(websocket.StatusServiceRestart, "relay-restarting: redial after 3600s")
		start := time.Now()
		p.leg(t)
		// Not a timing goal: an hour-long hint must not park the host (the
		// watchdog would fire first).
		t.Logf("redialled after %v with BackoffMax 300ms", time.Since(start))
	})
}

func TestPeerMissingSubprotocolEchoClosesTheLeg(t *testing.T) {
	p := newPeer(t, true)
	sess := spawn(t, "lines", 1)
	var calls int64
	runHost(t, p.config(attachclient.HostConfig{TokenSource: staticToken(peerRoom, 1, &calls), Session: sess.Agent()}))
	l := p.leg(t)
	var ce websocket.CloseError
	if !errors.As(l.subErr, &ce) || ce.Code != websocket.StatusProtocolError || ce.Reason != "version subprotocol not negotiated" {
		t.Fatalf("first read on the leg: %v, want close 1002", l.subErr)
	}
	p.leg(t) // an ordinary failure: it redials
}

func TestPeerFallingOffTheSessionRingResumesAtASnapshot(t *testing.T) {
	p := newPeer(t, false)
	sess := newFakeSession(3)
	sess.publish(0, "a", "b", "c")
	runHost(t, p.config(attachclient.HostConfig{TokenSource: staticToken(peerRoom, 3, nil), Session: sess}))
	l := p.leg(t)
	l.until(t, "seq 3", func(f attachwire.Frame) bool { return f.Seq == 3 })
	// Frames 4..8 are published and all but 8 evicted before the carrier
	// reads them: it has fallen off the ring.
	sess.publish(8, "d", "e", "f", "g", "h")
	snap := l.until(t, "the re-anchoring snapshot", func(f attachwire.Frame) bool { return f.Type == attachwire.TypeSnapshot })
	sess.publish(0, "after")
	l.until(t, "the output after it", outputHas("after"))
	var seqs []uint64
	for _, f := range l.snapshot() {
		if f.Type != attachwire.TypeControl {
			seqs = append(seqs, f.Seq)
		}
	}
	if got, want := seqs, []uint64{1, 2, 3, 9, 10}; !slices.Equal(got, want) || atSeq(t, snap) != 8 {
		t.Fatalf("host sent seqs %v (snapshot atSeq %d), want %v: a gap closed by a snapshot at 8", got, atSeq(t, snap), want)
	}
}

func TestPeerTokenSourceErrorsAreRetried(t *testing.T) {
	p := newPeer(t, false)
	sess := spawn(t, "lines", 1)
	var n atomic.Int64
	cfg := p.config(attachclient.HostConfig{Session: sess.Agent()})
	cfg.TokenSource = func(context.Context) (string, error) {
		if n.Add(1) <= 2 {
			return "", errors.New("platform unavailable")
		}
		return fakeJWT(peerRoom, 1), nil
	}
	runHost(t, cfg)
	l := p.leg(t)
	l.until(t, "ready", outputHas("ready"))
	if n.Load() != 3 {
		t.Fatalf("TokenSource called %d times, want 3 (two failures, one dial)", n.Load())
	}
}

func TestPeerBadTokenEndsRunHost(t *testing.T) {
	for _, tc := range []struct {
		name string
		toks []string
	}{
		{"not a JWT", []string{"garbage"}},
		{"viewer token", []string{"e30." + strings.TrimRight(b64url(`{"sessionId":"s","userId":"u"}`), "=") + ".c2ln"}},
		{"session changes", []string{fakeJWT(peerRoom, 1), fakeJWT("another", 1)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPeer(t, true) // no echo: every dial fails, so the token is asked again
			sess := spawn(t, "lines", 1)
			var i atomic.Int64
			cfg := p.config(attachclient.HostConfig{Session: sess.Agent()})
			cfg.TokenSource = func(context.Context) (string, error) {
				k := min(int(i.Add(1))-1, len(tc.toks)-1)
				return tc.toks[k], nil
			}
			res, _ := runHost(t, cfg)
			if err := result(t, res); !errors.Is(err, attachclient.ErrBadToken) {
				t.Fatalf("RunHost = %v, want ErrBadToken", err)
			}
		})
	}
}

func TestPeerEpochStaleBudgetResetsAfterAStableLeg(t *testing.T) {
	stale := attachwire.ErrorControl{Code: attachwire.CodeEpochStale, Message: "epoch 1 is stale", Retryable: true}
	for _, tc := range []struct {
		name  string
		dwell time.Duration // how long the admitted leg stays up
		reset bool
	}{
		{"stable leg clears the count", 1700 * time.Millisecond, true},
		{"short leg keeps it", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPeer(t, false)
			sess := spawn(t, "lines", 1)
			cfg := p.config(attachclient.HostConfig{TokenSource: staticToken(peerRoom, 1, nil), Session: sess.Agent()})
			cfg.EpochStaleMaxRetries = 2
			cfg.EpochStaleStableWindow = 1500 * time.Millisecond
			res, _ := runHost(t, cfg)
			refuse := func() {
				t.Helper()
				l := p.leg(t)
				l.sendControl(t, stale)
				l.waitEnd(t)
			}
			refuse()
			refuse() // the budget of 2 is used up
			l := p.leg(t)
			l.sendControl(t, attachwire.SnapshotRequest{Reason: attachwire.SnapshotResync}) // admitted
			l.until(t, "the snapshot answer", func(f attachwire.Frame) bool { return f.Type == attachwire.TypeSnapshot })
			time.Sleep(tc.dwell)
			l.ws.CloseNow()
			if !tc.reset {
				refuse()
				if err := result(t, res); !errors.Is(err, attachclient.ErrEpochStale) {
					t.Fatalf("RunHost = %v, want ErrEpochStale on the third refusal", err)
				}
				return
			}
			refuse()
			refuse()
			p.leg(t) // still dialling: the stable leg reset the budget
			select {
			case err := <-res:
				t.Fatalf("RunHost ended: %v", err)
			default:
			}
		})
	}
}

func TestPeerReconnectAfterExitResendsTheExitFrame(t *testing.T) {
	p := newPeer(t, false)
	sess := spawn(t, "hello", 1)
	cfg := p.config(attachclient.HostConfig{TokenSource: staticToken(peerRoom, 1, nil), Session: sess.Agent()})
	cfg.FinalScreenWindow = time.Minute
	runHost(t, cfg)
	l1 := p.leg(t)
	l1.sendControl(t, attachwire.RoomState{State: attachwire.RoomLive}) // admitted
	exit := l1.until(t, "Exit", func(f attachwire.Frame) bool { return f.Type == attachwire.TypeExit })
	l1.ws.CloseNow()
	// The relay may not have received it: the next leg carries it again,
	// and nothing before it.
	l2 := p.leg(t)
	again := l2.until(t, "Exit again", func(f attachwire.Frame) bool { return f.Type == attachwire.TypeExit })
	if again.Seq != exit.Seq || l2.snapshot()[0].Seq != exit.Seq {
		t.Fatalf("second leg sent seq %d first and Exit at %d, want only the Exit at %d", l2.snapshot()[0].Seq, again.Seq, exit.Seq)
	}
}
