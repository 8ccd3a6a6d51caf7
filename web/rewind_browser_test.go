package web_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/attachclient"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
	"github.com/ptyhost/ptyhost/internal/testkit"
)

// hostCommand runs argv in a session carried to room by attachclient (the
// host that answers the relay's key frame requests beside the stream).
func hostCommand(tb testing.TB, r *testRelay, room string, argv ...string) *ptyhost.Session {
	tb.Helper()
	return hostSealedCommand(tb, r, room, nil, nil, argv...)
}

// hostSealedCommand is hostCommand in a room sealed under key (nil: a
// plain room), the host taking new keys from rekey (nil: none).
func hostSealedCommand(tb testing.TB, r *testRelay, room string, key *seal.Key, rekey <-chan *seal.Key, argv ...string) *ptyhost.Session {
	tb.Helper()
	sess, err := ptyhost.Spawn(ptyhost.Spec{Command: argv, Cols: 100, Rows: 30, Epoch: testEpoch})
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		attachclient.RunHost(ctx, attachclient.HostConfig{
			AttachURL: "ws://" + r.addr + "/v1/rooms/" + room,
			TokenSource: func(context.Context) (string, error) {
				return r.token(attachwire.RoleHost, room, ""), nil
			},
			Session: sess.Agent(),
			Logger:  slog.New(slog.DiscardHandler),
			Key:     key,
			Rekey:   rekey,
		})
	}()
	tb.Cleanup(func() {
		cancel()
		<-done
		sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer scancel()
		sess.Stop(sctx)
	})
	return sess
}

type pageIndex struct {
	First int64 `json:"first"`
	Head  int64 `json:"head"`
}

type pageFound struct {
	Seq  int64  `json:"seq"`
	End  int64  `json:"end"`
	Line string `json:"line"`
}

// TestBrowserRewindAndSearch: a line printed once, long before the screen
// and the page's scrollback (5,000 lines) moved on, is found by the page's search over the relay's
// history, and rewinding to it shows the screen as it was then, the
// status saying so instead of "live"; "Live" goes back to the session,
// and the status to "live".
func TestBrowserRewindAndSearch(t *testing.T) {
	bctx := startBrowser(t)
	r := startRelayWith(t, t.TempDir())
	// The program starts printing once the page is there: the join's
	// snapshot is then the history's first key frame, before the needle.
	sess := hostCommand(t, r, "rw", "sh", "-c",
		`stty -echo; echo READY; read x; echo 'NEEDLE printed once'; seq 1 6000 | sed 's/^/filler line with some length to it /'; echo ALL-DONE; exec sleep 600`)
	ctx := page(t, bctx, r.pageURL("rw", r.token(attachwire.RoleViewer, "rw", "vera")))
	waitScreen(t, ctx, "READY")
	sess.WriteInput([]byte("\n"))
	waitScreen(t, ctx, "ALL-DONE")
	if live := pageScreen(t, ctx); strings.Contains(live, "NEEDLE") {
		t.Fatal("the needle is still on the live screen: the test proves nothing")
	}
	var found []pageFound
	testkit.EventuallyDescribe(t, "the search to find the needle", func() bool {
		found = eval[[]pageFound](t, ctx, `ptyhostViewer.search('needle PRINTED')`)
		return len(found) == 1
	}, func() string { return fmt.Sprintf("%+v", found) })
	if found[0].Line != "NEEDLE printed once" {
		t.Errorf("found %+v", found[0])
	}
	// The needle's frame printed hundreds of lines after it: the rewind
	// stops where the match ends, so the line is on the screen.
	ms := eval[float64](t, ctx, fmt.Sprintf(`ptyhostViewer.rewindTo(%d, %d)`, found[0].Seq, found[0].End))
	past := eval[string](t, ctx, `ptyhostViewer.replayScreen()`)
	if !strings.Contains(past, "NEEDLE printed once") {
		ix := eval[map[string]any](t, ctx, `ptyhostViewer.historyIndex()`)
		t.Fatalf("rewound to seq %d (key frames %v), the screen shows:\n%s", found[0].Seq, ix["keyframes"], past)
	}
	t.Logf("rewind drawn in %.0f ms", ms)
	if hidden := eval[bool](t, ctx, `document.getElementById('term').hidden && !document.getElementById('replay').hidden`); !hidden {
		t.Error("the history's screen is not the one in view")
	}
	const roomChip = `document.getElementById('room').textContent`
	if say := eval[string](t, ctx, roomChip); !strings.HasPrefix(say, "rewound to ") || !strings.Contains(say, fmt.Sprintf("(seq %d)", found[0].Seq)) {
		t.Errorf("rewound to seq %d, the status says %q", found[0].Seq, say)
	}
	ix := eval[pageIndex](t, ctx, `ptyhostViewer.historyIndex()`)
	eval[float64](t, ctx, fmt.Sprintf(`ptyhostViewer.rewindTo(%d)`, ix.Head))
	if now := eval[string](t, ctx, `ptyhostViewer.replayScreen()`); !strings.Contains(now, "ALL-DONE") {
		t.Errorf("rewound to the head, the screen shows:\n%s", now)
	}
	saveScreenshot(t, ctx, "ptyhost-browser-rewind.png")
	eval[any](t, ctx, `ptyhostViewer.showLive(), null`)
	if live := eval[bool](t, ctx, `!document.getElementById('term').hidden && document.getElementById('replay').hidden`); !live {
		t.Error("Live did not bring the live terminal back")
	}
	var say string
	testkit.EventuallyDescribe(t, "the status to say live again", func() bool {
		say = eval[string](t, ctx, roomChip)
		return say == "live"
	}, func() string { return "the status says " + say })
}

