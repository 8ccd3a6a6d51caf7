package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
)

// The page's lane under the answers a relay (or a proxy in front of it)
// gives besides 200: each test opens a driver page through a laneProxy,
// with WebSocket blocked by the page's switch so that it rides the lane,
// and has the proxy rewrite one kind of answer. What is checked is what
// the person sees (the page's screen, the pen) and what the program and
// the relay receive, keys and controls, each exactly once.

// startLanePage starts a relay, a shell host in room, a proxy and a
// driver page through the proxy whose WebSocket is blocked, with the
// upgrade probe every probe ms, and waits until the page drives the room
// over the lane.
func startLanePage(t *testing.T, room string, probe int) (*testRelay, *testHost, *laneProxy, context.Context) {
	t.Helper()
	bctx := startBrowser(t)
	r := startRelay(t)
	h := startHost(t, r, room, "shell")
	p := startLaneProxy(t, r)
	ctx := page(t, bctx, p.pageURL(room, r.token(attachwire.RoleDriver, room, "lena"))+fmt.Sprintf("&nows=1&probe=%d", probe))
	waitScreen(t, ctx, "ready>")
	waitHolding(t, ctx)
	if st := pageStatus(t, ctx); st.Carrier != "lane" {
		t.Fatalf("carrier %q, want the lane", st.Carrier)
	}
	return r, h, p, ctx
}

// driveLine types line and Enter, waits for the program's answer on the
// host's screen and on the page, and checks that no key was lost or
// doubled on the way.
func driveLine(t *testing.T, ctx context.Context, h *testHost, line string) {
	t.Helper()
	typeKeys(t, ctx, line+"\r")
	want := "got: " + line
	testkit.EventuallyDescribe(t, "the program to answer "+line, func() bool {
		return strings.Contains(h.screenText(t), want)
	}, func() string { return h.screenText(t) })
	waitScreen(t, ctx, want)
	reachedOnce(t, h, line)
}

