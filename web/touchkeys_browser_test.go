package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
)

// phone opens url in a new tab emulating a phone: a 360×740 CSS-pixel
// mobile viewport with touch (a coarse pointer, touch points).
func phone(tb testing.TB, bctx context.Context, url string) context.Context {
	tb.Helper()
	ctx, cancel := chromedp.NewContext(bctx)
	tb.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil { // the tab, before its page
		tb.Fatalf("open a tab: %v", err)
	}
	if _, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: 360, Height: 740, DeviceScaleFactor: 2, Mobile: true}); err != nil {
		tb.Fatalf("emulate a phone's screen: %v", err)
	}
	if _, err := chromedp.Call(ctx, emulation.SetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{
		Enabled: true, MaxTouchPoints: 5}); err != nil {
		tb.Fatalf("emulate touch: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		tb.Fatalf("open %s on a phone: %v", url, err)
	}
	return ctx
}

// tap touches the middle of the element sel names and lifts the finger,
// with trusted touch events as a finger makes them.
func tap(tb testing.TB, ctx context.Context, sel string) {
	tb.Helper()
	type pt struct{ X, Y float64 }
	p := eval[pt](tb, ctx, fmt.Sprintf(`(() => {
		const r = document.querySelector(%q).getBoundingClientRect();
		return {X: r.left + r.width / 2, Y: r.top + r.height / 2};
	})()`, sel))
	tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for _, ev := range []input.DispatchTouchEventParams{
		{Type: input.DispatchTouchEventTypeTouchStart, TouchPoints: []*input.TouchPoint{{X: p.X, Y: p.Y}}},
		{Type: input.DispatchTouchEventTypeTouchEnd, TouchPoints: []*input.TouchPoint{}},
	} {
		if _, err := chromedp.Call(tctx, input.DispatchTouchEvent, ev); err != nil {
			tb.Fatalf("tap %s: %v", sel, err)
		}
	}
}

// keyHexHost follows the keyhex helper's reads on the host's own screen.
type keyHexHost struct {
	h    *testHost
	read int // the reads seen so far
}

// next waits for the program's next read and returns it in hex.
func (k *keyHexHost) next(t *testing.T) string {
	t.Helper()
	k.read++
	tag := fmt.Sprintf("#%d ", k.read)
	var got string
	testkit.EventuallyDescribe(t, "the program's read "+tag, func() bool {
		for _, l := range strings.Split(k.h.screenText(t), "\n") {
			if rest, ok := strings.CutPrefix(l, tag); ok {
				got = rest
				return true
			}
		}
		return false
	}, func() string { return "host screen:\n" + k.h.screenText(t) })
	return got
}

// expect taps sel and checks the program read exactly want (in hex).
func (k *keyHexHost) expect(t *testing.T, ctx context.Context, sel, want string) {
	t.Helper()
	tap(t, ctx, sel)
	if got := k.next(t); got != want {
		t.Errorf("tap %s: the program read %s, want %s", sel, got, want)
	}
}

// noOverflow checks the page is no wider than the phone's screen and the
// key row lies within it.
func noOverflow(t *testing.T, ctx context.Context, when string) {
	t.Helper()
	type fit struct {
		Inner, Scroll   float64
		RowRight        float64
		RowBottom, InnH float64
		BarRight        float64
	}
	f := eval[fit](t, ctx, `(() => {
		const row = document.getElementById('touchkeys').getBoundingClientRect();
		const bar = document.getElementById('bar').getBoundingClientRect();
		return {Inner: innerWidth, Scroll: document.scrollingElement.scrollWidth, RowRight: row.right,
			RowBottom: row.bottom, InnH: innerHeight, BarRight: bar.right};
	})()`)
	if f.Inner != 360 {
		t.Fatalf("%s: innerWidth %v, want the phone's 360", when, f.Inner)
	}
	if f.Scroll > f.Inner || f.RowRight > f.Inner || f.BarRight > f.Inner {
		t.Errorf("%s: the page overflows the screen's %v px: scrollWidth %v, key row's right %v, bar's right %v",
			when, f.Inner, f.Scroll, f.RowRight, f.BarRight)
	}
	if f.RowBottom > f.InnH {
		t.Errorf("%s: the key row ends at %v, below the screen's %v", when, f.RowBottom, f.InnH)
	}
}

