package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"strconv"
	"strings"
)

// config is the parsed command line. Every field's zero value is replaced by
// its flag default in parseConfig.
type config struct {
	size       int    // workload size in bytes (trimmed down to a line end)
	content    string // "mixed" or "ascii"
	seed       uint64 // streamgen seed
	rounds     int    // measured rounds
	warmup     int    // discarded rounds before them
	bareReps   int    // bare runs per pair; their median is the pair's baseline
	rtIters    int    // round trips per latency sample
	cols, rows int    // terminal size for every host
	scrollback int    // scrollback lines for every host that has one
	subs       []int  // ptyhost subscriber counts
	only       *regexp.Regexp
	outDir     string // workload file and scratch space
	nodeDir    string // bench/node: drain.js and its node_modules
	cpuProfile string // write a CPU profile of this process (ptyhost runs in it)
}

// usageError marks errors in the command line (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func parseConfig(args []string, stderr io.Writer) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("ptybench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sizeMiB := fs.Float64("size-mib", 8, "workload file size in MiB (the same file for every throughput case)")
	fs.StringVar(&cfg.content, "content", "mixed", "workload: mixed (colored logs, progress bars, redraws, wide glyphs, emoji) or ascii")
	fs.Uint64Var(&cfg.seed, "seed", 1, "streamgen seed")
	fs.IntVar(&cfg.rounds, "rounds", 7, "measured rounds")
	fs.IntVar(&cfg.warmup, "warmup", 1, "warm-up rounds (run, then discarded)")
	fs.IntVar(&cfg.bareReps, "bare-reps", 3, "bare reader runs per pair (median is the pair's baseline)")
	fs.IntVar(&cfg.rtIters, "rt-iters", 2000, "keystroke round trips per latency sample")
	fs.IntVar(&cfg.cols, "cols", 120, "terminal columns")
	fs.IntVar(&cfg.rows, "rows", 40, "terminal rows")
	fs.IntVar(&cfg.scrollback, "scrollback", 200, "scrollback lines (ptyhost, tmux history-limit, xterm)")
	subs := fs.String("subs", "1,10,100", "comma-separated ptyhost subscriber counts")
	only := fs.String("only", "", "regexp: run only the cases whose name matches (bare baselines always run)")
	fs.StringVar(&cfg.outDir, "out", "out", "directory for the workload file and scratch files")
	fs.StringVar(&cfg.nodeDir, "node-dir", "node", "directory holding drain.js and node_modules")
	fs.StringVar(&cfg.cpuProfile, "cpuprofile", "", "write a CPU profile of the driver process (ptyhost runs in-process) to this file")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: ptybench [flags]\n\nRuns ptyhost, a bare PTY reader, tmux and node-pty + @xterm/headless\nside by side and prints one table.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return cfg, err
		}
		return cfg, usageError{err.Error()}
	}
	if fs.NArg() != 0 {
		return cfg, usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	cfg.size = int(*sizeMiB * (1 << 20))
	switch {
	case cfg.size < 64<<10 || cfg.size > 1<<30:
		return cfg, usageError{"-size-mib must be between 1/16 and 1024"}
	case cfg.content != "mixed" && cfg.content != "ascii":
		return cfg, usageError{"-content must be mixed or ascii"}
	case cfg.rounds < 1 || cfg.warmup < 0 || cfg.bareReps < 1 || cfg.rtIters < 10:
		return cfg, usageError{"-rounds and -bare-reps must be >= 1, -warmup >= 0, -rt-iters >= 10"}
	case cfg.cols < 2 || cfg.rows < 2 || cfg.cols > 1000 || cfg.rows > 1000:
		return cfg, usageError{"-cols and -rows must be between 2 and 1000"}
	}
	for _, f := range strings.Split(*subs, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 10000 {
			return cfg, usageError{fmt.Sprintf("-subs: bad count %q", f)}
		}
		cfg.subs = append(cfg.subs, n)
	}
	re, err := regexp.Compile(*only)
	if err != nil {
		return cfg, usageError{fmt.Sprintf("-only: %v", err)}
	}
	cfg.only = re
	for _, p := range []*string{&cfg.outDir, &cfg.nodeDir} {
		if *p, err = filepath.Abs(*p); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// startProfile starts a CPU profile when path is set and returns its stop.
func startProfile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
