package web_test

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/sanitize"
	"github.com/ptyhost/ptyhost/internal/term"
	termengine "github.com/ptyhost/ptyhost/internal/term/engine"
	"github.com/ptyhost/ptyhost/internal/term/termtest"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/token"
)

// pageScrollback is the scrollback the page keeps (its xterm.js option
// and its engine's): the host engine of these tests keeps as many, so
// that both drop the same lines.
const pageScrollback = 5000

// frameHost is a host leg fed by the test: its screen is a terminal
// engine of its own, it sends what the test gives it as Output frames,
// and it answers the relay's snapshot requests with that engine's
// snapshot, as a session host does.
type frameHost struct {
	tb    testing.TB
	conn  *relaytest.Conn
	ctx   context.Context
	epoch uint64
	stop  func() // ends the leg and frees the engines

	mu        sync.Mutex
	emu       *termengine.Engine
	seq       uint64
	snapshots int // sent so far
	// relayed is the host's engine fed what the relay forwards instead
	// (its room sanitizer's output, the Driver profile): what a viewer
	// can know where the sanitizer drops or changes a sequence.
	relayed *termengine.Engine
	san     *sanitize.Sanitizer
}

func startFrameHost(tb testing.TB, r *testRelay, room string, cols, rows int, epoch uint64, pre []byte) *frameHost {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	dctx, dcancel := context.WithTimeout(ctx, 10*time.Second)
	defer dcancel()
	tok := r.tokenWith(attachwire.RoleHost, room, "", func(c *token.Claims) ed25519.PrivateKey {
		c.Epoch = &epoch
		return nil
	})
	c, _, err := relaytest.Dial(dctx, "ws://"+r.addr+"/v1/rooms/"+room, tok, nil)
	if err != nil {
		cancel()
		tb.Fatalf("host dial: %v", err)
	}
	if err := c.SendControl(ctx, attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleHost, Epoch: &epoch}); err != nil {
		cancel()
		tb.Fatalf("host subscribe: %v", err)
	}
	opts := term.Options{Cols: cols, Rows: rows, Scrollback: pageScrollback}
	h := &frameHost{tb: tb, conn: c, ctx: ctx, epoch: epoch, emu: termengine.New(opts), relayed: termengine.New(opts),
		san: sanitize.New(sanitize.Options{Profile: sanitize.Driver})}
	// What the process printed before this leg: its screen arrives in
	// the first snapshot, as a late joiner's does.
	h.emu.Write(pre)
	h.relayed.Write(h.san.Append(nil, pre))
	// A host's leg starts with its screen, as a session's subscription
	// does.
	h.snapshot()
	done := make(chan struct{})
	go func() { // answers snapshot requests until the leg closes
		defer close(done)
		for {
			f, err := c.Next(ctx)
			if err != nil {
				return
			}
			if f.Type != attachwire.TypeControl {
				continue
			}
			if ctl, err := attachwire.DecodeControl(f.Payload); err == nil {
				if _, ok := ctl.(attachwire.SnapshotRequest); ok {
					h.snapshot()
				}
			}
		}
	}()
	h.stop = func() {
		cancel()
		c.WS.CloseNow()
		<-done
		h.mu.Lock()
		h.emu.Close()
		h.relayed.Close()
		h.mu.Unlock()
	}
	return h
}

// snapshot sends the engine's snapshot of the stream up to the last seq
// sent, published as the next seq, as a session publishes one.
func (h *frameHost) snapshot() {
	h.mu.Lock()
	defer h.mu.Unlock()
	var scr attachwire.Screen
	h.emu.Screen(&scr)
	scr.Epoch = h.epoch
	h.snapshots++
	snap, err := attachwire.NewSnapshot(h.seq, &scr)
	if err != nil {
		h.tb.Errorf("snapshot: %v", err)
		return
	}
	h.seq++
	f, err := snap.Frame(h.seq, 0)
	if err == nil {
		err = h.conn.Send(h.ctx, f)
	}
	if err != nil && h.ctx.Err() == nil {
		h.tb.Errorf("send snapshot: %v", err)
	}
}

