package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
)

// TestBrowserEarlyPaintDrawnOnce: the boot script's worker paints the
// snapshot before the page's engine runs on the main thread, and once
// that engine has taken over (replaying the dial's messages into it) the
// page's scrollback and screen are the host's, line for line: nothing the
// worker drew is drawn again.
func TestBrowserEarlyPaintDrawnOnce(t *testing.T) {
	bctx := startBrowser(t)
	r := startRelay(t)
	h := startHost(t, r, "early", "shell")
	testkit.EventuallyDescribe(t, "the child's prompt", func() bool { return strings.Contains(h.screenText(t), "ready>") },
		func() string { return h.screenText(t) })
	for i := range 40 {
		if _, err := h.sess.WriteInput([]byte(fmt.Sprintf("row %d\r", i))); err != nil {
			t.Fatal(err)
		}
	}
	testkit.EventuallyDescribe(t, "the child's last answer", func() bool { return strings.Contains(h.screenText(t), "got: row 39") },
		func() string { return h.screenText(t) })
	scr, _, err := h.sess.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, line := range scr.Scrollback {
		var b strings.Builder
		for _, c := range line {
			b.WriteString(c.Content)
		}
		want = append(want, strings.TrimRight(b.String(), " "))
	}
	if len(want) < 20 {
		t.Fatalf("the host kept %d lines of scrollback, want the rows typed", len(want))
	}

	ctx := page(t, bctx, r.pageURL("early", r.token(attachwire.RoleViewer, "early", "vera"))+"&grid=1")
	var l pageLoad
	testkit.EventuallyDescribe(t, "the page's engine to take over", func() bool {
		l = eval[pageLoad](t, ctx, loadJS)
		return l.Marks["page-engine"] > 0
	}, func() string { return sortedMarks(l.Marks) })
	m := l.Marks
	if !(m["engine"] < m["page-engine"] && m["drawn"] < m["page-engine"]) {
		t.Errorf("the snapshot was not drawn from the worker before the page's engine ran: %s", sortedMarks(m))
	}

	var got []string
	testkit.EventuallyDescribe(t, "the page's scrollback to equal the host's", func() bool {
		g := eval[struct {
			History [][]struct {
				T string `json:"t"`
			} `json:"history"`
		}](t, ctx, `window.ptyhostViewer.grid()`)
		got = got[:0]
		for _, line := range g.History {
			var b strings.Builder
			for _, c := range line {
				b.WriteString(c.T)
			}
			got = append(got, strings.TrimRight(b.String(), " "))
		}
		return strings.Join(got, "\n") == strings.Join(want, "\n")
	}, func() string {
		return fmt.Sprintf("page (%d lines):\n%s\nhost (%d lines):\n%s", len(got), strings.Join(got, "\n"), len(want), strings.Join(want, "\n"))
	})
	if p, w := pageScreen(t, ctx), h.screenText(t); p != w {
		t.Errorf("page's screen:\n%s\nhost's:\n%s", p, w)
	}
}
