package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/token"
	"github.com/ptyhost/ptyhost/web"
)

// protoViewer is a leg to a relay that records what it is sent: Output
// and snapshot text, and the Exit. Its reader goroutine is joined by the
// test's cleanup.
type protoViewer struct {
	mu   sync.Mutex
	text strings.Builder
	exit *attachwire.Exit
	err  error
	stop func() // closes the leg and joins the reader; idempotent
	room *seal.Room
	// epoch is the last snapshot's, which a sealed room's frames open
	// under.
	epoch uint64
}

// watch dials url with tok (as a browser does when bearer is set),
// subscribes to room as role, and records what comes, opened with key in
// a sealed room (nil: a plain one).
func watch(t *testing.T, wsURL, room, tok string, role attachwire.Role, bearer bool, key *seal.Key) *protoViewer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	dctx, dcancel := context.WithTimeout(ctx, relaytest.Timeout)
	defer dcancel()
	c, _, err := relaytest.Dial(dctx, wsURL, tok, &relaytest.DialOptions{BearerSubprotocol: bearer})
	if err != nil {
		cancel()
		t.Fatalf("dialling %s as printed: %v", wsURL, err)
	}
	sub := attachwire.Subscribe{SessionID: room, AsRole: role}
	v := &protoViewer{}
	if key != nil {
		sub.Sealed, v.room = key.ID().String(), seal.NewRoom(key, room)
	}
	if err := c.SendControl(dctx, sub); err != nil {
		cancel()
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { v.read(ctx, c) })
	var once sync.Once
	v.stop = func() {
		once.Do(func() {
			cancel()
			c.WS.CloseNow()
			wg.Wait()
		})
	}
	t.Cleanup(v.stop)
	return v
}

