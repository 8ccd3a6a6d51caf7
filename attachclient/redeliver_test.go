package attachclient_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/agent"
	"github.com/ptyhost/ptyhost/attachclient"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/faultproxy"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relaytest"
)

// keyEvery is the typing pace of the redelivery tests: a key every 20 ms,
// as a fast typist.
const keyEvery = 20 * time.Millisecond

// recordingSession records every write that reaches the child: the host's
// side of "no keystroke lost or doubled".
type recordingSession struct {
	agent.InteractiveSession
	mu     sync.Mutex
	writes []string
}

func (s *recordingSession) WriteInput(p []byte) (int, error) {
	s.mu.Lock()
	s.writes = append(s.writes, string(p))
	s.mu.Unlock()
	return s.InteractiveSession.WriteInput(p)
}

// keys returns the writes that are typist keys ("k0001\n"), in order.
func (s *recordingSession) keys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ks []string
	for _, w := range s.writes {
		if strings.HasPrefix(w, "k") {
			ks = append(ks, w)
		}
	}
	return ks
}

// key is the data of the typist's inputSeq i.
func key(i uint64) string { return fmt.Sprintf("k%04d\n", i) }

// typist sends one key every keyEvery from a driver leg, inputSeq from on,
// until stop; the test's cleanup joins it.
type typist struct {
	sent chan uint64 // each inputSeq once sent
	stop chan struct{}
	done chan struct{}
	last uint64 // set when done is closed
	err  error
}

func startTypist(t *testing.T, d *view, pen, from uint64) *typist {
	t.Helper()
	ty := &typist{sent: make(chan uint64, 1<<12), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(ty.done)
		tick := time.NewTicker(keyEvery)
		defer tick.Stop()
		for i := from; ; i++ {
			f := attachwire.Input{InputSeq: i, PenGeneration: pen, Data: []byte(key(i))}.Frame(0, 0)
			ctx, cancel := context.WithTimeout(context.Background(), watchdog)
			ty.err = d.c.Send(ctx, f)
			cancel()
			if ty.err != nil {
				return
			}
			ty.last = i
			ty.sent <- i
			select {
			case <-tick.C:
			case <-ty.stop:
				return
			}
		}
	}()
	t.Cleanup(func() { ty.halt(t) })
	return ty
}

// halt stops the typist and returns the last inputSeq it sent.
func (ty *typist) halt(t *testing.T) uint64 {
	t.Helper()
	select {
	case <-ty.stop:
	default:
		close(ty.stop)
	}
	<-ty.done
	if ty.err != nil {
		t.Fatalf("typist: %v", ty.err)
	}
	return ty.last
}

// waitKeys waits until the typist has sent n more keys.
func (ty *typist) waitKeys(t *testing.T, n int) {
	t.Helper()
	deadline := time.After(watchdog)
	for range n {
		select {
		case <-ty.sent:
		case <-deadline:
			t.Fatalf("the typist stalled")
		}
	}
}

// checkTyped fails the test unless the child got the keys from..to once
// each, in order, and nothing else of the typist's.
func checkTyped(t *testing.T, rec *recordingSession, from, to uint64) {
	t.Helper()
	got := rec.keys()
	want := make([]string, 0, to-from+1)
	for i := from; i <= to; i++ {
		want = append(want, key(i))
	}
	if strings.Join(got, "") == strings.Join(want, "") {
		return
	}
	count := make(map[string]int)
	for _, k := range got {
		count[k]++
	}
	var lost, doubled []string
	for _, k := range want {
		switch n := count[k]; {
		case n == 0:
			lost = append(lost, strings.TrimSpace(k))
		case n > 1:
			doubled = append(doubled, strings.TrimSpace(k))
		}
	}
	t.Fatalf("the child got %d keys for %d typed: lost %v, doubled %v (order: %q)", len(got), len(want), lost, doubled, got)
}