// output feeds p to the host's engine and sends it as the next Output
// frame.
func (h *frameHost) output(p []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.emu.Write(p)
	h.relayed.Write(h.san.Append(nil, p))
	h.seq++
	if err := h.conn.Send(h.ctx, attachwire.Frame{Type: attachwire.TypeOutput, Seq: h.seq, Payload: p}); err != nil {
		h.tb.Fatalf("send output %d: %v", h.seq, err)
	}
}

// grid is the host's screen as the test compares it (relayed: as the
// relay's stream leaves it), and the last seq.
func (h *frameHost) grid(relayed bool) (termtest.Grid, attachwire.Screen, uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var scr attachwire.Screen
	if relayed {
		h.relayed.Screen(&scr)
	} else {
		h.emu.Screen(&scr)
	}
	g := termtest.FromScreenHistory(&scr)
	// The page shows no pending wrap (it paints with autowrap off): the
	// cursor's place compares.
	g.Wrap = termtest.WrapUnknown
	return g, scr, h.seq
}

// pageCell and pageGrid are src/grid.ts's view of the page's screen.
type pageCell struct {
	T  string `json:"t"`
	W  int    `json:"w"`
	A  string `json:"a"`
	Fg string `json:"fg"`
	Bg string `json:"bg"`
}

type pageGrid struct {
	Cols         int          `json:"cols"`
	Rows         int          `json:"rows"`
	Alt          bool         `json:"alt"`
	CursorX      int          `json:"cursorX"`
	CursorY      int          `json:"cursorY"`
	CursorHidden *bool        `json:"cursorHidden"`
	Cells        [][]pageCell `json:"cells"`
	History      [][]pageCell `json:"history"`
}

var attrLetters = map[rune]attachwire.Style{
	'b': attachwire.StyleBold, 'd': attachwire.StyleDim, 'i': attachwire.StyleItalic,
	'u': attachwire.StyleUnderline, 'r': attachwire.StyleReverse, 's': attachwire.StyleStrikethrough,
}

func pageColor(s string) attachwire.Color {
	switch {
	case s == "":
		return attachwire.DefaultColor
	case s[0] == 'p':
		n, _ := strconv.Atoi(s[1:])
		return attachwire.IndexedColor(uint8(n))
	}
	v, _ := strconv.ParseUint(s[1:], 16, 32)
	return attachwire.RGBColor(uint8(v>>16), uint8(v>>8), uint8(v))
}

func (c pageCell) cell() termtest.Cell {
	var a attachwire.Style
	for _, l := range c.A {
		a |= attrLetters[l]
	}
	return termtest.Cell{Text: c.T, Attrs: a, Fg: pageColor(c.Fg), Bg: pageColor(c.Bg)}
}

// grid turns the page's view into a termtest.Grid.
func (p pageGrid) grid() termtest.Grid {
	g := termtest.NewGrid(p.Cols, p.Rows)
	g.CursorRow, g.CursorCol = p.CursorY, p.CursorX
	for y, row := range p.Cells {
		for x, c := range row {
			if y < p.Rows && x < p.Cols {
				g.Cells[y*p.Cols+x] = c.cell()
			}
		}
	}
	g.History = make([][]termtest.Cell, len(p.History))
	for i, row := range p.History {
		g.History[i] = make([]termtest.Cell, len(row))
		for j, c := range row {
			g.History[i][j] = c.cell()
		}
	}
	return g
}

// pageAt is where the page's stream stands: the last seq it applied and
// its epoch (OK false before its first snapshot).
type pageAt struct {
	Seq   uint64 `json:"seq"`
	Epoch uint64 `json:"epoch"`
	OK    bool   `json:"ok"`
}

func pageApplied(tb testing.TB, ctx context.Context) pageAt {
	tb.Helper()
	return eval[pageAt](tb, ctx, `window.ptyhostViewer?.applied?.() ?? {seq: 0, epoch: 0, ok: false}`)
}

// caughtUp reports whether the page has applied h's generation up to its
// last frame.
func (h *frameHost) caughtUp(tb testing.TB, ctx context.Context) bool {
	h.mu.Lock()
	ep, last := h.epoch, h.seq
	h.mu.Unlock()
	a := pageApplied(tb, ctx)
	return a.OK && a.Epoch == ep && a.Seq >= last
}

