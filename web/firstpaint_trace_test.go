package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/tracing"
	"github.com/chromedp/chromedp"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
)

// traceEnv names the file TestFirstPaintTrace writes a cold viewer load's
// Chromium trace to (the JSON the browser's performance panel opens).
// Without it the test skips: it is a tool for reading where first paint
// goes, not a check. With PTYHOST_FIRSTPAINT_TRACE_BASELINE=1 it records
// the benchmark's xterm.js-only page instead.
const traceEnv = "PTYHOST_FIRSTPAINT_TRACE"

// traceEvent is one event of Chromium's trace format.
type traceEvent struct {
	Name string          `json:"name"`
	ID   string          `json:"id"`
	Cat  string          `json:"cat"`
	Ph   string          `json:"ph"`
	Ts   float64         `json:"ts"`
	Dur  float64         `json:"dur"`
	Pid  int             `json:"pid"`
	Tid  int             `json:"tid"`
	Args json.RawMessage `json:"args"`
}

// TestFirstPaintTrace records a cold load of the viewer page in Chromium
// and logs its renderer main thread's tasks longer than a millisecond,
// in ms since navigation, beside the page's start-up marks.
func TestFirstPaintTrace(t *testing.T) {
	out := os.Getenv(traceEnv)
	if out == "" {
		t.Skip(traceEnv + " is not set: set it to a file to record a cold viewer load's trace")
	}
	bctx := startBrowser(t)
	r := startRelay(t)
	h := startHost(t, r, "trace", "shell")
	testkit.EventuallyDescribe(t, "the child's prompt", func() bool { return strings.Contains(h.screenText(t), "ready>") },
		func() string { return h.screenText(t) })

	ctx, cancel := chromedp.NewContext(bctx, chromedp.WithNewBrowserContext())
	defer cancel()
	ctx, tcancel := context.WithTimeout(ctx, 60*time.Second)
	defer tcancel()
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, cdppage.AddScriptToEvaluateOnNewDocument,
		cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: paintProbe}); err != nil {
		t.Fatal(err)
	}
	var events []traceEvent
	done := make(chan struct{})
	err := chromedp.Listen(ctx, func(ev any) {
		switch e := ev.(type) {
		case *tracing.EventDataCollected:
			for _, raw := range e.Value {
				var te traceEvent
				if json.Unmarshal(raw, &te) == nil {
					events = append(events, te)
				}
			}
		case *tracing.EventTracingComplete:
			close(done)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	cats := []string{"disabled-by-default-v8.cpu_profiler", "devtools.timeline", "v8", "v8.wasm", "disabled-by-default-devtools.timeline", "blink.user_timing", "loading", "navigation"}
	if _, err := chromedp.Call(ctx, tracing.Start, tracing.StartParams{
		TransferMode: tracing.StartTransferModeReportEvents,
		TraceConfig:  &tracing.TraceConfig{IncludedCategories: cats},
	}); err != nil {
		t.Fatal(err)
	}
	url := r.pageURL("trace", r.token(attachwire.RoleViewer, "trace", "vera"))
	if os.Getenv(traceEnv+"_BASELINE") == "1" {
		r.mu.Lock()
		r.extra = baselinePage(t, shellBanner())
		r.mu.Unlock()
		url = "http://" + r.addr + "/bench/xterm/page"
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	var l pageLoad
	testkit.Eventually(t, "the text drawn", func() bool {
		l = eval[pageLoad](t, ctx, loadJS)
		return l.Paint >= 0
	})
	time.Sleep(200 * time.Millisecond)
	if _, err := chromedp.Call(ctx, tracing.End, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	<-done
	b, err := json.Marshal(map[string]any{"traceEvents": events})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("paint %.1f ms; marks: %s", l.Paint, sortedMarks(l.Marks))
	t.Log("\n" + mainThreadTasks(events))
}

// mainThreadTasks lists the tasks of the page's main thread (and what
// ran in them) of a millisecond or more, in ms since the navigation's
// start: when it ran, how long, what, and the event's arguments.
func mainThreadTasks(events []traceEvent) string {
	// The page's main thread is the one that records its navigation.
	var start float64
	mainPid, mainTid := -1, -1
	for _, e := range events {
		if e.Name == "navigationStart" && start == 0 {
			start, mainPid, mainTid = e.Ts, e.Pid, e.Tid
		}
	}
	var sb strings.Builder
	var xs []traceEvent
	for _, e := range events {
		if e.Ph == "X" && e.Pid == mainPid && e.Tid == mainTid && e.Dur >= 1000 && e.Ts >= start {
			xs = append(xs, e)
		}
	}
	sort.Slice(xs, func(i, j int) bool { return xs[i].Ts < xs[j].Ts })
	for _, e := range xs {
		arg := string(e.Args)
		if len(arg) > 140 {
			arg = arg[:140]
		}
		fmt.Fprintf(&sb, "%8.1f %7.1f %-28s %s\n", (e.Ts-start)/1000, e.Dur/1000, e.Name, arg)
	}
	return sb.String()
}
