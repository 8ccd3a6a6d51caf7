package web_test

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/status"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/token"
)

// waitScreen waits until the page's screen contains want.
func waitScreen(t *testing.T, ctx context.Context, want string) {
	t.Helper()
	var last string
	testkit.EventuallyDescribe(t, "the page to show "+want, func() bool {
		last = pageScreen(t, ctx)
		return strings.Contains(last, want)
	}, func() string { return "page screen:\n" + last })
}

// waitHolding waits until the page holds the pen.
func waitHolding(t *testing.T, ctx context.Context) {
	t.Helper()
	var st viewerStatus
	testkit.EventuallyDescribe(t, "the page to hold the pen", func() bool {
		st = pageStatus(t, ctx)
		return st.Holding && st.Connected
	}, func() string { return "status: " + st.Room + " holder " + st.Holder })
}

// TestBrowserSnapshotAndLiveOutput: a viewer page joining a running
// program shows the host's own screen (xterm's buffer text equals the
// session snapshot's text), then follows live output, and shows the room
// state and its presence. It saves a screenshot under $TMPDIR.
func TestBrowserSnapshotAndLiveOutput(t *testing.T) {
	bctx := startBrowser(t)
	r := startRelay(t)
	h := startHost(t, r, "snap", "shell")
	testkit.EventuallyDescribe(t, "the child's prompt", func() bool { return strings.Contains(h.screenText(t), "ready>") },
		func() string { return h.screenText(t) })

	ctx := page(t, bctx, r.pageURL("snap", r.token(attachwire.RoleViewer, "snap", "vera")))
	var got, want string
	testkit.EventuallyDescribe(t, "the page's screen to equal the host's", func() bool {
		got, want = pageScreen(t, ctx), h.screenText(t)
		return got == want
	}, func() string { return "page:\n" + got + "\nhost:\n" + want })

	h.sess.WriteInput([]byte("live output\n"))
	waitScreen(t, ctx, "got: live output")
	testkit.EventuallyDescribe(t, "the page and host to agree after live output", func() bool {
		got, want = pageScreen(t, ctx), h.screenText(t)
		return got == want
	}, func() string { return "page:\n" + got + "\nhost:\n" + want })

	st := pageStatus(t, ctx)
	if st.Room != "live" || st.Holding || st.InputsSent != 0 {
		t.Errorf("status = %+v, want live, not holding, no input", st)
	}
	if len(st.Members) != 1 || st.Members[0].UserID != "vera" {
		t.Errorf("presence = %+v, want vera alone", st.Members)
	}
	bar := eval[string](t, ctx, `document.getElementById('bar').innerText`)
	for _, w := range []string{"live", "pen: free", "1 here: you"} {
		if !strings.Contains(bar, w) {
			t.Errorf("status bar %q lacks %q", bar, w)
		}
	}

	// A guest joins with the name it gave: the bar names it, marked.
	guest := r.tokenWith(attachwire.RoleViewer, "snap", "guest-a1", func(c *token.Claims) ed25519.PrivateKey {
		c.Name, c.Invite = "Ada", "inv-1"
		return nil
	})
	page(t, bctx, r.pageURL("snap", guest))
	testkit.EventuallyDescribe(t, "the guest's name in the bar", func() bool {
		return strings.Contains(eval[string](t, ctx, `document.getElementById('bar').innerText`), "Ada (guest)")
	}, func() string { return eval[string](t, ctx, `document.getElementById('bar').innerText`) })
	saveScreenshot(t, ctx, "ptyhost-browser-viewer.png")

	// The page's words are package status's, through the wasm module: the
	// same state gives the same line, hostile names and narrow widths
	// included.
	ss := status.State{Link: status.Connected, Room: attachwire.RoomLive, ConnID: "c1", PenKnown: true, PenUser: "mal\u202eory", PenConn: "c2",
		Members: []attachwire.Member{{UserID: "ann", ConnID: "c1"}, {UserID: "mal\u202eory", ConnID: "c2"}, {UserID: "x · pen: you", ConnID: "c3"},
			{UserID: "g1", ConnID: "c4aa", Name: "Ada", Guest: true}, {UserID: "g2", ConnID: "c5bb", Name: "Ada", Guest: true}}}
	for _, width := range []int{0, 60, 30, 12} {
		js := fmt.Sprintf(`ptyhostStatus({connId: 'c1', link: 'connected', lane: false, room: 'live', penKnown: true, penMine: false,
			penUser: 'mal\u202eory', penConn: 'c2', members: [{userId: 'ann', connId: 'c1', role: 'viewer', driving: false},
			{userId: 'mal\u202eory', connId: 'c2', role: 'driver', driving: false}, {userId: 'x · pen: you', connId: 'c3', role: 'viewer', driving: false},
			{userId: 'g1', connId: 'c4aa', role: 'viewer', driving: false, name: 'Ada', guest: true},
			{userId: 'g2', connId: 'c5bb', role: 'viewer', driving: false, name: 'Ada', guest: true}]}, %d).line`, width)
		if got, want := eval[string](t, ctx, js), status.Line(ss, width); got != want {
			t.Errorf("width %d: the page's status line %q, Go's %q", width, got, want)
		}
	}
}

