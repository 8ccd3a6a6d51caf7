// Command relaybench measures the relay against a bare WebSocket
// forwarder on the same load, each a process of its own whose CPU is read
// from /proc, in interleaved rounds, and prints medians, ranges and the
// paired ratios to the forwarder. Three loads: the join storm (-load
// storm), N viewers dialling one room, done when every viewer's member
// view shows all N (the forwarder: when every dial is accepted); the
// stream (-load stream), one host sending 4 KiB Output frames to N
// viewers, compared as CPU per delivered byte; and idle viewers (-load
// idle), N in N/10 rooms, whose memory each server reports. See
// bench/README.md and
// docs/performance.md.
package main

import (
	"context"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/token"
)

func main() {
	if len(os.Args) > 2 && os.Args[1] == serveArg {
		fs := flag.NewFlagSet("serve", flag.ExitOnError)
		key := fs.String("key", "", "the relay's public key, hex")
		viewers := fs.Int("viewers", 1000, "viewers a room may hold")
		profile := fs.String("cpuprofile", "", "write the server's CPU profile to this file")
		fs.Parse(os.Args[3:])
		if err := serve(os.Args[2], *key, *viewers, *profile); err != nil {
			fmt.Fprintln(os.Stderr, "relaybench serve:", err)
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil && err != flag.ErrHelp {
		fmt.Fprintln(os.Stderr, "relaybench:", err)
		os.Exit(1)
	}
}

// benchCase is one side of the comparison.
type benchCase struct {
	name   string
	server string // "relay" or "bare"
	mode   attachwire.PresenceMode
}

var allCases = []benchCase{
	{name: "bare", server: "bare"},
	{name: "relay/counts", server: "relay", mode: attachwire.PresenceCounts},
	{name: "relay/lists", server: "relay"},
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("relaybench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	viewers := fs.Int("viewers", 1000, "viewers dialling one room per storm")
	rounds := fs.Int("rounds", 5, "rounds; each runs every case once, in rotating order")
	only := fs.String("cases", "bare,relay/counts,relay/lists", "cases to run, comma-separated")
	profile := fs.String("cpuprofile", "", "write the relay's CPU profile (its whole run) to this file")
	loadName := fs.String("load", "storm", "the load: storm (viewers joining), stream (frames to viewers) or idle (viewers holding, ten a room: memory)")
	streamMiB := fs.Int("stream-mib", 256, "stream: MiB delivered a round, over all viewers (sets the frames sent)")
	window := fs.Int("window", 32, "stream: frames the host sends at once before waiting for every viewer")
	frameBytes := fs.Int("frame-bytes", 4096, "stream: each Output frame's payload")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var cases []benchCase
	for _, c := range allCases {
		if slices.Contains(strings.Split(*only, ","), c.name) {
			cases = append(cases, c)
		}
	}
	if len(cases) == 0 {
		return fmt.Errorf("no case in %q", *only)
	}
	pub, priv, err := token.GenerateKey()
	if err != nil {
		return err
	}
	if *loadName == "idle" {
		return runIdle(ctx, stdout, stderr, cases, priv, *viewers, *rounds)
	}
	servers := map[string]*server{}
	for _, kind := range []string{"bare", "relay"} {
		prof := ""
		if kind == "relay" {
			prof = *profile
		}
		s, err := startServer(kind, kind, hex.EncodeToString(pub), *viewers, prof)
		if err != nil {
			return err
		}
		defer s.stop()
		servers[kind] = s
	}
	var load streamLoad
	switch *loadName {
	case "storm":
		fmt.Fprintf(stdout, "join storm: %d viewers, %d rounds; load average at start %s\n", *viewers, *rounds, testkit.LoadAverage())
	case "stream":
		load = streamLoad{window: max(*window, 1), size: max(*frameBytes, 1)}
		load.frames = max(*streamMiB<<20/(*viewers*load.size), load.window)
		fmt.Fprintf(stdout, "stream: %d viewers, %d frames of %d bytes in windows of %d, %d rounds; load average at start %s\n",
			*viewers, load.frames, load.size, load.window, *rounds, testkit.LoadAverage())
	default:
		return fmt.Errorf("unknown load %q", *loadName)
	}
	results := map[string][]stormResult{}
	for r := range *rounds + 1 { // round 0 warms both servers up, uncounted
		order := slices.Clone(cases)
		k := r % len(order)
		order = append(order[k:], order[:k]...)
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, c := range order {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			room := fmt.Sprintf("storm-%d-%s", r, strings.ReplaceAll(c.name, "/", "-"))
			var res stormResult
			var err error
			if load.frames > 0 {
				res, err = stream(ctx, servers[c.server], priv, room, *viewers, load, c.mode)
			} else {
				res, err = storm(ctx, servers[c.server], priv, room, *viewers, c.mode)
			}
			if err != nil {
				return fmt.Errorf("round %d %s: %w", r, c.name, err)
			}
			fmt.Fprintf(stderr, "round %d %-13s cpu %6.0f ms  wall %6.0f ms  controls/viewer %6.1f  MiB %6.1f  load %s\n", r, c.name,
				ms(res.cpu), ms(res.wall), float64(res.controls)/float64(*viewers), float64(res.bytes)/(1<<20), testkit.LoadAverage())
			if r > 0 {
				results[c.name] = append(results[c.name], res)
			}
		}
	}
	if load.frames > 0 {
		printStreamTable(stdout, cases, results)
	} else {
		printTable(stdout, cases, results, *viewers)
	}
	fmt.Fprintf(stdout, "load average at end %s\n", testkit.LoadAverage())
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// printTable prints each case's medians and ranges, and its CPU over the
// bare forwarder's, as the ratio of medians and as the median and range
// of the per-round ratios.
func printTable(w io.Writer, cases []benchCase, res map[string][]stormResult, viewers int) {
	bare := res["bare"]
	fmt.Fprintln(w, "| case | server CPU ms, median (range) | wall ms, median | controls a viewer got | vs bare: ratio of medians | vs bare: per round, median (range) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, c := range cases {
		rs := res[c.name]
		cpu := make([]float64, len(rs))
		wall := make([]float64, len(rs))
		ctl := make([]float64, len(rs))
		var ratios []float64
		for i, r := range rs {
			cpu[i], wall[i], ctl[i] = ms(r.cpu), ms(r.wall), float64(r.controls)/float64(viewers)
			if i < len(bare) && bare[i].cpu > 0 {
				ratios = append(ratios, ms(r.cpu)/ms(bare[i].cpu))
			}
		}
		vs, paired := "", ""
		if len(bare) > 0 && c.name != "bare" {
			bc := make([]float64, len(bare))
			for i, r := range bare {
				bc[i] = ms(r.cpu)
			}
			if m := median(bc); m > 0 {
				vs = fmt.Sprintf("%.2f", median(cpu)/m)
			}
			paired = fmt.Sprintf("%.2f (%.2f–%.2f)", median(ratios), slices.Min(ratios), slices.Max(ratios))
		}
		fmt.Fprintf(w, "| %s | %.0f (%.0f–%.0f) | %.0f | %.1f | %s | %s |\n", c.name, median(cpu), slices.Min(cpu), slices.Max(cpu),
			median(wall), median(ctl), vs, paired)
	}
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(v))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// printStreamTable prints each case's CPU per delivered MiB (median and
// range), its delivered MiB and wall time, and its CPU per byte over the
// bare forwarder's, as the ratio of medians and as the median and range
// of the per-round ratios.
func printStreamTable(w io.Writer, cases []benchCase, res map[string][]stormResult) {
	perMiB := func(r stormResult) float64 {
		if r.bytes <= 0 {
			return 0
		}
		return ms(r.cpu) / (float64(r.bytes) / (1 << 20))
	}
	bare := res["bare"]
	fmt.Fprintln(w, "| case | server CPU ms per delivered MiB, median (range) | MiB delivered, median | wall ms, median | vs bare: ratio of medians | vs bare: per round, median (range) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	bc := make([]float64, len(bare))
	for i, r := range bare {
		bc[i] = perMiB(r)
	}
	for _, c := range cases {
		rs := res[c.name]
		cpu := make([]float64, len(rs))
		mib := make([]float64, len(rs))
		wall := make([]float64, len(rs))
		var ratios []float64
		for i, r := range rs {
			cpu[i], mib[i], wall[i] = perMiB(r), float64(r.bytes)/(1<<20), ms(r.wall)
			if i < len(bc) && bc[i] > 0 {
				ratios = append(ratios, cpu[i]/bc[i])
			}
		}
		vs, paired := "", ""
		if len(bc) > 0 && c.name != "bare" {
			if m := median(bc); m > 0 {
				vs = fmt.Sprintf("%.2f", median(cpu)/m)
			}
			paired = fmt.Sprintf("%.2f (%.2f–%.2f)", median(ratios), slices.Min(ratios), slices.Max(ratios))
		}
		fmt.Fprintf(w, "| %s | %.2f (%.2f–%.2f) | %.0f | %.0f | %s | %s |\n", c.name, median(cpu), slices.Min(cpu), slices.Max(cpu),
			median(mib), median(wall), vs, paired)
	}
}