// reachedOnce checks that line reached the program exactly once: one
// "got:" answer, and the terminal's echo of the keys on the prompt line
// shows each key once (a doubled key would read "ready> abcbc").
func reachedOnce(t *testing.T, h *testHost, line string) {
	t.Helper()
	scr := h.screenText(t)
	for _, want := range []string{"got: " + line, "ready> " + line} {
		n := 0
		for _, l := range strings.Split(scr, "\n") {
			if l == want {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("%d lines read %q, want 1:\n%s", n, want, scr)
		}
	}
}

// waitCarrier waits until the page is connected over carrier.
func waitCarrier(t *testing.T, ctx context.Context, carrier string) viewerStatus {
	t.Helper()
	var st viewerStatus
	testkit.EventuallyDescribe(t, "the page to be connected over "+carrier, func() bool {
		st = pageStatus(t, ctx)
		return st.Carrier == carrier && st.Connected
	}, func() string { return fmt.Sprintf("carrier %q connected %v", st.Carrier, st.Connected) })
	return st
}

// waitClosed waits for ch, failing the test after 20 s.
func waitClosed(t *testing.T, what string, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(20 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// TestBrowserLaneNotFound: a lane that answers 404 sends the page back to
// WebSocket dials, never stranding it. First the relay stops serving the
// lane under a page riding it (its next POST gets 404): the page returns
// to WebSocket and the line typed meanwhile reaches the program once.
// Then, with WebSocket blocked again, the page falls back to a lane that
// 404s its ticket, goes on dialing WebSocket, and works as soon as
// WebSocket gets through.
func TestBrowserLaneNotFound(t *testing.T) {
	_, h, p, ctx := startLanePage(t, "lane404", 600000)
	driveLine(t, ctx, h, "on the lane")

	eval[any](t, ctx, `window.ptyhostViewer.blockWebSocket(false)`)
	p.setNoLane(true)
	driveLine(t, ctx, h, "after the 404")
	waitCarrier(t, ctx, "websocket")
	if _, n := p.counts(); n == 0 {
		t.Fatal("no lane request was answered 404: the page never met the refusal")
	}

	tickets, _ := p.counts()
	eval[any](t, ctx, `window.ptyhostViewer.blockWebSocket(true)`)
	eval[any](t, ctx, `window.ptyhostViewer.drop()`)
	testkit.EventuallyDescribe(t, "the page to fall back to the lane and ask for a ticket", func() bool {
		n, _ := p.counts()
		return n > tickets
	}, func() string { return fmt.Sprintf("status %+v", pageStatus(t, ctx)) })
	eval[any](t, ctx, `window.ptyhostViewer.blockWebSocket(false)`)
	waitCarrier(t, ctx, "websocket")
	waitHolding(t, ctx)
	driveLine(t, ctx, h, "after the ticket 404")
}

// TestBrowserLaneConflict: a POST the relay refuses with 409 (the proxy
// shifts its inputSeqs past a gap) while more keys wait behind it. The
// page sends again from the relay's ackInputSeq+1, in one contiguous
// batch with the keys typed meanwhile, on the same lane leg: the line
// reaches the program once, no key lost or doubled.
func TestBrowserLaneConflict(t *testing.T) {
	_, h, p, ctx := startLanePage(t, "lane409", 600000)
	held, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	var first sync.Once
	p.setInputRule(func(b attachwire.ViewerBatch) proxyAction {
		if len(b.Inputs) == 0 {
			return proxyAction{}
		}
		this := false
		first.Do(func() { this = true })
		if !this {
			return proxyAction{}
		}
		close(held)
		<-release
		return proxyAction{Body: shiftInputs(t, b)}
	})
	before := pageStatus(t, ctx)
	typeKeys(t, ctx, "a")
	waitClosed(t, "the first POST", held)
	typeKeys(t, ctx, "bc\r")
	testkit.EventuallyDescribe(t, "the page to take the keys typed during the POST", func() bool {
		return pageStatus(t, ctx).InputsSent == before.InputsSent+4
	}, func() string { return fmt.Sprintf("status %+v", pageStatus(t, ctx)) })
	once.Do(func() { close(release) })

	testkit.EventuallyDescribe(t, "the program to answer", func() bool {
		return strings.Contains(h.screenText(t), "got: abc")
	}, func() string { return h.screenText(t) })
	waitScreen(t, ctx, "got: abc")
	reachedOnce(t, h, "abc")

	posts := p.postLog()
	conflict := -1
	for i, rec := range posts {
		switch rec.Status {
		case http.StatusConflict:
			if conflict >= 0 {
				t.Fatalf("a second 409 (POST %d): %+v", i, posts)
			}
			conflict = i
		case http.StatusOK:
		default:
			t.Fatalf("POST %d answered %d: %+v", i, rec.Status, posts)
		}
	}
	if conflict < 0 || conflict+1 == len(posts) {
		t.Fatalf("no 409, or nothing after it: %+v", posts)
	}
	next := posts[conflict+1].Batch
	if next.FirstInputSeq == nil || *next.FirstInputSeq != posts[conflict].Ack+1 {
		t.Fatalf("the batch after the 409 (ack %d) starts at %v, want ack+1", posts[conflict].Ack, next.FirstInputSeq)
	}
	if st := pageStatus(t, ctx); st.LaneConnects != before.LaneConnects || st.Carrier != "lane" {
		t.Fatalf("the 409 cost the lane leg: %d lane legs (was %d), carrier %q", st.LaneConnects, before.LaneConnects, st.Carrier)
	}
}

// TestBrowserLaneGone: the relay's half of the page's SSE leg is cut
// while the page's half stays open, silent (a proxy lost its upstream),
// so the relay ends the leg and the page's next POST gets 410. The page
// reopens the lane with a new ticket, resuming, and goes on: the line
// typed reaches the program once and its answer shows on the page.
func TestBrowserLaneGone(t *testing.T) {
	r, h, p, ctx := startLanePage(t, "lane410", 600000)
	driveLine(t, ctx, h, "before the cut")
	before := pageStatus(t, ctx)
	tickets, _ := p.counts()

	p.cutSSE()
	testkit.EventuallyDescribe(t, "the relay to end the page's lane leg", func() bool {
		return relayLegs(t, r, attachwire.RoleDriver) == 0
	}, func() string { return "" })
	driveLine(t, ctx, h, "after the cut")
	if n := p.statuses()[http.StatusGone]; n == 0 {
		t.Fatalf("no POST got 410: %+v", p.postLog())
	}
	st := waitCarrier(t, ctx, "lane")
	if n, _ := p.counts(); st.LaneConnects <= before.LaneConnects || n <= tickets {
		t.Fatalf("after the 410: %d lane legs (was %d), %d tickets (was %d); want a new leg on a new ticket",
			st.LaneConnects, before.LaneConnects, n, tickets)
	}
}

// TestBrowserLaneRetryAfter: the first POST carrying keys is answered
// 429 with Retry-After: 1. The page waits that long, sends the same batch
// again (same batchId) before anything newer, and the line reaches the
// program once.
func TestBrowserLaneRetryAfter(t *testing.T) {
	_, h, p, ctx := startLanePage(t, "lane429", 600000)
	var once sync.Once
	p.setInputRule(func(b attachwire.ViewerBatch) proxyAction {
		var act proxyAction
		if len(b.Inputs) > 0 {
			once.Do(func() { act = proxyAction{Status: http.StatusTooManyRequests, RetryAfter: "1"} })
		}
		return act
	})
	driveLine(t, ctx, h, "wait for it")

	posts := p.postLog()
	for i, rec := range posts {
		if rec.Status != http.StatusTooManyRequests {
			continue
		}
		if i+1 == len(posts) {
			t.Fatal("nothing was posted after the 429")
		}
		next := posts[i+1]
		if next.Batch.BatchID != rec.Batch.BatchID || next.Status != http.StatusOK {
			t.Fatalf("after the 429 of batch %s came batch %s (%d), want the same batch again",
				rec.Batch.BatchID, next.Batch.BatchID, next.Status)
		}
		// A lower bound: a busy machine only makes the wait longer.
		if wait := next.At.Sub(rec.At); wait < time.Second {
			t.Fatalf("the batch was sent again %v after the 429, before its Retry-After of 1 s", wait)
		}
		return
	}
	t.Fatalf("no POST got the 429: %+v", posts)
}

// TestBrowserLaneControlAtUpgrade: while the page moves from the lane back
// to WebSocket (a probe got through, the page's own dial is held by the
// proxy), the window is resized and the person releases the pen. Both
// controls are held and reach the relay once, on the WebSocket leg: the
// pen is free afterwards, and the page then takes it again and drives
// over WebSocket.
func TestBrowserLaneControlAtUpgrade(t *testing.T) {
	_, h, p, ctx := startLanePage(t, "laneup", 200)
	driveLine(t, ctx, h, "on the lane")
	resizes := p.received("resize")
	if n := p.received("release"); n != 0 {
		t.Fatalf("%d releases before the test released the pen", n)
	}

	waiting, release := p.holdWebSockets()
	t.Cleanup(release)
	eval[any](t, ctx, `window.ptyhostViewer.blockWebSocket(false)`)
	// The probes pass; the handshake held while the page is no longer on
	// the lane is its own dial back to WebSocket.
	for {
		var one chan struct{}
		select {
		case one = <-waiting:
		case <-time.After(20 * time.Second):
			t.Fatalf("timed out waiting for the page's dial back to WebSocket; status %+v", pageStatus(t, ctx))
		}
		if !pageStatus(t, ctx).Connected {
			break
		}
		close(one)
	}

	if _, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride,
		emulation.SetDeviceMetricsOverrideParams{Width: 820, Height: 520, DeviceScaleFactor: 1}); err != nil {
		t.Fatalf("resize the window: %v", err)
	}
	testkit.EventuallyDescribe(t, "the page to hold its new viewport", func() bool {
		return pageStatus(t, ctx).Held == 1
	}, func() string { return fmt.Sprintf("status %+v", pageStatus(t, ctx)) })
	eval[any](t, ctx, `document.getElementById('pen-button').click()`)
	testkit.EventuallyDescribe(t, "the page to hold the release", func() bool {
		return pageStatus(t, ctx).Held == 2
	}, func() string { return fmt.Sprintf("status %+v", pageStatus(t, ctx)) })
	release()

	waitCarrier(t, ctx, "websocket")
	var st viewerStatus
	testkit.EventuallyDescribe(t, "the pen to be free", func() bool {
		st = pageStatus(t, ctx)
		return !st.Holding && st.Holder == "" && st.Held == 0
	}, func() string { return fmt.Sprintf("status %+v", st) })
	if n := p.received("release"); n != 1 {
		t.Fatalf("the relay received %d releases, want 1", n)
	}
	if n := p.received("resize") - resizes; n != 1 {
		t.Fatalf("the relay received %d viewports after the lane, want 1", n)
	}

	eval[any](t, ctx, `document.getElementById('pen-button').click()`)
	waitHolding(t, ctx)
	driveLine(t, ctx, h, "back on websocket")
	if n := p.received("release"); n != 1 {
		t.Fatalf("the relay received %d releases by the end, want 1", n)
	}
}

// TestBrowserLaneUnauthorized: a POST answered 401 costs the page one new
// lane leg on a new ticket (the relay checks the token again when it
// mints it), and the line goes through on it once. When the POSTs keep
// getting 401, the page stops after the second instead of dialing on.
func TestBrowserLaneUnauthorized(t *testing.T) {
	_, h, p, ctx := startLanePage(t, "lane401", 600000)
	before := pageStatus(t, ctx)
	tickets, _ := p.counts()
	var once sync.Once
	p.setInputRule(func(b attachwire.ViewerBatch) proxyAction {
		var act proxyAction
		if len(b.Inputs) > 0 {
			once.Do(func() { act = proxyAction{Status: http.StatusUnauthorized} })
		}
		return act
	})
	driveLine(t, ctx, h, "past one 401")
	st := waitCarrier(t, ctx, "lane")
	if n, _ := p.counts(); st.LaneConnects != before.LaneConnects+1 || n != tickets+1 {
		t.Fatalf("after one 401: %d lane legs (was %d), %d tickets (was %d); want one new leg on one new ticket",
			st.LaneConnects, before.LaneConnects, n, tickets)
	}

	p.setInputRule(func(attachwire.ViewerBatch) proxyAction { return proxyAction{Status: http.StatusUnauthorized} })
	typeKeys(t, ctx, "x")
	testkit.EventuallyDescribe(t, "the page to stop", func() bool {
		st = pageStatus(t, ctx)
		return st.Room == "stopped"
	}, func() string { return fmt.Sprintf("status %+v", st) })
	if n := p.statuses()[http.StatusUnauthorized]; n != 3 {
		t.Fatalf("%d POSTs got 401, want 3 (one, then two in a row before stopping)", n)
	}
}