// TestBrowserTouchKeys: on a phone (a 360 px mobile viewport with touch)
// the page shows the key row, fits the screen, and the keys tapped reach
// the host's program as exactly the bytes a keyboard sends: Esc, Tab,
// Ctrl-C, Ctrl held for the next key typed (c → 0x03) and for an arrow,
// the arrows as CSI or, once the program asks for application cursor
// keys, SS3; Paste sends the clipboard, or says why it cannot. A viewer's
// taps send nothing, and it is told why.
func TestBrowserTouchKeys(t *testing.T) {
	bctx := startBrowser(t)
	r := startRelay(t)
	h := startHost(t, r, "keys", "keyhex")
	k := &keyHexHost{h: h}
	ctx := phone(t, bctx, r.pageURL("keys", r.token(attachwire.RoleDriver, "keys", "pia")))
	waitScreen(t, ctx, "hex>")
	waitHolding(t, ctx)
	if eval[bool](t, ctx, `document.getElementById('touchkeys').hidden`) {
		t.Fatal("the key row is hidden on a touch screen")
	}
	noOverflow(t, ctx, "driver")

	k.expect(t, ctx, "#key-esc", "1b")
	k.expect(t, ctx, "#key-tab", "09")
	k.expect(t, ctx, "#key-ctrl-c", "03")

	// Ctrl is sticky: it waits, shown pressed, for the next key typed on
	// the soft keyboard (text input, as a phone's keyboard gives it).
	tap(t, ctx, "#key-ctrl")
	if p := eval[string](t, ctx, `document.getElementById('key-ctrl').getAttribute('aria-pressed')`); p != "true" {
		t.Errorf("Ctrl after a tap: aria-pressed %q, want true", p)
	}
	insertText(t, ctx, "c")
	if got := k.next(t); got != "03" {
		t.Errorf("Ctrl then c: the program read %s, want 03", got)
	}
	if p := eval[string](t, ctx, `document.getElementById('key-ctrl').getAttribute('aria-pressed')`); p != "false" {
		t.Errorf("Ctrl after the key it changed: aria-pressed %q, want false", p)
	}
	insertText(t, ctx, "c")
	if got := k.next(t); got != "63" {
		t.Errorf("c after Ctrl let go: the program read %s, want 63", got)
	}
	// Ctrl twice lets it go without a key.
	tap(t, ctx, "#key-ctrl")
	tap(t, ctx, "#key-ctrl")
	insertText(t, ctx, "x")
	if got := k.next(t); got != "78" {
		t.Errorf("x after Ctrl tapped twice: the program read %s, want 78", got)
	}
	// A tap on the row leaves the focus in the terminal, so a phone's
	// soft keyboard stays up.
	tap(t, ctx, "#key-tab")
	k.next(t)
	if cls := eval[string](t, ctx, `document.activeElement ? document.activeElement.className : ''`); !strings.Contains(cls, "xterm-helper-textarea") {
		t.Errorf("after a tap on the key row the focus is on %q, want the terminal's textarea", cls)
	}

	for _, a := range []struct{ key, csi, ss3 string }{
		{"left", "1b5b44", "1b4f44"}, {"up", "1b5b41", "1b4f41"}, {"down", "1b5b42", "1b4f42"}, {"right", "1b5b43", "1b4f43"},
	} {
		k.expect(t, ctx, "#key-"+a.key, a.csi)
	}
	tap(t, ctx, "#key-ctrl")
	k.expect(t, ctx, "#key-up", "1b5b313b3541") // CSI 1;5A, Ctrl-Up

	// The program asks for application cursor keys: the arrows follow.
	insertText(t, ctx, "!")
	k.next(t)
	testkit.EventuallyDescribe(t, "the page's terminal in application cursor mode", func() bool {
		return eval[bool](t, ctx, `window.ptyhostViewer.term.modes.applicationCursorKeysMode`)
	}, func() string { return "" })
	for _, a := range []struct{ key, ss3 string }{{"left", "1b4f44"}, {"up", "1b4f41"}, {"down", "1b4f42"}, {"right", "1b4f43"}} {
		k.expect(t, ctx, "#key-"+a.key, a.ss3)
	}
	insertText(t, ctx, "?")
	k.next(t)
	testkit.EventuallyDescribe(t, "the page's terminal out of application cursor mode", func() bool {
		return !eval[bool](t, ctx, `window.ptyhostViewer.term.modes.applicationCursorKeysMode`)
	}, func() string { return "" })
	k.expect(t, ctx, "#key-up", "1b5b41")

	// Paste: the clipboard's text, its line end as Enter sends it.
	for _, name := range []string{"clipboard-read", "clipboard-write"} {
		_, err := chromedp.CallBrowser(ctx, browser.SetPermission, browser.SetPermissionParams{
			Permission: &browser.PermissionDescriptor{Name: name, AllowWithoutSanitization: true},
			Setting:    browser.PermissionSettingGranted, Origin: "http://" + r.addr})
		if err != nil {
			t.Fatalf("grant %s: %v", name, err)
		}
	}
	eval[bool](t, ctx, `navigator.clipboard.writeText('ls\nx').then(() => true)`)
	k.expect(t, ctx, "#key-paste", "6c730d78")
	_, err := chromedp.CallBrowser(ctx, browser.SetPermission, browser.SetPermissionParams{
		Permission: &browser.PermissionDescriptor{Name: "clipboard-read"},
		Setting:    browser.PermissionSettingDenied, Origin: "http://" + r.addr})
	if err != nil {
		t.Fatalf("deny clipboard-read: %v", err)
	}
	tap(t, ctx, "#key-paste")
	testkit.EventuallyDescribe(t, "the page to say it cannot read the clipboard", func() bool {
		return strings.Contains(eval[string](t, ctx, `document.getElementById('notice').textContent`), "does not let the page read the clipboard")
	}, func() string { return eval[string](t, ctx, `document.getElementById('notice').textContent`) })
	noOverflow(t, ctx, "driver, with a long notice")

	// A viewer's taps send nothing, and the page says why.
	sent := h.inputs.Load()
	vctx := phone(t, bctx, r.pageURL("keys", r.token(attachwire.RoleViewer, "keys", "vic")))
	waitScreen(t, vctx, "hex>")
	tap(t, vctx, "#key-esc")
	tap(t, vctx, "#key-ctrl-c")
	testkit.EventuallyDescribe(t, "the viewer told it cannot type", func() bool {
		return strings.Contains(eval[string](t, vctx, `document.getElementById('notice').textContent`), "cannot type")
	}, func() string { return eval[string](t, vctx, `document.getElementById('notice').textContent`) })
	noOverflow(t, vctx, "viewer")
	k.expect(t, ctx, "#key-tab", "09") // the driver's next key is the next read: the viewer's sent none
	if n := h.inputs.Load(); n != sent+1 {
		t.Errorf("the host received %d Input frames after the viewer's taps and one of the driver's, want 1", n-sent)
	}
	if st := pageStatus(t, vctx); st.InputsSent != 0 {
		t.Errorf("the viewer's page sent %d inputs", st.InputsSent)
	}
	saveScreenshot(t, ctx, "ptyhost-phone-viewer.png")
}