// BenchmarkBrowserRewind records a 100 MiB session in the relay's history
// (key frames every 64 KiB here, as the harness's relay keeps them) and
// rewinds the page to ten points spread over it: ms/rewind is from the
// request to the history's screen drawn (xterm's next frame after the
// last write), the median of the ten and its worst beside it. Then the
// page searches the whole history once for a text it does not hold:
// ms/search, from the request of the index to the last range read.
func BenchmarkBrowserRewind(b *testing.B) { benchRewind(b, nil) }

// BenchmarkBrowserRewindSealed is BenchmarkBrowserRewind in a sealed
// room: the page opens every frame it rewinds over or searches.
func BenchmarkBrowserRewindSealed(b *testing.B) {
	key, err := seal.GenerateKey()
	if err != nil {
		b.Fatal(err)
	}
	benchRewind(b, key)
}

func benchRewind(b *testing.B, key *seal.Key) {
	bctx := startBrowser(b)
	r := startRelayWith(b, b.TempDir())
	hostSealedCommand(b, r, "bench", key, nil, "sh", "-c",
		`stty -echo; yes 'a line of output with \033[32mcolour\033[0m and some more text to fill it' | head -c 104857600; echo ALL-DONE; exec sleep 600`)
	url := r.pageURL("bench", r.token(attachwire.RoleViewer, "bench", "vera"))
	if key != nil {
		url += "&key=" + key.Encode()
	}
	ctx := page(b, bctx, url)
	deadline := time.Now().Add(5 * time.Minute)
	for !strings.Contains(pageScreen(b, ctx), "ALL-DONE") {
		if time.Now().After(deadline) {
			b.Fatal("the session never finished printing")
		}
		time.Sleep(200 * time.Millisecond)
	}
	ix := eval[pageIndex](b, ctx, `ptyhostViewer.historyIndex()`)
	var times []float64
	b.ResetTimer()
	for b.Loop() {
		for i := range 10 {
			seq := ix.First + (ix.Head-ix.First)*int64(i)/10
			times = append(times, eval[float64](b, ctx, fmt.Sprintf(`ptyhostViewer.rewindTo(%d)`, seq)))
		}
	}
	b.StopTimer()
	search := evalWithin[float64](b, ctx, 5*time.Minute,
		`(async () => { const t0 = performance.now(); await ptyhostViewer.search('nowhere-in-it'); return performance.now() - t0; })()`)
	if n := eval[int](b, ctx, `ptyhostViewer.historyUnreadable()`); n != 0 {
		b.Fatalf("%d history frames failed to open", n)
	}
	b.Logf("rewinds (ms): %.0f; search %.0f ms", times, search)
	slices.Sort(times)
	b.ReportMetric(times[len(times)/2], "ms/rewind")
	b.ReportMetric(times[len(times)-1], "ms/worst-rewind")
	b.ReportMetric(search, "ms/search")
}
