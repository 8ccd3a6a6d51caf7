package web_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
	"github.com/ptyhost/ptyhost/internal/testkit"
)

// markerLine is line n of the sealed rewind test's session.
func markerLine(n int) string {
	return fmt.Sprintf("line %d: marker M%dQ, with some length to it", n, n)
}

var markerRow = regexp.MustCompile(`^line (\d+): marker M(\d+)Q, with some length to it$`)

// markerRows checks that the rows of screen that are not blank are the
// session's lines, one after another (after READY, and the last maybe
// cut where a frame ended), and returns the last whole one's number.
func markerRows(t *testing.T, screen string) int {
	t.Helper()
	last := 0
	rows := strings.Split(strings.TrimRight(screen, "\n "), "\n")
	for i, row := range rows {
		row = strings.TrimRight(row, " ")
		if row == "" || row == "READY" && last == 0 {
			continue
		}
		m := markerRow.FindStringSubmatch(row)
		switch {
		case m == nil && i == len(rows)-1 && last != 0 && strings.HasPrefix(markerLine(last+1), row):
			continue // the line the frame cut
		case m == nil || m[1] != m[2]:
			t.Fatalf("row %q is not a line of the session; the screen:\n%s", row, screen)
		}
		n, _ := strconv.Atoi(m[1])
		if last != 0 && n != last+1 {
			t.Fatalf("row %q does not follow line %d; the screen:\n%s", row, last, screen)
		}
		last = n
	}
	return last
}