// TestBrowserKeyRowDesktop: with a mouse (a fine pointer, no touch) the
// page shows no key row.
func TestBrowserKeyRowDesktop(t *testing.T) {
	bctx := startBrowser(t)
	r := startRelay(t)
	startHost(t, r, "desk", "shell")
	ctx := page(t, bctx, r.pageURL("desk", r.token(attachwire.RoleViewer, "desk", "dee")))
	waitScreen(t, ctx, "ready>")
	if !eval[bool](t, ctx, `document.getElementById('touchkeys').hidden`) {
		t.Error("the key row shows on a desktop")
	}
}

// TestBrowserScreenReaderMode: the page's screen-reader switch turns
// xterm.js's screen-reader mode (its accessibility tree of the rows) on
// and off, and the browser remembers it for the next page.
func TestBrowserScreenReaderMode(t *testing.T) {
	bctx := startBrowser(t)
	r := startRelay(t)
	startHost(t, r, "sr", "shell")
	// A link open in one tab is refused in another: each page its own.
	url := func() string { return r.pageURL("sr", r.token(attachwire.RoleViewer, "sr", "sam")) }
	ctx := page(t, bctx, url())
	waitScreen(t, ctx, "ready>")
	const tree = `!!document.querySelector('#term .xterm-accessibility-tree')`
	const pressed = `document.getElementById('sr-button').getAttribute('aria-pressed')`
	if eval[bool](t, ctx, tree) || eval[string](t, ctx, pressed) != "false" {
		t.Fatal("screen-reader mode is on before it was asked for")
	}
	chromedpClick(t, ctx, "#sr-button")
	testkit.EventuallyDescribe(t, "xterm's accessibility tree", func() bool { return eval[bool](t, ctx, tree) },
		func() string { return "aria-pressed " + eval[string](t, ctx, pressed) })
	if p := eval[string](t, ctx, pressed); p != "true" {
		t.Errorf("the switch on: aria-pressed %q, want true", p)
	}
	// The tree reads the screen's rows.
	testkit.EventuallyDescribe(t, "the accessibility tree to hold the prompt", func() bool {
		return strings.Contains(eval[string](t, ctx, `document.querySelector('#term .xterm-accessibility-tree').textContent`), "ready>")
	}, func() string {
		return eval[string](t, ctx, `document.querySelector('#term .xterm-accessibility-tree').textContent`)
	})

	// Remembered: a page opened later starts with it on.
	ctx2 := page(t, bctx, url())
	waitScreen(t, ctx2, "ready>")
	testkit.EventuallyDescribe(t, "the next page's accessibility tree", func() bool { return eval[bool](t, ctx2, tree) },
		func() string { return "aria-pressed " + eval[string](t, ctx2, pressed) })
	if p := eval[string](t, ctx2, pressed); p != "true" {
		t.Errorf("the next page's switch: aria-pressed %q, want true", p)
	}

	chromedpClick(t, ctx2, "#sr-button")
	testkit.EventuallyDescribe(t, "the accessibility tree gone", func() bool { return !eval[bool](t, ctx2, tree) },
		func() string { return "aria-pressed " + eval[string](t, ctx2, pressed) })
	ctx3 := page(t, bctx, url())
	waitScreen(t, ctx3, "ready>")
	if eval[bool](t, ctx3, tree) || eval[string](t, ctx3, pressed) != "false" {
		t.Error("screen-reader mode came back on after it was turned off")
	}
}

// chromedpClick clicks the element sel names with the mouse.
func chromedpClick(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := chromedp.Do(cctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
		t.Fatalf("click %s: %v", sel, err)
	}
}