// saveScreenshot writes a PNG of the tab under $TMPDIR for a person to
// look at, and logs its path.
func saveScreenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	png, err := chromedp.Run(sctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	p := filepath.Join(os.TempDir(), name)
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", p)
}

// TestBrowserDriverTypes: with a driver token the page takes the pen, and
// what a person types reaches the child (which answers with "got:").
func TestBrowserDriverTypes(t *testing.T) {
	bctx := startBrowser(t)
	r := startRelay(t)
	h := startHost(t, r, "drive", "shell")
	ctx := page(t, bctx, r.pageURL("drive", r.token(attachwire.RoleDriver, "drive", "dora")))
	waitScreen(t, ctx, "ready>")
	waitHolding(t, ctx)
	typeKeys(t, ctx, "typed in a browser\r")
	testkit.EventuallyDescribe(t, "the child to get the line", func() bool {
		return strings.Contains(h.screenText(t), "got: typed in a browser")
	}, func() string { return h.screenText(t) })
	waitScreen(t, ctx, "got: typed in a browser")
	if n := h.inputs.Load(); n == 0 {
		t.Errorf("host received no Input frame")
	}
	bar := eval[string](t, ctx, `document.getElementById('bar').innerText`)
	if !strings.Contains(bar, "pen: you") || !strings.Contains(bar, "Release the pen") {
		t.Errorf("status bar %q does not show the pen held", bar)
	}
	if !strings.Contains(bar, "1 here: you (driving)") {
		t.Errorf("status bar %q does not mark the driver in the presence list", bar)
	}
	// The pen holder's fitted viewport sizes the session; the page follows
	// the applied size.
	var pageSize, hostSize [2]int
	testkit.EventuallyDescribe(t, "the session to take the page's fitted size", func() bool {
		pageSize = eval[[2]int](t, ctx, `(() => { const v = window.ptyhostViewer; return [v.term.cols, v.term.rows]; })()`)
		scr, _, err := h.sess.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		hostSize = [2]int{scr.Cols, scr.Rows}
		return pageSize == hostSize && hostSize != [2]int{80, 24}
	}, func() string { return fmt.Sprintf("page %v, host %v", pageSize, hostSize) })
	saveScreenshot(t, ctx, "ptyhost-browser-viewer-driver.png")
}

// TestBrowserViewerCannotType: keys typed on a viewer token's page go
// nowhere: the page sends no Input and the host receives none.
func TestBrowserViewerCannotType(t *testing.T) {
	bctx := startBrowser(t)
	r := startRelay(t)
	h := startHost(t, r, "watch", "shell")
	ctx := page(t, bctx, r.pageURL("watch", r.token(attachwire.RoleViewer, "watch", "vic")))
	waitScreen(t, ctx, "ready>")
	typeKeys(t, ctx, "should not arrive\r")
	hidden := eval[bool](t, ctx, `document.getElementById('pen-button').hidden`)
	if !hidden {
		t.Errorf("a viewer token's page shows the pen button")
	}
	time.Sleep(500 * time.Millisecond) // Input, if any were sent, has reached the host by now
	if st := pageStatus(t, ctx); st.InputsSent != 0 {
		t.Errorf("viewer page sent %d Input frames", st.InputsSent)
	}
	if n := h.inputs.Load(); n != 0 {
		t.Errorf("host received %d Input frames from a viewer", n)
	}
	if s := h.screenText(t); strings.Contains(s, "should not arrive") {
		t.Errorf("the child saw the viewer's keys:\n%s", s)
	}
}