// TestBrowserRewindAndSearchSealed: in a sealed room the page rewinds and
// searches the relay's history as in a plain one, opening its sealed
// frames with the link's key: search finds a line printed once, long off
// the screen; rewinding to it shows the screen exactly as it was as the
// line was printed; nothing the page searched for reaches the relay (its
// requests and its log hold no search term). A history frame altered on
// the way is skipped, never drawn or searched, and the page says so; once
// the host moves to a new key, the history under it is refused whole.
func TestBrowserRewindAndSearchSealed(t *testing.T) {
	bctx := startBrowser(t)
	r, traffic := startRelayTraced(t, t.TempDir())
	key, err := seal.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	const room = "sealed-rw"
	rekey := make(chan *seal.Key, 1)
	sess := hostSealedCommand(t, r, room, key, rekey, "sh", "-c",
		`stty -echo; echo READY; read x; seq 1 3000 | sed 's/.*/line &: marker M&Q, with some length to it/'; echo ALL-DONE; exec sleep 600`)
	ctx := page(t, bctx, r.pageURL(room, r.token(attachwire.RoleViewer, room, "vera"))+"&key="+key.Encode())
	waitScreen(t, ctx, "READY")
	sess.WriteInput([]byte("\n"))
	waitScreen(t, ctx, "ALL-DONE")

	const term = "m1234q" // the page's search is case-insensitive
	var found []pageFound
	testkit.EventuallyDescribe(t, "the search to find the marker", func() bool {
		found = eval[[]pageFound](t, ctx, `ptyhostViewer.search('`+term+`')`)
		return len(found) == 1
	}, func() string { return fmt.Sprintf("%+v", found) })
	if found[0].Line != markerLine(1234) {
		t.Errorf("found %+v", found[0])
	}
	// The screen as line 1234 was printed: the 29 lines up to it, the
	// cursor on the bottom row.
	eval[float64](t, ctx, fmt.Sprintf(`ptyhostViewer.rewindTo(%d, %d)`, found[0].Seq, found[0].End))
	past := strings.Split(eval[string](t, ctx, `ptyhostViewer.replayScreen()`), "\n")
	want := make([]string, 30)
	for i := range 29 {
		want[i] = markerLine(1234 - 28 + i)
	}
	for i := range want {
		if i >= len(past) || strings.TrimRight(past[i], " ") != want[i] {
			t.Fatalf("rewound to the marker, the screen shows:\n%s\nwant:\n%s", strings.Join(past, "\n"), strings.Join(want, "\n"))
		}
	}
	ix := eval[pageIndex](t, ctx, `ptyhostViewer.historyIndex()`)
	eval[float64](t, ctx, fmt.Sprintf(`ptyhostViewer.rewindTo(%d)`, (ix.First+ix.Head)/2))
	if n := markerRows(t, eval[string](t, ctx, `ptyhostViewer.replayScreen()`)); n < 1 || n >= 3000 {
		t.Errorf("rewound half way, the screen ends at line %d", n)
	}
	eval[float64](t, ctx, fmt.Sprintf(`ptyhostViewer.rewindTo(%d)`, ix.Head))
	if now := eval[string](t, ctx, `ptyhostViewer.replayScreen()`); !strings.Contains(now, "ALL-DONE") {
		t.Errorf("rewound to the head, the screen shows:\n%s", now)
	}
	if n := eval[int](t, ctx, `ptyhostViewer.historyUnreadable()`); n != 0 {
		t.Errorf("%d history frames failed to open", n)
	}

	// The marker's frame altered on its way from the relay: the search
	// skips it, the rewind draws the screen without it, and both say so.
	traffic.alter(uint64(found[0].Seq))
	if again := eval[[]pageFound](t, ctx, `ptyhostViewer.search('`+term+`')`); len(again) != 0 {
		t.Errorf("the search found %+v in a frame that failed to open", again)
	}
	if n := eval[int](t, ctx, `ptyhostViewer.historyUnreadable()`); n != 1 {
		t.Errorf("the search skipped %d frames, want 1", n)
	}
	if say := eval[string](t, ctx, `document.getElementById('notice').textContent`); !strings.Contains(say, "failed its integrity check") {
		t.Errorf("after the search the page says %q", say)
	}
	eval[float64](t, ctx, fmt.Sprintf(`ptyhostViewer.rewindTo(%d)`, found[0].Seq))
	altered := eval[string](t, ctx, `ptyhostViewer.replayScreen()`)
	if strings.Contains(altered, "M1234Q") || !strings.Contains(altered, "marker") {
		t.Errorf("rewound to the altered frame, the screen shows:\n%s", altered)
	}
	if say := eval[string](t, ctx, `document.getElementById('notice').textContent`); !strings.Contains(say, "failed its integrity check") {
		t.Errorf("after the rewind the page says %q", say)
	}
	traffic.alter(0)

	if n := traffic.count("/history/frames"); n < 4 {
		t.Fatalf("the page read the history %d times: the test proves nothing", n)
	}
	seen := strings.ToLower(traffic.seen())
	for _, s := range []string{term, "marker m", "some length"} {
		if strings.Contains(seen, s) {
			t.Errorf("the relay was sent, or logged, %q", s)
		}
	}
	saveScreenshot(t, ctx, "ptyhost-browser-rewind-sealed.png")

	// The host moves to a new key: the relay's history starts again under
	// it, and this page's link reads none of it, drawing nothing.
	newKey, err := seal.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	rekey <- newKey
	const tryRead = `ptyhostViewer.search('m1q').then((f) => 'found ' + f.length, (e) => String(e.message ?? e))`
	var said string
	testkit.EventuallyDescribe(t, "the page to say the history is under another key", func() bool {
		said = eval[string](t, ctx, tryRead)
		return strings.Contains(said, "another key")
	}, func() string { return "the search says " + said })
	const tryRewind = `ptyhostViewer.rewindTo(1).then(() => 'drawn', (e) => String(e.message ?? e))`
	if said := eval[string](t, ctx, tryRewind); !strings.Contains(said, "another key") {
		t.Errorf("a rewind under the new key says %q", said)
	}
	if now := eval[string](t, ctx, `ptyhostViewer.replayScreen()`); now != altered {
		t.Errorf("the history under the new key changed the page's screen to:\n%s", now)
	}
}