// carried wraps the rig's session in a recordingSession and returns it
// with the rig's HostConfig carrying it.
func carried(r *rig) (*recordingSession, attachclient.HostConfig) {
	rec := &recordingSession{InteractiveSession: r.sess.Agent()}
	cfg := r.config()
	cfg.Session = rec
	return rec, cfg
}

// metric reads one counter or gauge from the relay's /metrics.
func metric(t *testing.T, srv *relaytest.Server, name string) float64 {
	t.Helper()
	_, body := srv.Get(t, "/metrics")
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("metric %s: %v", name, err)
			}
			return f
		}
	}
	t.Fatalf("metric %s not served", name)
	return 0
}

// TestLaneUpgradeMidTypingLosesAndDoublesNoKey: a driver types a key every
// 20 ms while its host moves from the lane back to WebSocket, three times
// (WebSocket refused and the host's socket cut sends it down again); what
// the relay had written to the lane leg and the host never read is
// replayed on the WebSocket leg, and what it had read is not typed twice.
func TestLaneUpgradeMidTypingLosesAndDoublesNoKey(t *testing.T) {
	r := newRig(t, "lines", fastRelay())
	r.proxy.RefuseUpgrades(true)
	rec, cfg := carried(r)
	cfg.UpgradeProbeInterval = laneProbe
	r.start(t, cfg)

	d := r.join(t, attachwire.RoleDriver, "alice", attachwire.Subscribe{Viewport: &attachwire.Viewport{Cols: 100, Rows: 30}})
	d.until(t, "the child's first line over the lane", d.sees("ready"))
	d.until(t, "room_state degraded", roomState(attachwire.RoomDegraded, 0))
	ty := startTypist(t, d, d.pen(t), 1)
	for switches := 1; switches <= 3; switches++ {
		if switches > 1 {
			mark := len(d.controls)
			r.proxy.RefuseUpgrades(true)
			testkit.Eventually(t, "the host's WebSocket cut", func() bool { return r.proxy.CutAfter(faultproxy.Downstream, 0) > 0 })
			d.until(t, "room_state degraded again", roomState(attachwire.RoomDegraded, mark))
		}
		ty.waitKeys(t, 5)
		mark := len(d.controls)
		r.proxy.RefuseUpgrades(false)
		d.until(t, "room_state live after the upgrade", roomState(attachwire.RoomLive, mark))
		ty.waitKeys(t, 5) // typing goes on across the switch and after
	}
	last := ty.halt(t)
	d.until(t, "the echo of the last key", d.sees(fmt.Sprintf("GOT<%s>", strings.TrimSpace(key(last)))))
	checkTyped(t, rec, 1, last)
	if s := metric(t, r.srv.Load(), "ptyhost_relay_inputs_unreplayed_total"); s != 0 {
		t.Fatalf("%v inputs unreplayed", s)
	}
}

// TestWebSocketHostCutMidTypingLosesAndDoublesNoKey: the host's WebSocket
// is cut (relay → host) five times while a driver types; each time the
// host redials with the same epoch and the relay replays what the dead
// leg took.
func TestWebSocketHostCutMidTypingLosesAndDoublesNoKey(t *testing.T) {
	r := newRig(t, "lines", fastRelay())
	rec, cfg := carried(r)
	r.start(t, cfg)
	d := r.join(t, attachwire.RoleDriver, "alice", attachwire.Subscribe{Viewport: &attachwire.Viewport{Cols: 100, Rows: 30}})
	d.until(t, "the child's first line", d.sees("ready"))
	r.waitDials(t, 1)
	ty := startTypist(t, d, d.pen(t), 1)
	for cut := 1; cut <= 5; cut++ {
		ty.waitKeys(t, 5)
		// Between a cut and the redial (or while an epoch-stale refusal
		// of a redial that came too early is answered) there is no
		// connection to cut yet.
		testkit.Eventually(t, fmt.Sprintf("cut %d", cut), func() bool { return r.proxy.CutAfter(faultproxy.Downstream, 0) == 1 })
	}
	ty.waitKeys(t, 5)
	last := ty.halt(t)
	d.until(t, "the echo of the last key", d.sees(fmt.Sprintf("GOT<%s>", strings.TrimSpace(key(last)))))
	checkTyped(t, rec, 1, last)
}

