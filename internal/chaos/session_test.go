package chaos

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/attachclient"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
	"github.com/ptyhost/ptyhost/viewer"
)

// host is a session under a PTY carried to a relay by attachclient.RunHost
// in this process: 'ptyhost share --relay' takes only one relay URL and
// needs a terminal, and the suite needs the host's emulator to compare
// the viewers' screens with.
type host struct {
	sess   *ptyhost.Session
	result chan error
	cancel context.CancelFunc
}

// hostOptions adjust a host before it starts.
type hostOptions struct {
	cols, rows int
	spec       func(*ptyhost.Spec)
}

// ticker prints a numbered line every 50 ms, n times: a steady stream
// whose pauses are the gaps a viewer sees.
func ticker(n int) []string {
	return []string{"env", fmt.Sprintf("%s=%d", tickerEnv, n), os.Args[0], "-test.run=^$"}
}

// firehose prints size bytes of random data as base64 lines, as fast as
// the host takes them.
func firehose(size string) []string {
	return []string{"sh", "-c", "head -c " + size + " /dev/urandom | base64"}
}

// startHost spawns command in room and carries it to url (called before
// every dial, so a test may move the host) until the session has ended
// and its final screen was served a while.
func startHost(t testing.TB, k *keys, url func() string, room string, command []string, o hostOptions) *host {
	t.Helper()
	const epoch = 1
	spec := ptyhost.Spec{Command: command, Epoch: epoch, Cols: o.cols, Rows: o.rows}
	if o.spec != nil {
		o.spec(&spec)
	}
	sess, err := ptyhost.Spawn(spec)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &host{sess: sess, result: make(chan error, 1), cancel: cancel}
	cfg := attachclient.HostConfig{
		AttachURL: url(),
		TokenSource: func(context.Context) (string, error) {
			return k.mint(room, attachwire.RoleHost, "", epoch)
		},
		Session:           sess.Agent(),
		Logger:            logger().With("leg", "host"),
		BackoffMin:        50 * time.Millisecond,
		BackoffMax:        time.Second,
		FinalScreenWindow: 5 * time.Minute,
	}
	go func() { h.result <- attachclient.RunHost(ctx, cfg) }()
	t.Cleanup(func() {
		cancel()
		<-h.result
		stop, done := context.WithTimeout(context.Background(), patience)
		defer done()
		sess.Stop(stop)
	})
	return h
}

// waitExit waits for the session's program to exit.
func (h *host) waitExit(t testing.TB) attachwire.Exit {
	t.Helper()
	select {
	case <-h.sess.Done():
	case <-time.After(10 * time.Minute):
		t.Fatal("the host's program did not exit")
	}
	ex, _ := h.sess.Exit()
	return ex
}

// screen is the host emulator's screen.
func (h *host) screen(t testing.TB) attachwire.Screen {
	t.Helper()
	scr, _, err := h.sess.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	return scr
}

// watcher is a viewer.Client and what it saw: the longest time without a
// frame, the snapshots that bridged gaps, the frames they replaced.
type watcher struct {
	name string
	c    *viewer.Client

	mu       sync.Mutex
	start    time.Time
	last     time.Time     // the last frame or snapshot
	gap      time.Duration // the longest wait between two of them
	gapSnap  bool          // whether a snapshot ended that wait
	snaps    int           // snapshots after the first view
	skipped  uint64        // frames a snapshot replaced
	seq      uint64        // the last seq applied
	drops    int           // legs that went down
	notices  []string
	exit     *attachwire.Exit
	first    bool // the first snapshot or frame arrived
	outBytes int64
}

// dialer is how a watcher reaches the relay; nil: the default.
type watchOptions struct {
	localAddr string // the client address to dial from ("127.0.0.2")
	role      attachwire.Role
	key       *seal.Key // a sealed room's key; nil: a plain room
}

func watch(t testing.TB, k *keys, name, url, room string, o watchOptions) *watcher {
	t.Helper()
	w := &watcher{name: name, start: time.Now()}
	role := o.role
	if role == "" {
		role = attachwire.RoleViewer
	}
	tok, err := k.mint(room, role, name, 0)
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	if o.localAddr != "" {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(o.localAddr)}, Timeout: 10 * time.Second}
		tr.DialContext = d.DialContext
	}
	t.Cleanup(tr.CloseIdleConnections)
	c, err := viewer.Dial(waitCtx(t), viewer.Config{
		URL:        url,
		Token:      tok,
		Role:       role,
		Viewport:   attachwire.Viewport{Cols: 80, Rows: 24},
		BackoffMin: 50 * time.Millisecond,
		BackoffMax: time.Second,
		HTTPClient: &http.Client{Transport: tr},
		OnEvent:    w.event,
		Key:        o.key,
	})
	if err != nil {
		t.Fatalf("viewer %s: %v", name, err)
	}
	w.c = c
	t.Cleanup(func() { c.Close() })
	return w
}

