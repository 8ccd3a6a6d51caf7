package viewer_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/viewer"
	"github.com/ptyhost/ptyhost/web/engine"
)

// oneShot is an HTTP client that keeps no idle connection (the tests
// check that nothing is left running).
var oneShot = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

func newHistory(s *relaytest.Server, t *testing.T) *viewer.History {
	return &viewer.History{AttachURL: s.RoomURL(room), Token: s.ViewerToken(t, room, "rewinder"), SessionID: room, HTTPClient: oneShot}
}

func historyRelay(t *testing.T, historyBytes int64) *relaytest.Server {
	cfg := quiet()
	cfg.HistoryDir = t.TempDir()
	cfg.KeyframeBytes = 4 << 10
	cfg.HistoryBytes = historyBytes
	return relaytest.NewServer(t, cfg)
}

func waitHistoryHead(t *testing.T, h *viewer.History, head uint64) viewer.HistoryIndex {
	t.Helper()
	var ix viewer.HistoryIndex
	testkit.Eventually(t, fmt.Sprintf("the history to reach seq %d", head), func() bool {
		var err error
		ix, err = h.Index(context.Background())
		return err == nil && ix.Head >= head
	})
	return ix
}

// TestHistoryRewind rebuilds the screen at points of a session's past
// from the relay's history: each equals the host's screen at that seq.
// The key frames the relay asks for reach no live viewer.
func TestHistoryRewind(t *testing.T) {
	s := historyRelay(t, 0)
	host := newHost(t, s, 1, 40, 8)
	live, rec := dial(t, s.URL, s.ViewerToken(t, room, "live"), attachwire.RoleViewer)
	waitMirror(t, live, host)
	snapshotsBefore := rec.count(viewer.EventSnapshot)

	h := newHistory(s, t)
	// Six bursts of about 5 KiB, each past KeyframeBytes (how many key
	// frames a burst gets while the host is busy is up to timing).
	points := printBursts(t, h, host, 6, 150, 97, func(i int) []byte {
		return fmt.Appendf(nil, "\x1b[3%dmline %d of the session\x1b[0m\r\n", i%8, i)
	})
	_, head := host.screen()
	ix := waitHistoryHead(t, h, head)
	for _, p := range points {
		got, err := h.ScreenAt(context.Background(), p.seq)
		if err != nil {
			t.Fatalf("seq %d: %v", p.seq, err)
		}
		if d := screenDiff(p.scr, got); d != "" {
			t.Errorf("screen at seq %d differs from the host's: %s", p.seq, d)
		}
	}
	// The whole history reads back in ranges, contiguous.
	next, n := ix.First, 0
	for next <= head {
		frames, nx, err := h.Frames(context.Background(), next, head)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range frames {
			if f.Seq != next {
				t.Fatalf("range gave seq %d, want %d", f.Seq, next)
			}
			next++
			n++
		}
		if nx != next {
			t.Fatalf("next %d, want %d", nx, next)
		}
	}
	if n == 0 {
		t.Fatal("no frames in the history")
	}
	// Key frames went beside the stream: the live viewer saw none.
	waitAt(t, live, head)
	if got := rec.count(viewer.EventSnapshot); got != snapshotsBefore {
		t.Errorf("the live viewer got %d snapshots during the session, want none", got-snapshotsBefore)
	}
}

// screenPoint is a seq of a session and the host's screen there.
type screenPoint struct {
	seq uint64
	scr attachwire.Screen
}

// printBursts has host print bursts of n lines (line(i) the i-th of all),
// keeping the host's screen every every lines; each burst goes past
// KeyframeBytes, so the relay asks for a key frame after it, and the
// next waits until h's index has it (the join's snapshot is the first).
func printBursts(t *testing.T, h *viewer.History, host *testHost, bursts, n, every int, line func(i int) []byte) []screenPoint {
	t.Helper()
	var points []screenPoint
	for burst := range bursts {
		for i := burst * n; i < (burst+1)*n; i++ {
			host.output(line(i))
			if i%every == 0 {
				scr, seq := host.screen()
				points = append(points, screenPoint{seq, scr})
			}
		}
		testkit.Eventually(t, fmt.Sprintf("a key frame after burst %d", burst), func() bool {
			ix, err := h.Index(context.Background())
			return err == nil && len(ix.Keyframes) >= burst+2
		})
	}
	return points
}

// TestHistoryKeepsTheNewest bounds the history: past HistoryBytes the
// oldest part goes, a rewind there says so, and recent points still work.
func TestHistoryKeepsTheNewest(t *testing.T) {
	s := historyRelay(t, 256<<10)
	host := newHost(t, s, 1, 80, 24)
	line := strings.Repeat("x", 70)
	for i := range 8000 {
		host.output(fmt.Appendf(nil, "%05d %s\r\n", i, line))
	}
	scr, head := host.screen()
	h := newHistory(s, t)
	ix := waitHistoryHead(t, h, head)
	if ix.First <= 1 {
		t.Fatalf("history still starts at seq %d after %d seqs of 80 bytes in 256 KiB", ix.First, head)
	}
	if _, err := h.ScreenAt(context.Background(), 2); !errors.Is(err, viewer.ErrHistoryGone) {
		t.Errorf("rewind to a removed point: %v", err)
	}
	got, err := h.ScreenAt(context.Background(), head)
	if err != nil {
		t.Fatal(err)
	}
	if d := screenDiff(scr, got); d != "" {
		t.Errorf("screen at the head: %s", d)
	}
}