// sameScreen waits until the page has applied the host's last frame and
// then requires its grid to equal the host's, cell for cell (text, and so
// widths, attributes, colors), with the cursor, its visibility, the
// active buffer and the scrollback.
func sameScreen(t *testing.T, ctx context.Context, h *frameHost, relayed bool, what string) {
	t.Helper()
	want, scr, last := h.grid(relayed)
	testkit.EventuallyDescribe(t, fmt.Sprintf("%s: the page to apply epoch %d seq %d", what, h.epoch, last), func() bool {
		return h.caughtUp(t, ctx)
	}, func() string { return fmt.Sprintf("page at %+v", pageApplied(t, ctx)) })
	p := eval[pageGrid](t, ctx, `window.ptyhostViewer.grid()`)
	got := p.grid()
	d := termtest.Diff(want, got)
	if p.Alt != (scr.Active == attachwire.BufferAlternate) {
		d = append(d, fmt.Sprintf("alternate screen: host %v, page %v", scr.Active == attachwire.BufferAlternate, p.Alt))
	}
	if p.CursorHidden != nil && *p.CursorHidden == scr.CursorVisible {
		d = append(d, fmt.Sprintf("cursor visible: host %v, page %v", scr.CursorVisible, !*p.CursorHidden))
	}
	if len(d) > 0 {
		t.Errorf("%s: the page differs from the host:\n%s\nhost:\n%spage:\n%s", what, strings.Join(d, "\n"), want.Text(), got.Text())
	}
}

// frameSplits cuts data into Output frames several ways.
func frameSplits(data []byte) []struct {
	name   string
	frames [][]byte
} {
	type split = struct {
		name   string
		frames [][]byte
	}
	out := []split{{"whole", [][]byte{data}}}
	rng := rand.New(rand.NewPCG(uint64(len(data)), 7))
	var random [][]byte
	for rest := data; len(rest) > 0; {
		n := min(len(rest), 1+rng.IntN(64))
		random, rest = append(random, rest[:n]), rest[n:]
	}
	out = append(out, split{"random", random})
	if len(data) <= 512 {
		bytewise := make([][]byte, len(data))
		for i := range data {
			bytewise[i] = data[i : i+1]
		}
		out = append(out, split{"bytewise", bytewise})
	}
	return out
}

// diffCase is a stream the page must show as the host's engine does.
type diffCase struct {
	name       string
	cols, rows int
	data       []byte
	// row0, when set, is the text the first row must show (trailing
	// blanks trimmed).
	row0 string
}

// widthCases are streams whose screens depend on character widths.
func widthCases() []diffCase {
	return []diffCase{
		{name: "emoji-overwrite", cols: 20, rows: 3, data: []byte("\u2705\u2705ab\x1b[3DZ|"), row0: "\u2705 Z|b"},
		{name: "emoji-cr", cols: 20, rows: 3, data: []byte("\U0001F600\U0001F600\U0001F600\rAB|"), row0: "AB| \U0001F600"},
		{name: "zwj-family", cols: 20, rows: 3, data: []byte("\U0001F468\u200d\U0001F469\u200d\U0001F467|x")},
		{name: "skin-tone", cols: 20, rows: 3, data: []byte("\U0001F44D\U0001F3FD|\U0001F44B\U0001F3FF|")},
		{name: "flags-vs16", cols: 20, rows: 3, data: []byte("\U0001F1EB\U0001F1F7|\u2764\ufe0f|1\ufe0f\u20e3|e\u0301|")},
		{name: "wide-wrap", cols: 7, rows: 3, data: []byte("abcdef\u65e5\u672c\u8a9e|")},
	}
}

// relayChanges lists the recordings whose screen the relay's sanitizer
// changes (docs/sanitizer.md): it drops or alters a sequence before any
// viewer sees it, so a live viewer's screen is the host engine's fed the
// relayed stream; the test compares with that and checks that each
// listed one still differs, and no other. (A late joiner's snapshot is
// the host's own screen.)
var relayChanges = map[string]string{
	"seq-decaln":       "DECALN (ESC # 8) is dropped",
	"seq-decaln-home":  "DECALN (ESC # 8) is dropped",
	"seq-cup-overflow": "a parameter past 2^31-1 is clamped to 1000 (the engine discards the sequence)",
}

