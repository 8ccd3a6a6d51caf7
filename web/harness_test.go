package web_test

import (
	"context"
	"crypto/ed25519"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/token"
)

// requireToolsEnv turns a missing chromium into a failure (CI).
const requireToolsEnv = "PTYHOST_REQUIRE_TOOLS"

// testEpoch is the epoch of every test session.
const testEpoch = 7

// needBrowser returns chromium's path, or skips the test (fails it under
// PTYHOST_REQUIRE_TOOLS=1) without chromium. The bundle is committed, so
// a build without it is a failure (TestCommittedBundle says so), not a
// reason to skip.
func needBrowser(tb testing.TB) string {
	tb.Helper()
	skip := func(format string, args ...any) {
		tb.Helper()
		if os.Getenv(requireToolsEnv) == "1" {
			tb.Fatalf(format+" ("+requireToolsEnv+"=1)", args...)
		}
		tb.Skipf(format, args...)
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	skip("chromium not installed (apt-get install chromium)")
	return ""
}

// testRelay is a relay on a fixed loopback address that can be restarted
// in place, with the key that signs its tokens.
type testRelay struct {
	tb   testing.TB
	addr string
	key  ed25519.PrivateKey
	pub  ed25519.PublicKey

	// historyDir, when set before the first serve, keeps the rooms'
	// history (relay.Config.HistoryDir), key frames every 64 KiB.
	historyDir string
	// traffic, when set before the first serve, sees every request and
	// the relay's log (relaytraffic_test.go).
	traffic *relayTraffic

	mu    sync.Mutex
	extra http.Handler // paths under /bench/, when set
	rl    *relay.Relay
	srv   *http.Server
	done  chan struct{}
}

func startRelay(tb testing.TB) *testRelay { return startRelayWith(tb, "") }

// startRelayWith starts a relay keeping the rooms' history under
// historyDir ("" for none).
func startRelayWith(tb testing.TB, historyDir string) *testRelay {
	tb.Helper()
	return newTestRelay(tb, historyDir, nil)
}

// startRelayTraced is startRelayWith with what reaches the relay seen
// by traffic.
func startRelayTraced(tb testing.TB, historyDir string) (*testRelay, *relayTraffic) {
	tb.Helper()
	t := &relayTraffic{}
	return newTestRelay(tb, historyDir, t), t
}

func newTestRelay(tb testing.TB, historyDir string, traffic *relayTraffic) *testRelay {
	tb.Helper()
	pub, key, err := token.GenerateKey()
	if err != nil {
		tb.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	r := &testRelay{tb: tb, addr: ln.Addr().String(), key: key, pub: pub, historyDir: historyDir, traffic: traffic}
	r.serve(ln)
	tb.Cleanup(r.stop)
	return r
}

func (r *testRelay) serve(ln net.Listener) {
	r.tb.Helper()
	// Every leg of these tests dials from 127.0.0.1, the differential
	// test's hosts many a second: the per-address dial rate is raised.
	logger := slog.New(slog.DiscardHandler)
	if r.traffic != nil {
		logger = slog.New(slog.NewTextHandler(r.traffic, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	rl, err := relay.New(relay.Config{PublicKeys: []ed25519.PublicKey{r.pub}, PenCooldown: time.Millisecond,
		Logger: logger, HistoryDir: r.historyDir, KeyframeBytes: 64 << 10,
		DialsPerSecond: 1000})
	if err != nil {
		r.tb.Fatal(err)
	}
	route := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		extra := r.extra
		r.mu.Unlock()
		if extra != nil && strings.HasPrefix(req.URL.Path, "/bench/") {
			extra.ServeHTTP(w, req)
			return
		}
		if r.traffic != nil {
			r.traffic.serve(r.tb, w, req, rl)
			return
		}
		rl.ServeHTTP(w, req)
	})
	srv := &http.Server{Handler: route, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(ln)
	}()
	r.mu.Lock()
	r.rl, r.srv, r.done = rl, srv, done
	r.mu.Unlock()
}

func (r *testRelay) stop() {
	r.mu.Lock()
	rl, srv, done := r.rl, r.srv, r.done
	r.mu.Unlock()
	rl.Close()
	srv.Close()
	<-done
}

// restart performs a planned restart (Shutdown's announcements), stops the
// relay, and starts a new one with the same key on the same address.
func (r *testRelay) restart() {
	r.tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r.mu.Lock()
	rl := r.rl
	r.mu.Unlock()
	rl.Shutdown(ctx)
	r.stop()
	var ln net.Listener
	var err error
	for i := 0; i < 50; i++ {
		if ln, err = net.Listen("tcp", r.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		r.tb.Fatalf("relisten on %s: %v", r.addr, err)
	}
	r.serve(ln)
}

func (r *testRelay) token(role attachwire.Role, room, user string) string {
	r.tb.Helper()
	return r.tokenWith(role, room, user, nil)
}

// tokenWith is token with its claims changed by edit, or signed with
// another key when edit returns one.
func (r *testRelay) tokenWith(role attachwire.Role, room, user string, edit func(*token.Claims) ed25519.PrivateKey) string {
	r.tb.Helper()
	jti, err := token.NewJTI()
	if err != nil {
		r.tb.Fatal(err)
	}
	now := time.Now().Unix()
	c := token.Claims{RoomID: room, SessionID: room, OrgID: relaytest.DefaultOrg, Audience: "relay",
		Role: role, UserID: user, JTI: jti, IssuedAt: now, ExpiresAt: now + 600}
	if role == attachwire.RoleHost {
		ep := uint64(testEpoch)
		c.Epoch, c.UserID = &ep, ""
	}
	key := r.key
	if edit != nil {
		if k := edit(&c); k != nil {
			key = k
		}
	}
	raw, err := token.Mint(key, c)
	if err != nil {
		r.tb.Fatal(err)
	}
	return raw
}

// pageURL is the browser viewer's address for room with tok.
func (r *testRelay) pageURL(room, tok string) string {
	return "http://" + r.addr + "/v1/rooms/" + room + "/view#token=" + tok
}

// testHost runs a ptyhost.Session with a helper child and carries it to a
// relay room as a host leg: its frames out; stamped Input, Resize and
// snapshot_request in. It redials when the relay goes away, resuming from
// the last frame it sent, as attachclient does.
type testHost struct {
	sess   *ptyhost.Session
	inputs atomic.Int64 // Input frames the relay delivered
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// Once divert is set, Input data is kept in diverted instead of going
	// to the session: a paste of megabytes is checked byte for byte here,
	// not through a cooked terminal's line discipline.
	divertMu sync.Mutex
	divert   bool
	diverted []byte
}

// divertInput keeps the Input delivered from now on instead of writing it
// to the session.
func (h *testHost) divertInput() {
	h.divertMu.Lock()
	defer h.divertMu.Unlock()
	h.divert = true
}

// divertedInput returns the Input kept since divertInput.
func (h *testHost) divertedInput() []byte {
	h.divertMu.Lock()
	defer h.divertMu.Unlock()
	return append([]byte(nil), h.diverted...)
}

// keep records p if Input is diverted, and reports whether it was.
func (h *testHost) keep(p []byte) bool {
	h.divertMu.Lock()
	defer h.divertMu.Unlock()
	if h.divert {
		h.diverted = append(h.diverted, p...)
	}
	return h.divert
}

func startHost(tb testing.TB, r *testRelay, room, helper string) *testHost {
	tb.Helper()
	sess, err := ptyhost.Spawn(ptyhost.Spec{
		Command: []string{os.Args[0], "-test.run=^$"},
		Env:     []string{helperEnv + "=" + helper, "GORACE=atexit_sleep_ms=0"},
		Cols:    80, Rows: 24, Epoch: testEpoch,
	})
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &testHost{sess: sess, cancel: cancel}
	url := "ws://" + r.addr + "/v1/rooms/" + room
	tok := r.token(attachwire.RoleHost, room, "")
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		var after uint64
		for ctx.Err() == nil {
			after = h.leg(ctx, url, room, tok, after)
			select {
			case <-ctx.Done():
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	tb.Cleanup(func() {
		cancel()
		h.wg.Wait()
		sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer scancel()
		sess.Stop(sctx)
	})
	return h
}

// leg runs one host leg until it fails, and returns the last seq sent.
func (h *testHost) leg(ctx context.Context, url, room, tok string, after uint64) uint64 {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	dctx, dcancel := context.WithTimeout(ctx, 5*time.Second)
	c, _, err := relaytest.Dial(dctx, url, tok, nil)
	dcancel()
	if err != nil {
		return after
	}
	defer c.WS.CloseNow()
	ep := uint64(testEpoch)
	if err := c.SendControl(ctx, attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleHost, Epoch: &ep}); err != nil {
		return after
	}
	sub, err := h.sess.Subscribe(after)
	if err != nil {
		return after
	}
	var sendMu sync.Mutex
	send := func(f attachwire.Frame) error {
		sendMu.Lock()
		defer sendMu.Unlock()
		return c.Send(ctx, f)
	}
	var last atomic.Uint64
	last.Store(after)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the leg's writer, joined below
		defer wg.Done()
		defer cancel()
		for {
			f, err := sub.Next(ctx)
			if err != nil {
				if errors.Is(err, context.Canceled) {
					return
				}
				<-ctx.Done() // after Exit the leg stays open for final snapshots
				return
			}
			if send(f) != nil {
				return
			}
			if f.Seq != 0 {
				last.Store(f.Seq)
			}
		}
	}()
	for {
		f, err := c.Next(ctx)
		if err != nil {
			break
		}
		switch f.Type {
		case attachwire.TypeInput:
			in, err := attachwire.DecodeInput(f.Payload)
			if err == nil && in.UserID != "" {
				h.inputs.Add(1)
				if !h.keep(in.Data) {
					h.sess.WriteInput(in.Data)
				}
			}
		case attachwire.TypeResize:
			if rs, err := attachwire.DecodeResize(f.Payload); err == nil {
				h.sess.Resize(int(rs.Cols), int(rs.Rows), 0, 0)
			}
		case attachwire.TypeControl:
			ctl, err := attachwire.DecodeControl(f.Payload)
			if _, ok := ctl.(attachwire.SnapshotRequest); ok && err == nil {
				if fr, err := h.sess.EmitSnapshot(); err == nil && fr.Seq == 0 {
					send(fr)
				}
			}
		}
	}
	cancel()
	sub.Close()
	wg.Wait()
	return last.Load()
}

// screenText is the session's screen as text: one line per row, trailing
// blanks trimmed, as the page's screenJS reads xterm's.
func (h *testHost) screenText(tb testing.TB) string {
	tb.Helper()
	scr, _, err := h.sess.Snapshot()
	if err != nil {
		tb.Fatal(err)
	}
	return testkit.Text(scr)
}

// startBrowser starts headless chromium and returns a context for new tabs.
func startBrowser(tb testing.TB) context.Context {
	tb.Helper()
	path := needBrowser(tb)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.WindowSize(1000, 640),
		chromedp.Flag("headless", true),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, bcancel := chromedp.NewContext(actx)
	if err := chromedp.Do(bctx); err != nil {
		bcancel()
		acancel()
		tb.Fatalf("start chromium: %v", err)
	}
	tb.Cleanup(func() {
		chromedp.Cancel(bctx)
		bcancel()
		acancel()
	})
	return bctx
}

// page opens url in a new tab of the browser and returns the tab's
// context.
func page(tb testing.TB, bctx context.Context, url string) context.Context {
	tb.Helper()
	ctx, cancel := chromedp.NewContext(bctx)
	tb.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		tb.Fatalf("open %s: %v", url, err)
	}
	return ctx
}

// eval evaluates expression in the tab (awaiting it if it is a promise),
// failing the test on an error.
func eval[T any](tb testing.TB, ctx context.Context, expr string) T {
	tb.Helper()
	return evalWithin[T](tb, ctx, 10*time.Second, expr)
}

// evalWithin is eval with a time limit of d, for what takes long on
// purpose (a benchmark's work).
func evalWithin[T any](tb testing.TB, ctx context.Context, d time.Duration, expr string) T {
	tb.Helper()
	ectx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	v, err := chromedp.Run(ectx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		tb.Fatalf("evaluate %q: %v", expr, err)
	}
	return v
}

// screenJS reads xterm's visible screen as text, one line per row.
const screenJS = `(() => {
	const v = window.ptyhostViewer; if (!v) return '';
	const b = v.term.buffer.active, out = [];
	for (let y = 0; y < v.term.rows; y++) {
		const l = b.getLine(b.viewportY + y);
		out.push(l ? l.translateToString(true).replace(/ +$/, '') : '');
	}
	return out.join('\n');
})()`

func pageScreen(tb testing.TB, ctx context.Context) string {
	tb.Helper()
	return eval[string](tb, ctx, screenJS)
}

// viewerStatus is the page's status object (window.ptyhostViewer.status).
type viewerStatus struct {
	Connected      bool      `json:"connected"`
	Connects       int       `json:"connects"`
	Snapshots      int       `json:"snapshots"`
	Room           string    `json:"room"`
	Holding        bool      `json:"holding"`
	Holder         string    `json:"holder"`
	Exit           string    `json:"exit"`
	Error          string    `json:"error"`
	InputsSent     int       `json:"inputsSent"`
	InputsRefused  int       `json:"inputsRefused"`
	RepliesDropped int       `json:"repliesDropped"`
	Latencies      []float64 `json:"latencies"`
	Carrier        string    `json:"carrier"`
	LaneConnects   int       `json:"laneConnects"`
	Held           int       `json:"held"`
	Members        []struct {
		UserID  string `json:"userId"`
		Driving bool   `json:"driving"`
	} `json:"members"`
}

func pageStatus(tb testing.TB, ctx context.Context) viewerStatus {
	tb.Helper()
	return eval[viewerStatus](tb, ctx, `window.ptyhostViewer ? window.ptyhostViewer.status : {}`)
}

// typeKeys types keys into the terminal as a person would: trusted key
// events, a keyDown carrying the text and a keyUp per key. (chromedp's
// KeyEvent adds a separate char event, which types a second copy of a
// key whose keydown the page already handled; a real keyboard does not.)
func typeKeys(tb testing.TB, ctx context.Context, keys string) {
	tb.Helper()
	kctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := chromedp.Do(kctx, chromedp.Focus(chromedp.CSS(".xterm-helper-textarea"))); err != nil {
		tb.Fatalf("focus the terminal: %v", err)
	}
	for _, r := range keys {
		var down, up input.DispatchKeyEventParams
		for _, k := range kb.Encode(r) {
			switch k.Type {
			case kb.KeyDown:
				down = *k
			case kb.KeyChar:
				down.Text, down.UnmodifiedText = k.Text, k.UnmodifiedText
			case kb.KeyUp:
				up = *k
			}
		}
		if r == '\r' {
			down.Text = "\r"
		}
		for _, ev := range []input.DispatchKeyEventParams{down, up} {
			if _, err := chromedp.Call(kctx, input.DispatchKeyEvent, ev); err != nil {
				tb.Fatalf("type %q: %v", keys, err)
			}
		}
	}
}