func (w *watcher) event(ev viewer.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := time.Now()
	frame := false
	switch ev.Kind {
	case viewer.EventSnapshot:
		if w.first {
			w.snaps++
			if ev.Seq > w.seq {
				w.skipped += ev.Seq - w.seq
			}
		}
		frame = true
	case viewer.EventOutput, viewer.EventResize, viewer.EventMarker, viewer.EventExit:
		frame = true
		w.outBytes += int64(len(ev.Data))
	case viewer.EventConnection:
		if !ev.Connected {
			w.drops++
			if w.drops <= 3 {
				w.notices = append(w.notices, fmt.Sprintf("leg down: %v", ev.Err))
			}
		}
	case viewer.EventNotice:
		w.notices = append(w.notices, fmt.Sprintf("%s: %s", ev.Code, ev.Text))
	case viewer.EventRoom:
		w.notices = append(w.notices, "room "+string(ev.Room))
	}
	if !frame {
		return
	}
	if w.first {
		if d := now.Sub(w.last); d > w.gap {
			w.gap, w.gapSnap = d, ev.Kind == viewer.EventSnapshot
		}
	}
	w.first, w.last = true, now
	if ev.Seq > w.seq {
		w.seq = ev.Seq
	}
	if ev.Kind == viewer.EventExit {
		ex := ev.Exit
		w.exit = &ex
	}
}

// awaitBytes waits until the viewer has been sent n bytes of output.
func (w *watcher) awaitBytes(t testing.TB, n int64) {
	t.Helper()
	w.until(t, fmt.Sprintf("%d bytes", n), func() bool { return w.outBytes >= n })
}

// awaitSeq waits until the viewer has applied seq or beyond.
func (w *watcher) awaitSeq(t testing.TB, seq uint64) {
	t.Helper()
	w.until(t, fmt.Sprintf("seq %d", seq), func() bool { return w.seq >= seq })
}

// until waits for cond, called under the watcher's lock.
func (w *watcher) until(t testing.TB, what string, cond func() bool) {
	t.Helper()
	eventually(t, "viewer "+w.name+" to reach "+what, func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return cond()
	})
}

// resetGap forgets the gaps seen so far, so that the next one measured is
// the fault's.
func (w *watcher) resetGap() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.gap, w.gapSnap, w.snaps, w.skipped, w.drops = 0, false, 0, 0, 0
}

// finish waits for the Exit and checks the viewer's final screen against
// the host's: the outcome every case asserts. It returns the figures.
func (w *watcher) finish(t testing.TB, h *host, want attachwire.Exit) figures {
	t.Helper()
	select {
	case <-w.c.Done():
	case <-time.After(patience):
		w.mu.Lock()
		seq, notes := w.seq, w.notices
		w.mu.Unlock()
		t.Fatalf("viewer %s: no Exit (at seq %d, room %q, notices %q)", w.name, seq, w.c.Room(), notes)
	}
	if err := w.c.Err(); err != nil {
		t.Fatalf("viewer %s ended with %v", w.name, err)
	}
	w.mu.Lock()
	f := figures{viewer: w.name, gap: w.gap, bridged: w.gapSnap, snaps: w.snaps, skipped: w.skipped, drops: w.drops}
	exit := w.exit
	w.mu.Unlock()
	if exit == nil {
		t.Fatalf("viewer %s: the Exit was not delivered", w.name)
	}
	if exit.Code != want.Code {
		t.Fatalf("viewer %s: Exit code %d, want %d", w.name, exit.Code, want.Code)
	}
	f.exit = true
	got, _, ok := w.c.Mirror()
	if !ok {
		t.Fatalf("viewer %s has no screen", w.name)
	}
	hs := h.screen(t)
	if diff := screenDiff(&got, &hs); diff != "" {
		t.Fatalf("viewer %s: final screen differs from the host's: %s", w.name, diff)
	}
	f.screenEqual = true
	return f
}

// screenDiff describes the first difference between two screens' visible
// text and cursor, or returns "".
func screenDiff(a, b *attachwire.Screen) string {
	if a.Cols != b.Cols || a.Rows != b.Rows {
		return fmt.Sprintf("size %dx%d, host %dx%d", a.Cols, a.Rows, b.Cols, b.Rows)
	}
	if a.CursorRow != b.CursorRow || a.CursorCol != b.CursorCol {
		return fmt.Sprintf("cursor %d,%d, host %d,%d", a.CursorRow, a.CursorCol, b.CursorRow, b.CursorCol)
	}
	ga, gb := a.Primary, b.Primary
	if a.Active != attachwire.BufferPrimary {
		ga, gb = a.Alt, b.Alt
	}
	for r := range a.Rows {
		var ra, rb strings.Builder
		for c := range a.Cols {
			ra.WriteString(ga[r*a.Cols+c].Content)
			rb.WriteString(gb[r*b.Cols+c].Content)
		}
		if ra.String() != rb.String() {
			return fmt.Sprintf("row %d is %q, host %q", r, ra.String(), rb.String())
		}
	}
	return ""
}

// figures are what a case reports for one viewer.
type figures struct {
	viewer      string
	gap         time.Duration // the longest time the viewer saw nothing
	bridged     bool          // a snapshot ended that gap
	snaps       int           // snapshots after the first view
	skipped     uint64        // frames those snapshots replaced
	drops       int           // the viewer's legs that went down
	screenEqual bool
	exit        bool
}

func (f figures) String() string {
	return fmt.Sprintf("viewer %s: gap %.1fs bridged-by-snapshot %v snapshots %d frames-replaced %d drops %d final-screen-equal %v exit %v",
		f.viewer, f.gap.Seconds(), f.bridged, f.snaps, f.skipped, f.drops, f.screenEqual, f.exit)
}

// report logs a case's summary line.
func report(t testing.TB, format string, args ...any) {
	t.Helper()
	t.Logf("chaos: %s: %s (load %s)", t.Name(), fmt.Sprintf(format, args...), loadavg())
}