// TestHistoryRefusals: the history is a viewer's, for its own room.
func TestHistoryRefusals(t *testing.T) {
	s := historyRelay(t, 0)
	host := newHost(t, s, 1, 40, 8)
	host.output([]byte("hello"))
	// The room keeps a history from its host's bind on: wait for it, so
	// that each case below meets the check it is about.
	waitHistoryHead(t, newHistory(s, t), 1)
	get := func(tok, path string) int {
		req, _ := http.NewRequest(http.MethodGet, strings.Replace(s.RoomURL(room), "ws://", "http://", 1)+path, nil)
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := oneShot.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	viewerTok := s.ViewerToken(t, room, "v")
	for _, tc := range []struct {
		name, tok, path string
		want            int
	}{
		{"no token", "", "/history", http.StatusUnauthorized},
		{"bad token", "x.y.z", "/history", http.StatusUnauthorized},
		{"host token", s.HostToken(t, room, 1), "/history", http.StatusForbidden},
		{"other room", s.ViewerToken(t, "other", "v"), "/history", http.StatusForbidden},
		{"no query", viewerTok, "/history/frames", http.StatusBadRequest},
		{"both forms", viewerTok, "/history/frames?at=1&from=1&to=2", http.StatusBadRequest},
		{"from after to", viewerTok, "/history/frames?from=5&to=2", http.StatusBadRequest},
		{"from zero", viewerTok, "/history/frames?from=0&to=2", http.StatusBadRequest},
		{"not a number", viewerTok, "/history/frames?at=-1", http.StatusBadRequest},
		{"ahead of the head", viewerTok, "/history/frames?at=999999", http.StatusGone},
		{"index", viewerTok, "/history", http.StatusOK},
	} {
		if got := get(tc.tok, tc.path); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
	// A relay without a history directory has none to give.
	plain := relaytest.NewServer(t, relay.Config{})
	newHost(t, plain, 1, 40, 8)
	h := newHistory(plain, t)
	if _, err := h.Index(context.Background()); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("index without history: %v", err)
	}
}

// BenchmarkHistoryRewind records a 100 MiB session (mixed output, 4 KiB
// frames) in a relay's history, then rebuilds the screen at ten points
// spread over it: ms/rewind is one ScreenAt, request to screen, the part
// of a page's rewind before it paints.
func BenchmarkHistoryRewind(b *testing.B) {
	const size = 100 << 20
	cfg := quiet()
	cfg.HistoryDir = b.TempDir()
	cfg.HistoryBytes = 2 * size
	s := relaytest.NewServer(b, cfg)
	host := newHost(b, s, 1, 120, 40)
	line := []byte(strings.Repeat("\x1b[32mok\x1b[0m output line with some colour ", 2) + "\r\n")
	frame := bytes.Repeat(line, 4096/len(line))
	for sent := 0; sent < size; sent += len(frame) {
		host.output(frame)
	}
	_, head := host.screen()
	h := &viewer.History{AttachURL: s.RoomURL(room), Token: s.ViewerToken(b, room, "bench"), SessionID: room, HTTPClient: oneShot}
	ctx := context.Background()
	var ix viewer.HistoryIndex
	for {
		var err error
		if ix, err = h.Index(ctx); err != nil {
			b.Fatal(err)
		}
		if ix.Head >= head {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	first := ix.Keyframes[0].Seq // the first screen a rewind can show
	b.ResetTimer()
	start := time.Now()
	n := 0
	for b.Loop() {
		for i := range 10 {
			if _, err := h.ScreenAt(ctx, first+(head-first)*uint64(i)/10); err != nil {
				b.Fatal(err)
			}
			n++
		}
	}
	b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(n), "ms/rewind")
}

// TestHistorySearchFindsAnHourAgo: a line printed once, an hour of session
// time and megabytes of output before the search, is found by reading the
// whole history in ranges through the page's searcher, and the index
// places it an hour back.
func TestHistorySearchFindsAnHourAgo(t *testing.T) {
	s := historyRelay(t, 0)
	host := newHost(t, s, 1, 80, 24)
	at := host.outputAt(1_000_000, []byte("the deploy token was \x1b[1mROTATED\x1b[0m here\r\n"))
	filler := bytes.Repeat([]byte("routine output line, nothing to see\r\n"), 100)
	for i := range 800 { // about 3 MiB, well past the ring
		host.outputAt(3_600_000_000+uint64(i)*1000, filler)
	}
	_, head := host.screen()
	h := newHistory(s, t)
	ix := waitHistoryHead(t, h, head)
	searcher := engine.NewSearcher("rotated HERE")
	var found []engine.Match
	for next := ix.First; next <= head; {
		frames, nx, err := h.Frames(context.Background(), next, head)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range frames {
			found = searcher.Feed(f, found)
		}
		if nx <= next {
			t.Fatalf("no progress at seq %d", next)
		}
		next = nx
	}
	if len(found) != 1 || found[0].Seq != at || found[0].Line != "the deploy token was ROTATED here" {
		t.Fatalf("found %+v, want the line at seq %d", found, at)
	}
	// The timeline puts the head an hour after the match.
	last := ix.Points[len(ix.Points)-1]
	if last.RelTime < 3_600_000_000 {
		t.Errorf("the index's last point is at %d µs, not an hour on", last.RelTime)
	}
}
