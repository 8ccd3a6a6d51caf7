package main

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
)

// memPath is where a server under test reports its memory, after a
// collection that returns what it can to the kernel.
const memPath = "/bench/mem"

// memReport is a server's memory as memPath reports it.
type memReport struct {
	RSS        int64 `json:"rss"`   // VmRSS, bytes
	Heap       int64 `json:"heap"`  // live heap after the collection
	Stacks     int64 `json:"stack"` // goroutine stacks in use
	Goroutines int   `json:"goroutines"`
}

// withMem serves memPath beside h.
func withMem(h http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", h)
	mux.HandleFunc(memPath, func(w http.ResponseWriter, r *http.Request) {
		debug.FreeOSMemory()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		rep := memReport{Heap: int64(ms.HeapAlloc), Stacks: int64(ms.StackInuse), Goroutines: runtime.NumGoroutine()}
		rep.RSS, _ = vmRSS()
		json.NewEncoder(w).Encode(rep)
	})
	mux.HandleFunc("/bench/heap", func(w http.ResponseWriter, r *http.Request) {
		runtime.GC()
		pprof.Lookup("heap").WriteTo(w, 0)
	})
	return mux
}

// vmRSS reads this process's resident set from /proc/self/status.
func vmRSS() (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/self/status")
}

// readMem asks server s for its memory report.
func readMem(ctx context.Context, s *server) (memReport, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+s.addr+memPath, nil)
	if err != nil {
		return memReport{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return memReport{}, err
	}
	defer resp.Body.Close()
	var rep memReport
	return rep, json.NewDecoder(resp.Body).Decode(&rep)
}

// idleResult is what n idle viewers cost a server, per viewer.
type idleResult struct {
	before, after memReport
	n             int
}

func (r idleResult) perViewer(f func(memReport) int64) float64 {
	return float64(f(r.after)-f(r.before)) / float64(r.n)
}

// idle dials n viewers into rooms fresh rooms of s (n/rooms each), waits
// until each has had its first message from the relay (the room's state;
// for the bare forwarder, the accepted dial), lets the server settle and
// reads its memory, then closes them all. The viewers stay idle: nothing
// is published, nothing read but that first message, no host dials.
func idle(ctx context.Context, s *server, key ed25519.PrivateKey, tag string, n, rooms int) (idleResult, error) {
	bare := s.name == "bare"
	res := idleResult{n: n}
	var err error
	if res.before, err = readMem(ctx, s); err != nil {
		return res, err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	var (
		conns   = make([]*websocket.Conn, n)
		ready   sync.WaitGroup
		readers sync.WaitGroup
		firstEr atomic.Pointer[error]
		sem     = make(chan struct{}, dialsInFlight)
	)
	fail := func(err error) {
		firstEr.CompareAndSwap(nil, &err)
		cancel()
	}
	ready.Add(n)
	for i := range n {
		room := fmt.Sprintf("idle-%s-%d", tag, i%rooms)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			c, err := dialViewer(ctx, s, key, room, i, attachwire.PresenceCounts)
			if err != nil {
				fail(err)
				ready.Done()
				return
			}
			conns[i] = c
			if bare {
				ready.Done()
			}
			readers.Add(1)
			go func() {
				defer readers.Done()
				first := !bare
				for {
					if _, _, err := c.Read(ctx); err != nil {
						if first {
							fail(fmt.Errorf("%s: viewer %d: %w", s.name, i, err))
							ready.Done()
						}
						return
					}
					if first {
						first = false
						ready.Done()
					}
				}
			}()
		}()
	}
	ready.Wait()
	if e := firstEr.Load(); e != nil {
		return res, *e
	}
	// Presence updates go out a few hundred milliseconds after the joins;
	// then the server has nothing more to do.
	time.Sleep(2 * time.Second)
	settle(s.cmd.Process.Pid)
	res.after, err = readMem(ctx, s)
	if p := os.Getenv("RELAYBENCH_HEAP"); p != "" && !bare {
		if resp, err := http.Get("http://" + s.addr + "/bench/heap"); err == nil {
			if f, err := os.Create(p); err == nil {
				io.Copy(f, resp.Body)
				f.Close()
			}
			resp.Body.Close()
		}
	}
	cancel()
	for _, c := range conns {
		if c != nil {
			c.CloseNow()
		}
	}
	readers.Wait()
	settle(s.cmd.Process.Pid)
	return res, err
}

// runIdle holds n idle viewers against each case's server, rounds times
// in rotating order, and prints each case's memory per viewer.
func runIdle(ctx context.Context, stdout, stderr io.Writer, cases []benchCase, key ed25519.PrivateKey, n, rounds int) error {
	rooms := max(1, n/10)
	fmt.Fprintf(stdout, "idle viewers: %d in %d rooms, %d rounds; load average at start %s\n", n, rooms, rounds, testkit.LoadAverage())
	results := map[string][]idleResult{}
	for r := range rounds {
		order := slices.Clone(cases)
		k := r % len(order)
		order = append(order[k:], order[:k]...)
		for _, c := range order {
			// A fresh server each time: what it had freed before would
			// otherwise hold pages the next viewers reuse unseen.
			s, err := startServer(c.server, c.server, hex.EncodeToString(key.Public().(ed25519.PublicKey)), n, "")
			if err != nil {
				return err
			}
			res, err := idle(ctx, s, key, fmt.Sprintf("%d-%s", r, strings.ReplaceAll(c.name, "/", "-")), n, rooms)
			s.stop()
			if err != nil {
				return fmt.Errorf("round %d %s: %w", r, c.name, err)
			}
			fmt.Fprintf(stderr, "round %d %-13s per viewer: rss %5.1f KiB  heap %5.1f KiB  stacks %5.1f KiB  goroutines %.2f  (rss %d MiB)  load %s\n",
				r, c.name, res.perViewer(rssOf)/1024, res.perViewer(heapOf)/1024, res.perViewer(stacksOf)/1024,
				res.perViewer(func(m memReport) int64 { return int64(m.Goroutines) }), res.after.RSS>>20, testkit.LoadAverage())
			results[c.name] = append(results[c.name], res)
		}
	}
	fmt.Fprintln(stdout, "| case | RSS per viewer KiB, median (range) | heap per viewer KiB | stacks per viewer KiB | goroutines per viewer |")
	fmt.Fprintln(stdout, "|---|---|---|---|---|")
	for _, c := range cases {
		col := func(f func(memReport) int64) []float64 {
			var v []float64
			for _, r := range results[c.name] {
				v = append(v, r.perViewer(f)/1024)
			}
			return v
		}
		rss, heap, stacks := col(rssOf), col(heapOf), col(stacksOf)
		var g []float64
		for _, r := range results[c.name] {
			g = append(g, r.perViewer(func(m memReport) int64 { return int64(m.Goroutines) }))
		}
		fmt.Fprintf(stdout, "| %s | %.1f (%.1f–%.1f) | %.1f | %.1f | %.2f |\n", c.name, median(rss), slices.Min(rss), slices.Max(rss),
			median(heap), median(stacks), median(g))
	}
	fmt.Fprintf(stdout, "load average at end %s\n", testkit.LoadAverage())
	return nil
}

func rssOf(m memReport) int64    { return m.RSS }
func heapOf(m memReport) int64   { return m.Heap }
func stacksOf(m memReport) int64 { return m.Stacks }