// TestBrowserScreenEqualsHost is the differential test of the page's
// screen: for every recording in the terminal engine's corpus
// (internal/term/termtest) and the width cases, cut into frames several
// ways, a page watching live and a page joining late (on a snapshot)
// each show the host engine's screen, cell for cell.
//
// Each case is a new host generation (a higher epoch superseding the
// last host) in one of two rooms, each watched by one tab: the live tab
// gets the new generation's blank screen and then the case's frames, as
// a page that connected before the program printed does; the late tab
// gets one snapshot of the finished screen, as a late joiner does, over
// whatever the previous case left. A tab a case would spend most of the
// test navigating.
func TestBrowserScreenEqualsHost(t *testing.T) {
	bctx := startBrowser(t)
	r := startRelay(t)
	var cases []diffCase
	for _, rec := range termtest.LoadRecordings(t) {
		cases = append(cases, diffCase{name: rec.Name, cols: rec.Cols, rows: rec.Rows, data: rec.Data})
	}
	cases = append(cases, widthCases()...)
	live, late := page(t, bctx, "about:blank"), page(t, bctx, "about:blank")
	epoch := uint64(testEpoch)
	// next supersedes the room's host with a new generation whose process
	// printed pre before its leg, and opens the room in tab on the first
	// call. The new generation's snapshots (the one its leg starts with
	// and the one the relay asks for at bind) are applied before it
	// returns, so that what follows reaches the page as live frames.
	hosts := map[string]*frameHost{}
	next := func(tab context.Context, room string, c diffCase, pre []byte, what string) *frameHost {
		epoch++
		h := startFrameHost(t, r, room, c.cols, c.rows, epoch, pre)
		if old := hosts[room]; old != nil {
			old.stop()
		} else {
			navigate(t, tab, r.pageURL(room, r.token(attachwire.RoleViewer, room, "vera"))+"&grid=1")
		}
		hosts[room] = h
		testkit.Eventually(t, what+": the new generation's snapshots", func() bool {
			h.mu.Lock()
			n := h.snapshots
			h.mu.Unlock()
			return n >= 2 && h.caughtUp(t, tab)
		})
		return h
	}
	t.Cleanup(func() {
		for _, h := range hosts {
			h.stop()
		}
	})
	seen := map[string]bool{}
	for _, c := range cases {
		_, relayed := relayChanges[c.name]
		for _, sp := range frameSplits(c.data) {
			what := fmt.Sprintf("%s (%s, %d frames)", c.name, sp.name, len(sp.frames))
			h := next(live, "diff-live", c, nil, what)
			for _, f := range sp.frames {
				h.output(f)
			}
			if sp.name == "whole" {
				host, _, _ := h.grid(false)
				fwd, _, _ := h.grid(true)
				if changed := len(termtest.Diff(host, fwd)) > 0; changed != relayed {
					t.Errorf("%s: the relay's sanitizer changes the screen: %v; listed in relayChanges: %v", c.name, changed, relayed)
				}
				seen[c.name] = true
			}
			sameScreen(t, live, h, relayed, what+", live")
		}
		what := c.name + ", late join"
		h := next(late, "diff-late", c, c.data, what)
		// A snapshot is the host's screen: what the relay's sanitizer
		// changes in the stream, it cannot change in a screen's cells.
		sameScreen(t, late, h, false, what)
		if c.row0 != "" {
			g := eval[pageGrid](t, late, `window.ptyhostViewer.grid()`).grid()
			if row := strings.SplitN(g.Text(), "\n", 2)[0]; row != c.row0 {
				t.Errorf("%s: row 0 is %q, want %q", what, row, c.row0)
			}
		}
	}
	termtest.CheckTableNames(t, relayChanges, seen)
}

// navigate opens url in the tab ctx.
func navigate(tb testing.TB, ctx context.Context, url string) {
	tb.Helper()
	nctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(nctx, chromedp.Navigate(url)); err != nil {
		tb.Fatalf("open %s: %v", url, err)
	}
}