func (v *protoViewer) read(ctx context.Context, c *relaytest.Conn) {
	for {
		f, err := c.Next(ctx)
		v.mu.Lock()
		if err == nil && v.room != nil && f.Type != attachwire.TypeControl {
			if s, serr := attachwire.DecodeSnapshot(f.Payload); f.Type == attachwire.TypeSnapshot && serr == nil {
				if ep, n := binary.Uvarint(s.Screen); n > 0 {
					v.epoch = ep
				}
			}
			o, oerr := v.room.Open(f, v.epoch)
			if oerr != nil {
				err = fmt.Errorf("%v seq %d did not open: %w", f.Type, f.Seq, oerr)
			}
			f = o
		}
		switch {
		case err != nil:
			v.err = err
		case f.Type == attachwire.TypeOutput:
			v.text.Write(f.Payload)
		case f.Type == attachwire.TypeSnapshot:
			if snap, err := attachwire.DecodeSnapshot(f.Payload); err == nil {
				if scr, err := snap.DecodeScreen(); err == nil {
					for _, cell := range append(scr.Primary, scr.Alt...) {
						v.text.WriteString(cell.Content)
					}
				}
			}
		case f.Type == attachwire.TypeExit:
			if ex, err := attachwire.DecodeExit(f.Payload); err == nil {
				v.exit = &ex
			}
		}
		v.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// until waits for cond over what the viewer has seen, failing after the
// watchdog.
func (v *protoViewer) until(t *testing.T, what string, cond func(text string, exit *attachwire.Exit) bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		v.mu.Lock()
		ok, text, err := cond(v.text.String(), v.exit), v.text.String(), v.err
		v.mu.Unlock()
		if ok {
			return
		}
		if err != nil || time.Now().After(deadline) {
			t.Fatalf("viewer never saw %s (leg: %v); it saw %q", what, err, tail(text))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// wait reports whether cond held on the text within limit, before the
// leg ended.
func (v *protoViewer) wait(t *testing.T, limit time.Duration, cond func(text string) bool) bool {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		v.mu.Lock()
		ok, err := cond(v.text.String()), v.err
		v.mu.Unlock()
		if ok || err != nil {
			return ok
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

func tail(s string) string {
	if len(s) > 400 {
		return "…" + s[len(s)-400:]
	}
	return s
}

// sharedLinks are the links a share printed, parsed as a user reads them.
type sharedLinks struct {
	watchLine, driveLine string    // the attach command lines
	token, attachURL     string    // from the watch line
	key                  *seal.Key // the watch line's PTYHOST_KEY: nil, a plain room
	watchPage, drivePage string    // the browser addresses
}

var (
	attachLineRE = regexp.MustCompile(`^PTYHOST_TOKEN=([A-Za-z0-9_.-]+) (?:PTYHOST_KEY=([A-Za-z0-9_-]{43}) )?(\S+) attach (--drive )?(ws://\S+)$`)
	pageRE       = regexp.MustCompile(`^http://\S+/view#token=[A-Za-z0-9_.-]+(&key=[A-Za-z0-9_-]{43})?$`)
)

// readLinks finds the links in the pane's scrollback: each follows its
// heading line.
func readLinks(t *testing.T, tm *tmuxServer, target string) sharedLinks {
	t.Helper()
	// -J joins the lines the terminal wrapped; -S - includes the history.
	hist := strings.Split(tm.run("capture-pane", "-p", "-J", "-S", "-", "-t", target), "\n")
	after := func(heading string) string {
		for i, l := range hist {
			if strings.TrimSpace(l) == heading && i+1 < len(hist) {
				return strings.TrimSpace(hist[i+1])
			}
		}
		t.Fatalf("no %q in the share's output:\n%s", heading, strings.Join(hist, "\n"))
		return ""
	}
	var l sharedLinks
	l.watchLine, l.driveLine = after("Watch in a terminal:"), after("Drive in a terminal:")
	l.watchPage, l.drivePage = after("Watch in a browser:"), after("Drive in a browser:")
	m := attachLineRE.FindStringSubmatch(l.watchLine)
	if m == nil || m[4] != "" {
		t.Fatalf("watch line %q is not PTYHOST_TOKEN=… PROG attach URL", l.watchLine)
	}
	if dm := attachLineRE.FindStringSubmatch(l.driveLine); dm == nil || dm[4] == "" || dm[5] != m[5] || dm[2] != m[2] {
		t.Fatalf("drive line %q is not PTYHOST_TOKEN=… PROG attach --drive URL (the watch line's URL)", l.driveLine)
	}
	if m[3] != shellQuote(ptyhostBin) && m[3] != ptyhostBin {
		t.Errorf("the attach line runs %q, want this ptyhost (%s), which is not on PATH", m[3], ptyhostBin)
	}
	l.token, l.attachURL = m[1], m[5]
	if m[2] != "" {
		l.key = mustKey(t, m[2])
	}
	for _, p := range []string{l.watchPage, l.drivePage} {
		if !pageRE.MatchString(p) {
			t.Fatalf("browser address %q is not http://…/view#token=…", p)
		}
	}
	return l
}

// mustKey parses a room key as a link carries it.
func mustKey(t *testing.T, s string) *seal.Key {
	t.Helper()
	k, err := seal.ParseKey(s)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// pageSocket turns a browser address into what the page dials: the room's
// WebSocket (its path without /view), the fragment's token and its room
// key (nil: none).
func pageSocket(t *testing.T, page string) (wsURL, tok string, key *seal.Key) {
	t.Helper()
	u, err := url.Parse(page)
	if err != nil {
		t.Fatal(err)
	}
	q, err := url.ParseQuery(u.Fragment)
	if err != nil {
		t.Fatal(err)
	}
	if k := q.Get("key"); k != "" {
		if key, err = seal.ParseKey(k); err != nil {
			t.Fatal(err)
		}
	}
	return "ws://" + u.Host + strings.TrimSuffix(u.Path, "/view"), q.Get("token"), key
}

// TestShareUnderTmux runs "ptyhost share" with its embedded relay in a
// tmux pane as a user would, and uses what it printed as printed: a
// protocol viewer on the attach URL and token of the watch line sees what
// is typed in the sharing terminal; the browser address's page loads and
// its socket and fragment token admit a viewer; the drive line, pasted
// into a shell, drives the program; the program's exit status reaches the
// viewers and the drive attach; the sharing terminal says the final
// screen stays served and Ctrl-C ends share with the program's status.
func TestShareUnderTmux(t *testing.T) {
	tm := newTmux(t)
	tm.run("new-session", "-d", "-s", "main", "-x", "100", "-y", "30", "/bin/sh")
	tm.typeLine(helperEnv + "=tui " + shellQuote(ptyhostBin) + " share -- " + shellQuote(self(t)) + "; echo rc=$?")
	tm.waitFor("TUI-READY")
	l := readLinks(t, tm, "main")
	room := l.attachURL[strings.LastIndex(l.attachURL, "/")+1:]

	v := watch(t, l.attachURL, room, l.token, attachwire.RoleViewer, false, l.key)
	v.until(t, "the program's screen", func(s string, _ *attachwire.Exit) bool { return strings.Contains(s, "TUI-READY") })
	tm.typeLine("hello-from-the-sharer")
	v.until(t, "what the sharer typed", func(s string, _ *attachwire.Exit) bool {
		return strings.Contains(s, "got: hello-from-the-sharer")
	})

	// The browser address: the page is served, and the socket it dials
	// admits the fragment's token offered as the bearer subprotocol.
	ctx, cancel := context.WithTimeout(context.Background(), relaytest.Timeout)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, strings.SplitN(l.watchPage, "#", 2)[0], nil)
	resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil {
		t.Fatalf("GET the browser page: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusOK:
	case resp.StatusCode == http.StatusServiceUnavailable && !web.Built():
		// The page that says how to build the bundle: the address is
		// the page's, the bundle is just not in this build.
		t.Logf("the browser page is not built into this binary (go generate ./web); its address answers 503 with the build hint")
	default:
		t.Fatalf("GET the browser page: %s", resp.Status)
	}
	pageURL, pageTok, pageKey := pageSocket(t, l.watchPage)
	if pageKey == nil || l.key == nil || !pageKey.Equal(l.key) {
		t.Fatalf("the share is not sealed, or its links carry different keys: %v %v", pageKey, l.key)
	}
	bv := watch(t, pageURL, room, pageTok, attachwire.RoleViewer, true, pageKey)
	bv.until(t, "the screen through the browser link", func(s string, _ *attachwire.Exit) bool {
		return strings.Contains(s, "got: hello-from-the-sharer")
	})
	dURL, dTok, dKey := pageSocket(t, l.drivePage)
	// As a watcher: the pen is left for the drive line below.
	dv := watch(t, dURL, room, dTok, attachwire.RoleViewer, true, dKey)
	dv.until(t, "the screen through the browser drive link", func(s string, _ *attachwire.Exit) bool {
		return strings.Contains(s, "got: hello-from-the-sharer")
	})

	// The drive line, run as printed, drives the program.
	tm.run("new-window", "-d", "-t", "main:1", "/bin/sh")
	tm.run("resize-window", "-t", "main:1", "-x", "100", "-y", "30")
	tm.typeLineIn("main:1", l.driveLine+"; echo rc=$?")
	tm.waitIn("main:1", "got: hello-from-the-sharer")
	tm.typeLineIn("main:1", "typed-by-the-attach")
	tm.waitFor("got: typed-by-the-attach")
	v.until(t, "the attach's line", func(s string, _ *attachwire.Exit) bool { return strings.Contains(s, "got: typed-by-the-attach") })

	// The program's end: every viewer gets its status, the sharer is told
	// the final screen stays up, and Ctrl-C ends share with that status.
	tm.typeLine("exit 3")
	v.until(t, "Exit 3", func(_ string, ex *attachwire.Exit) bool { return ex != nil && ex.Code == 3 })
	tm.waitIn("main:1", "rc=3")
	got := tm.waitFor("Ctrl-C ends sharing now")
	if !strings.Contains(got, "viewers see its final screen for 1m0s more") {
		t.Errorf("the notice does not state the window:\n%s", got)
	}
	// A viewer joining now, with the watch line's token again (its first
	// leg gone), still gets the final screen. The relay may not have seen
	// the first leg go yet: it refuses the token meanwhile (retryable).
	v.stop()
	deadline := time.Now().Add(30 * time.Second)
	for {
		late := watch(t, l.attachURL, room, l.token, attachwire.RoleViewer, false, l.key)
		if late.wait(t, 5*time.Second, func(s string) bool { return strings.Contains(s, "got: typed-by-the-attach") }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a viewer joining within the final-screen window never got the final screen")
		}
		late.stop()
		time.Sleep(100 * time.Millisecond)
	}
	tm.run("send-keys", "-t", "main", "C-c")
	tm.waitFor("rc=3")
	if got := strings.TrimSpace(tm.run("display", "-p", "-t", "main", "#{alternate_on} #{mouse_any_flag} #{cursor_flag}")); got != "0 0 1" {
		t.Errorf("after share: alternate_on, mouse_any_flag, cursor_flag = %q, want \"0 0 1\"", got)
	}
}

// Without Ctrl-C, share ends by itself once the final-screen window has
// passed, with the program's status.
func TestShareEndsAfterTheFinalScreenWindow(t *testing.T) {
	tm := newTmux(t)
	tm.run("new-session", "-d", "-s", "main", "-x", "100", "-y", "30", "/bin/sh")
	tm.typeLine(helperEnv + "=tui " + shellQuote(ptyhostBin) + " share --final-screen 1s -- " + shellQuote(self(t)) + "; echo rc=$?")
	tm.waitFor("TUI-READY")
	tm.typeLine("exit 7")
	tm.waitFor("viewers see its final screen for 1s more")
	tm.waitFor("rc=7")
}

// share's usage mistakes are caught before anything starts.
func TestShareUsage(t *testing.T) {
	_, key, err := token.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	pem, err := token.MarshalPrivateKeyPEM(key)
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "relay.key")
	if err := os.WriteFile(keyFile, pem, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"relay without a key to log in with", []string{"share", "--relay", "ws://127.0.0.1:1", "--identity", "/nonexistent/id", "--", "true"}, "logs in with an SSH key"},
		{"key without relay", []string{"share", "--key", "k", "--", "true"}, "--key goes with --relay"},
		{"port with relay", []string{"share", "--relay", "ws://127.0.0.1:1", "--key", "k", "--port", "9", "--", "true"}, "--port is for the embedded relay"},
		{"ttl too long", []string{"share", "--ttl", "200h", "--", "true"}, "--ttl must be in"},
		{"no command", []string{"share"}, "missing command"},
		{"not a terminal", []string{"share", "--", "true"}, "stdin is not a terminal"},
		{"missing key file", []string{"share", "--relay", "ws://127.0.0.1:1", "--key", "testdata/missing.key", "--", "true"}, "--key"},
		{"bad relay URL", []string{"share", "--relay", "ftp://x", "--key", keyFile, "--", "true"}, `relay URL "ftp://x"`},
		{"bad room", []string{"share", "--room", "a/b", "--", "true"}, `room "a/b"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := cli(t, "", "", tc.args...)
			if r.code != exitUsage || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", r.code, r.stderr, tc.want)
			}
		})
	}
}

// With --relay and --key, share carries the session to that relay, with
// host tokens and links minted by the key: a viewer holding a token the
// relay's operator minted (not one of the links) sees the session, and
// the links name that relay.
func TestShareThroughARelayYouRun(t *testing.T) {
	s := relaytest.NewServer(t, relay.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	pem, err := token.MarshalPrivateKeyPEM(s.Key)
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "relay.key")
	if err := os.WriteFile(keyFile, pem, 0o600); err != nil {
		t.Fatal(err)
	}
	tm := newTmux(t)
	tm.run("new-session", "-d", "-s", "main", "-x", "100", "-y", "30", "/bin/sh")
	tm.typeLine(helperEnv + "=tui " + shellQuote(ptyhostBin) + " share --relay " + s.URL + " --key " + shellQuote(keyFile) +
		" --room mine --org " + relaytest.DefaultOrg + " --final-screen 1s -- " + shellQuote(self(t)) + "; echo rc=$?")
	tm.waitFor("TUI-READY")
	l := readLinks(t, tm, "main")
	if l.attachURL != s.RoomURL("mine") || !strings.HasPrefix(l.watchPage, s.HTTPURL+"/v1/rooms/mine/view#token=") {
		t.Fatalf("links name %s and %s, want the relay's room", l.attachURL, l.watchPage)
	}
	v := watch(t, s.RoomURL("mine"), "mine", s.ViewerToken(t, "mine", "operator"), attachwire.RoleViewer, false, l.key)
	tm.typeLine("over-your-relay")
	v.until(t, "what the sharer typed", func(s string, _ *attachwire.Exit) bool { return strings.Contains(s, "got: over-your-relay") })
	tm.typeLine("exit 5")
	v.until(t, "Exit 5", func(_ string, ex *attachwire.Exit) bool { return ex != nil && ex.Code == 5 })
	tm.waitFor("rc=5")
}