// TestRelayRestartDoesNotReuseInputTriples: a relay that restarts starts
// inputSeq over for a driver's new connection; its penGeneration must not
// start over too, or the host, which dedups on every carrier, would take
// the fresh keys for ones it has seen.
func TestRelayRestartDoesNotReuseInputTriples(t *testing.T) {
	r := newRig(t, "lines", fastRelay())
	rec, cfg := carried(r)
	r.start(t, cfg)
	d := r.join(t, attachwire.RoleDriver, "alice", attachwire.Subscribe{})
	d.until(t, "the child's first line", d.sees("ready"))
	pen := d.pen(t)
	for i := uint64(1); i <= 5; i++ {
		if err := d.c.Send(context.Background(), attachwire.Input{InputSeq: i, PenGeneration: pen, Data: []byte(key(i))}.Frame(0, 0)); err != nil {
			t.Fatal(err)
		}
	}
	d.until(t, "the echo of key 5", d.sees("GOT<k0005>"))

	old := r.srv.Load()
	old.Close()
	srv := relaytest.NewServer(t, fastRelay())
	r.srv.Store(srv)
	r.proxy.SetTarget(strings.TrimPrefix(srv.URL, "ws://"))
	r.waitDials(t, 2)
	d2 := r.join(t, attachwire.RoleDriver, "alice", attachwire.Subscribe{})
	pen2 := d2.pen(t)
	if pen2 <= pen {
		t.Fatalf("penGeneration %d after the restart, want above %d", pen2, pen)
	}
	// The same inputSeqs again, on the new relay: new keystrokes.
	for i := uint64(1); i <= 5; i++ {
		in := attachwire.Input{InputSeq: i, PenGeneration: pen2, Data: []byte(key(i + 5))}
		if err := d2.c.Send(context.Background(), in.Frame(0, 0)); err != nil {
			t.Fatal(err)
		}
	}
	d2.until(t, "the echo of key 10", d2.sees("GOT<k0010>"))
	checkTyped(t, rec, 1, 10)
}

// TestPeerDedupsWebSocketInputOnlyWhenTheRelayAnswers: the host declares
// Attach-Input-Dedup on every dial; over WebSocket it drops a repeated
// (userId, penGeneration, inputSeq) only when the relay answered the
// header. A relay that does not may reuse a triple for a fresh key (after
// its restart), which must then be typed.
func TestPeerDedupsWebSocketInputOnlyWhenTheRelayAnswers(t *testing.T) {
	for _, answer := range []bool{false, true} {
		t.Run(fmt.Sprintf("answered=%v", answer), func(t *testing.T) {
			p := newPeer(t, false)
			p.answerDedup.Store(answer)
			sess := spawn(t, "lines", 1)
			runHost(t, p.config(attachclient.HostConfig{TokenSource: staticToken(peerRoom, 1, nil), Session: sess.Agent()}))
			l := p.leg(t)
			if l.dedup != "any-carrier" {
				t.Fatalf("the host's dial declared Attach-Input-Dedup %q, want any-carrier", l.dedup)
			}
			l.until(t, "ready", outputHas("ready"))
			same := attachwire.Input{InputSeq: 1, PenGeneration: 5, UserID: "alice", Data: []byte("one\n")}.Frame(0, 0)
			l.send(t, same)
			l.send(t, same)
			l.send(t, attachwire.Input{InputSeq: 2, PenGeneration: 5, UserID: "alice", Data: []byte("two\n")}.Frame(0, 0))
			l.until(t, "the last line", outputHas("GOT<two>"))
			n := 0
			for _, f := range l.snapshot() {
				if f.Type == attachwire.TypeOutput {
					n += strings.Count(string(f.Payload), "GOT<one>")
				}
			}
			if want := map[bool]int{false: 2, true: 1}[answer]; n != want {
				t.Fatalf("the repeated key was typed %d times, want %d", n, want)
			}
		})
	}
}