// TestBrowserHostileOutput: a program that prints clipboard writes and
// every query form, seen by a page holding the pen (the Driver profile),
// puts nothing on the clipboard and makes the page send no Input.
func TestBrowserHostileOutput(t *testing.T) {
	bctx := startBrowser(t)
	r := startRelay(t)
	h := startHost(t, r, "evil", "hostile")
	ctx := page(t, bctx, r.pageURL("evil", r.token(attachwire.RoleDriver, "evil", "dora")))
	waitScreen(t, ctx, "ready>")
	waitHolding(t, ctx)

	for _, name := range []string{"clipboard-read", "clipboard-write"} {
		_, err := chromedp.CallBrowser(ctx, browser.SetPermission, browser.SetPermissionParams{
			Permission: &browser.PermissionDescriptor{Name: name, AllowWithoutSanitization: true},
			Setting:    browser.PermissionSettingGranted, Origin: "http://" + r.addr})
		if err != nil {
			t.Fatalf("grant %s: %v", name, err)
		}
	}
	const sentinel = "clipboard before the hostile stream"
	eval[bool](t, ctx, `navigator.clipboard.writeText('`+sentinel+`').then(() => true)`)

	sent := h.inputs.Load()
	h.sess.WriteInput([]byte("go\n"))
	waitScreen(t, ctx, "hostile done")
	time.Sleep(500 * time.Millisecond) // replies, if any were sent, have reached the host by now
	clip := eval[string](t, ctx, `navigator.clipboard.readText()`)
	if clip != sentinel {
		t.Errorf("clipboard = %q, want it untouched (%q)", clip, sentinel)
	}
	// Past the sanitizer: queries written straight into xterm are consumed
	// by the page's parser handlers, and data xterm emits outside a
	// person's event (here forged with term.input) is dropped.
	eval[bool](t, ctx, `(() => {
		const v = window.ptyhostViewer;
		v.term.write('\x1b[c\x1b[6n\x1b[>c\x1b]11;?\x07\x1bP$qm\x1b\\');
		v.term.input('forged reply', false);
		return true;
	})()`)
	time.Sleep(300 * time.Millisecond)
	st := pageStatus(t, ctx)
	if st.InputsSent != 0 {
		t.Errorf("page sent %d Input frames in response to output", st.InputsSent)
	}
	if st.RepliesDropped < 1 {
		t.Errorf("the forged reply was not counted as dropped (%d)", st.RepliesDropped)
	}
	if n := h.inputs.Load(); n != sent {
		t.Errorf("host received %d Input frames in response to output", n-sent)
	}
	scr := pageScreen(t, ctx)
	for _, bad := range []string{"pwned", "52;", "$q", "javascript"} {
		if strings.Contains(scr, bad) {
			t.Errorf("page shows %q:\n%s", bad, scr)
		}
	}
	title := eval[string](t, ctx, `document.title`)
	if title != "ptyhost viewer" {
		t.Errorf("document title = %q: the program retitled the page", title)
	}
}

// TestBrowserReconnectAfterRelayRestart: the relay restarts (a planned
// restart, then a new relay on the same address); the host redials and the
// page reconnects by itself and follows the output that comes after.
func TestBrowserReconnectAfterRelayRestart(t *testing.T) {
	bctx := startBrowser(t)
	r := startRelay(t)
	h := startHost(t, r, "again", "shell")
	ctx := page(t, bctx, r.pageURL("again", r.token(attachwire.RoleDriver, "again", "dora")))
	waitScreen(t, ctx, "ready>")
	waitHolding(t, ctx)

	r.restart()
	var st viewerStatus
	testkit.EventuallyDescribe(t, "the page to reconnect", func() bool {
		st = pageStatus(t, ctx)
		return st.Connects >= 2 && st.Connected && st.Room == "live" && st.Holding
	}, func() string { return "status: " + st.Room })
	h.sess.WriteInput([]byte("after the restart\n"))
	waitScreen(t, ctx, "got: after the restart")
	typeKeys(t, ctx, "typed after the restart\r")
	testkit.EventuallyDescribe(t, "the child to get the line typed after the restart", func() bool {
		return strings.Contains(h.screenText(t), "got: typed after the restart")
	}, func() string { return h.screenText(t) })
	var got, want string
	testkit.EventuallyDescribe(t, "the page's screen to equal the host's", func() bool {
		got, want = pageScreen(t, ctx), h.screenText(t)
		return got == want
	}, func() string { return "page:\n" + got + "\nhost:\n" + want })
}

// TestBrowserPenButtonAndExit: the driver's button gives the pen back
// (keys then go nowhere) and takes it again; when the session ends the
// page shows its exit status and the room as ended.
func TestBrowserPenButtonAndExit(t *testing.T) {
	bctx := startBrowser(t)
	r := startRelay(t)
	h := startHost(t, r, "pen", "shell")
	ctx := page(t, bctx, r.pageURL("pen", r.token(attachwire.RoleDriver, "pen", "dora")))
	waitScreen(t, ctx, "ready>")
	waitHolding(t, ctx)

	click := func() {
		t.Helper()
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := chromedp.Do(cctx, chromedp.Click(chromedp.CSS("#pen-button"))); err != nil {
			t.Fatalf("click the pen button: %v", err)
		}
	}
	click()
	var st viewerStatus
	testkit.EventuallyDescribe(t, "the pen to be released", func() bool {
		st = pageStatus(t, ctx)
		return !st.Holding
	}, func() string { return "holder " + st.Holder })
	sent := st.InputsSent
	typeKeys(t, ctx, "without the pen\r")
	if st := pageStatus(t, ctx); st.InputsSent != sent {
		t.Errorf("page sent %d Input frames without the pen", st.InputsSent-sent)
	}
	if label := eval[string](t, ctx, `document.getElementById('pen-button').textContent`); label != "Take the pen" {
		t.Errorf("button reads %q after the release, want Take the pen", label)
	}
	click()
	waitHolding(t, ctx)
	typeKeys(t, ctx, "exit 3\r")
	testkit.EventuallyDescribe(t, "the exit banner", func() bool {
		st = pageStatus(t, ctx)
		return st.Exit != "" && st.Room == "ended"
	}, func() string { return "status: " + st.Room + " exit " + st.Exit })
	if banner := eval[string](t, ctx, `document.getElementById('exit').innerText`); !strings.Contains(banner, "exited with status 3") {
		t.Errorf("exit banner %q, want the status 3", banner)
	}
	if s := h.screenText(t); strings.Contains(s, "without the pen") {
		t.Errorf("the child saw keys typed without the pen:\n%s", s)
	}
}

// TestBrowserResumeAfterCut: the page's connection drops (as a network
// would cut it); the output the program writes meanwhile reaches the page
// when it reconnects, resumed from the ring (no new snapshot), and the
// screens agree.
func TestBrowserResumeAfterCut(t *testing.T) {
	bctx := startBrowser(t)
	r := startRelay(t)
	h := startHost(t, r, "cut", "shell")
	ctx := page(t, bctx, r.pageURL("cut", r.token(attachwire.RoleViewer, "cut", "vera")))
	waitScreen(t, ctx, "ready>")
	before := pageStatus(t, ctx)
	eval[bool](t, ctx, `(window.ptyhostViewer.drop(), true)`)
	h.sess.WriteInput([]byte("written while cut off\n"))
	var st viewerStatus
	testkit.EventuallyDescribe(t, "the page to reconnect", func() bool {
		st = pageStatus(t, ctx)
		return st.Connects == before.Connects+1 && st.Connected
	}, func() string { return fmt.Sprintf("connects %d", st.Connects) })
	waitScreen(t, ctx, "got: written while cut off")
	if st := pageStatus(t, ctx); st.Snapshots != before.Snapshots {
		t.Errorf("the page took %d snapshots on resume, want a ring hit (none)", st.Snapshots-before.Snapshots)
	}
	var got, want string
	testkit.EventuallyDescribe(t, "the page's screen to equal the host's", func() bool {
		got, want = pageScreen(t, ctx), h.screenText(t)
		return got == want
	}, func() string { return "page:\n" + got + "\nhost:\n" + want })
}
